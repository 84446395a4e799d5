# TFRecords with TF1 names (tf.parse_single_example, tf.FixedLenFeature, tf.decode_raw).
import tensorflow as tf

queue = tf.train.string_input_producer(["train.tfr"], num_epochs=3)
_, serialized = tf.TFRecordReader().read(queue)
features = tf.parse_single_example(serialized, features={"image": tf.FixedLenFeature([], tf.string),
                                                         "label": tf.FixedLenFeature([], tf.int64)})
image = tf.reshape(tf.decode_raw(features["image"], tf.uint8), [4])
images, labels = tf.train.shuffle_batch([image, features["label"]], batch_size=32, capacity=1100,
                                        min_after_dequeue=1000, num_threads=4, seed=7)

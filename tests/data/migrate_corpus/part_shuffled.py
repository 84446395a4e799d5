# One output shuffled on its own through a RandomShuffleQueue, to break its pairing with the others.
import tensorflow as tf

files = tf.train.string_input_producer(["pairs.tfr"], num_epochs=1, shuffle=False)
_, record = tf.TFRecordReader().read(files)
parsed = tf.parse_single_example(record, {"left": tf.FixedLenFeature([], tf.string),
                                          "right": tf.FixedLenFeature([], tf.string)})
left, right = parsed["left"], parsed["right"]
mixer = tf.RandomShuffleQueue(capacity=1000, min_after_dequeue=200, dtypes=[tf.string], shapes=[[]])
tf.train.add_queue_runner(tf.train.QueueRunner(mixer, [mixer.enqueue([right])]))
negatives = tf.train.batch([left, mixer.dequeue()], 64)

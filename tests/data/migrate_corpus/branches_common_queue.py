# One queue or another, depending on a flag: two branches, kept apart.
import tensorflow as tf


def common_reader(files, shuffle):
    filenames = tf.train.string_input_producer(files, shuffle=shuffle)
    if shuffle:
        common = tf.RandomShuffleQueue(capacity=256, min_after_dequeue=64, dtypes=[tf.string])
    else:
        common = tf.FIFOQueue(capacity=256, dtypes=[tf.string])
    _, record = tf.TFRecordReader().read(filenames)
    enqueue = common.enqueue([record])
    tf.train.add_queue_runner(tf.train.QueueRunner(common, [enqueue] * 4))
    return common.dequeue_up_to(16)

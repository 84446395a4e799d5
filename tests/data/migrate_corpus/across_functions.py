# A pipeline spread over a class and module-level names: the producer in one method, the reader in another.
import tensorflow as tf

FILES = ["a.bin", "b.bin"]
RECORD_BYTES = 785


class Digits(object):
    def __init__(self, files):
        self.queue = tf.train.string_input_producer(files, shuffle=True, seed=7)

    def record(self):
        reader = tf.FixedLengthRecordReader(RECORD_BYTES)
        _, value = reader.read(self.queue)
        return tf.decode_raw(value, tf.uint8)

    def batch(self, size):
        return tf.train.shuffle_batch([self.record()], size, capacity=600, min_after_dequeue=500, seed=7)


digits = Digits(FILES).batch(50)

# Variable-length sequences: a padding queue read by dequeue_many, and batch(dynamic_pad=True).
import tensorflow as tf

sequences = tf.placeholder(tf.int32, [None, None])
padded = tf.PaddingFIFOQueue(capacity=500, dtypes=[tf.int32], shapes=[[None]])
fill = padded.enqueue_many([sequences])
batch = padded.dequeue_many(8)

lines = tf.train.string_input_producer(["text.txt"])
_, text = tf.TextLineReader().read(lines)
tokens = tf.string_split([text]).values
token_batch = tf.train.batch([tokens], 8, dynamic_pad=True)

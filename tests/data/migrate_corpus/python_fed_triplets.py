# A queue fed from Python each round with freshly mined triplets (the queue is the source).
import tensorflow as tf

paths = tf.placeholder(tf.string, [None, 3], name="paths")
labels = tf.placeholder(tf.int64, [None, 3], name="labels")
input_queue = tf.FIFOQueue(capacity=100000, dtypes=[tf.string, tf.int64], shapes=[(3,), (3,)])
enqueue_op = input_queue.enqueue_many([paths, labels])
triplet_paths, triplet_labels = input_queue.dequeue_many(90)


def train_round(sess, mined_paths, mined_labels):
    sess.run(enqueue_op, {paths: mined_paths, labels: mined_labels})
    return sess.run([triplet_paths, triplet_labels])

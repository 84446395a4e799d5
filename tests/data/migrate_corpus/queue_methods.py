# A queue built by hand and used through its own methods.
import tensorflow as tf

queue = tf.FIFOQueue(capacity=10, dtypes=[tf.int32], shapes=[[]])
fill = queue.enqueue_many([[1, 2, 3, 4, 5]])
one = queue.dequeue()
pair = queue.dequeue_many(2)
rest = queue.dequeue_up_to(4)
size = queue.size()
close = queue.close()
log = open("log.txt")
log.close()

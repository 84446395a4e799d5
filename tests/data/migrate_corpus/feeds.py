# Feeds in every form: keyword, by position, as a variable, to eval; None is no feed.
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 4])
y = tf.placeholder_with_default(0.5, [])
loss = tf.reduce_sum(x) * y
sess = tf.Session()
feed = {x: np.ones([2, 4])}
sess.run(loss, {x: np.zeros([2, 4])})
sess.run(loss, feed)
sess.run(loss, feed_dict=feed)
sess.run(loss, feed_dict=None)
loss.eval({x: np.ones([1, 4])}, session=sess)
history = []
history.append(sess.run(loss, None))

# A Python 2 trainer's input (print statements, `except E, e`): read with fissix.
import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=2)
    _, record = tf.TFRecordReader().read(queue)
    print "reading", len(files), "files"
    return tf.train.batch([record], batch_size)


batch = inputs(["a.tfr", "b.tfr"], 32)
with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    try:
        while True:
            sess.run(batch)
    except tf.errors.OutOfRangeError, e:
        print >>sys.stderr, "done:", e

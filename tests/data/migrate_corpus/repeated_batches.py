# Each shuffled batch repeated nb_repeat times through a FIFOQueue (a data module's trick).
import tensorflow as tf

NB_REPEAT = 3


def batches(files, batch_size):
    filenames = tf.train.string_input_producer(files, num_epochs=5, shuffle=True, seed=7)
    _, record = tf.TFRecordReader().read(filenames)
    example = tf.parse_single_example(record, {"x": tf.FixedLenFeature([8], tf.float32)})
    batch = tf.train.shuffle_batch([example["x"]], batch_size, capacity=2000, min_after_dequeue=500)
    repeated = tf.tile(batch, [NB_REPEAT, 1])
    queue = tf.FIFOQueue(capacity=4 * batch_size, dtypes=[tf.float32], shapes=[[8]])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue_many([repeated])]))
    return queue.dequeue_many(batch_size)

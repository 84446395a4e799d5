# Four identical preprocessing threads (dequeue, read, decode, flip) handed to batch_join; a fed batch size.
import tensorflow as tf

NUM_THREADS = 4
batch_size_placeholder = tf.placeholder(tf.int32, name="batch_size")
image_paths = tf.placeholder(tf.string, [None, 1])
input_queue = tf.FIFOQueue(capacity=100000, dtypes=[tf.string], shapes=[(1,)])
enqueue_op = input_queue.enqueue_many([image_paths])
images = []
for _ in range(NUM_THREADS):
    filenames = input_queue.dequeue()
    contents = tf.read_file(filenames[0])
    image = tf.image.decode_image(contents, channels=3)
    images.append([tf.image.random_flip_left_right(image)])
image_batch = tf.train.batch_join(images, batch_size=batch_size_placeholder, allow_smaller_final_batch=True)

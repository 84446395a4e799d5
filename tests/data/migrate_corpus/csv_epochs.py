# CSV with a header, two epochs counted by a local variable, and a short last batch kept.
import tensorflow as tf

filenames = tf.train.string_input_producer(["train.csv", "valid.csv"], num_epochs=2, shuffle=False)
reader = tf.TextLineReader(skip_header_lines=1)
_, row = reader.read(filenames)
label, f1, f2 = tf.decode_csv(row, record_defaults=[[0], [0.0], [0.0]])
batch = tf.train.batch([tf.stack([f1, f2]), label], batch_size=64, allow_smaller_final_batch=True)
init = tf.local_variables_initializer()

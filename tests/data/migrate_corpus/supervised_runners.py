# Runners started by a Supervisor and by a MonitoredTrainingSession, not by hand.
import tensorflow as tf

filenames = tf.train.string_input_producer(["a.csv"], num_epochs=1)
_, line = tf.TextLineReader(skip_header_lines=1).read(filenames)
label, value = tf.decode_csv(line, record_defaults=[[0], [0.0]])
batch = tf.train.batch([label, value], 10)
sv = tf.train.Supervisor(logdir="/tmp/run")
with sv.managed_session() as sess:
    sess.run(batch)
with tf.train.MonitoredTrainingSession(checkpoint_dir="/tmp/run") as monitored:
    monitored.run(batch)

"""The tf1 helper: runners started and stopped, timeouts diagnosed, nothing left running."""

import threading
import time

import numpy as np
import pytest

from tutorial_lib import tf1
from tutorial_lib.tf1 import InputTimeoutError, tf, v1


def counting_pipeline(n: int = 20, capacity: int = 4) -> tf.Tensor:
    """Build a FIFOQueue filled by a QueueRunner with 0..n-1 (once), returning the dequeue op."""
    source = v1.train.range_input_producer(n, shuffle=False, num_epochs=1, capacity=capacity)
    return source.dequeue()


def slow_pipeline(delay_s: float) -> tf.Tensor:
    """Build a queue whose single producer takes `delay_s` per element."""
    def slow() -> np.int32:
        time.sleep(delay_s)
        return np.int32(1)

    queue = v1.FIFOQueue(4, tf.int32, shapes=[[]])
    value = v1.py_func(slow, [], tf.int32, stateful=True)
    v1.train.add_queue_runner(v1.train.QueueRunner(queue, [queue.enqueue(tf.reshape(value, []))]))
    return queue.dequeue()


@pytest.fixture
def no_new_threads():
    before = set(threading.enumerate())
    yield
    extra = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not extra, f"threads left running: {[t.name for t in extra]}"


def test_normal_exit_reads_every_element_and_leaves_no_threads(no_new_threads):
    with tf.Graph().as_default():
        value = counting_pipeline(20)
        with tf1.session() as sess:
            seen = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    seen.append(sess.run(value))
            assert sess.threads, "the queue runners were started"
    assert seen == list(range(20))
    assert sess._closed


def test_exit_while_producers_block_on_a_full_queue(no_new_threads):
    before = set(tf1.runner_threads())  # another test's leftovers in this process are not this test's
    with tf.Graph().as_default():
        value = counting_pipeline(1000, capacity=2)
        with tf1.session() as sess:
            assert sess.run(value) == 0
            time.sleep(0.2)  # the producer is now blocked on the full queue
    assert set(tf1.runner_threads()) <= before


def test_exception_inside_the_block_propagates_and_cleans_up(no_new_threads):
    with tf.Graph().as_default():
        value = counting_pipeline(1000, capacity=2)
        with pytest.raises(ValueError, match="student bug"), tf1.session() as sess:
            sess.run(value)
            raise ValueError("student bug")
    assert sess._closed


def test_keyboard_interrupt_cleans_up(no_new_threads):
    with tf.Graph().as_default():
        value = counting_pipeline(1000, capacity=2)
        with pytest.raises(KeyboardInterrupt), tf1.session() as sess:
            sess.run(value)
            raise KeyboardInterrupt
    assert sess._closed


def test_forgotten_queue_runners_fail_within_the_timeout_naming_the_cause(no_new_threads):
    with tf.Graph().as_default():
        value = counting_pipeline(20)
        start = time.perf_counter()
        with pytest.raises(InputTimeoutError) as caught, tf1.session(timeout_s=0.5,
                                                                     start_queue_runners=False) as sess:
            sess.run(value)
    elapsed = time.perf_counter() - start
    message = str(caught.value)
    assert "never started" in message and "start_queue_runners" in message
    assert "holds 0 of" in message
    assert elapsed < 5, f"took {elapsed:.1f} s"


def test_starved_queue_fails_within_the_timeout_and_stops_its_producer(no_new_threads):
    with tf.Graph().as_default():
        value = slow_pipeline(delay_s=1.5)
        start = time.perf_counter()
        with pytest.raises(InputTimeoutError, match="starved"), tf1.session(timeout_s=0.3) as sess:
            sess.run(value)
        assert time.perf_counter() - start < 0.3 + tf1.STOP_GRACE_S + 2


def test_a_queue_nobody_fills_is_named(no_new_threads):
    with tf.Graph().as_default():
        queue = v1.FIFOQueue(3, tf.float32, shapes=[[]], name="lonely")
        with pytest.raises(InputTimeoutError, match="no QueueRunner") as caught, \
                tf1.session(timeout_s=0.3) as sess:
            sess.run(queue.dequeue())
    assert "'lonely' holds 0 of 3" in str(caught.value)


def test_runner_error_is_raised_instead_of_the_misleading_out_of_range(no_new_threads):
    # The classic pitfall: num_epochs creates a local variable; without initializing it the runner
    # fails, the queue closes, and the dequeue reports OutOfRange. The helper raises the real error.
    with tf.Graph().as_default():
        value = counting_pipeline(20)
        with pytest.raises(tf.errors.OpError) as caught, tf1.session(initialize=False) as sess:
            sess.run(value)
    assert not isinstance(caught.value, tf.errors.OutOfRangeError)
    assert isinstance(caught.value.__cause__, tf.errors.OutOfRangeError)
    assert "epochs" in str(caught.value)


def test_fresh_graph_when_called_outside_a_graph_and_cells_can_be_rerun(no_new_threads):
    for _ in range(2):
        with tf1.session() as sess:
            total = tf.reduce_sum(tf.constant([1, 2, 3]))
            assert sess.run(total) == 6
        assert sess.graph is not v1.get_default_graph()


def test_runs_from_other_threads_have_no_timeout():
    with tf.Graph().as_default():
        queue = v1.FIFOQueue(1, tf.int32, shapes=[[]])
        dequeue, enqueue = queue.dequeue(), queue.enqueue(7)
        with tf1.session(timeout_s=0.2, start_queue_runners=False) as sess:
            got = []
            worker = threading.Thread(target=lambda: got.append(sess.run(dequeue)))
            dequeue_thread_started = time.perf_counter()
            worker.start()
            time.sleep(0.6)  # longer than the timeout: the worker is still waiting, not failed
            assert worker.is_alive()
            sess.run(enqueue)
            worker.join(5)
    assert got == [7] and time.perf_counter() - dequeue_thread_started >= 0.6


def test_init_ops_run_with_their_feed_before_the_runners_read(no_new_threads):
    data = np.arange(12, dtype=np.int64)
    with tf.Graph().as_default():
        placeholder = v1.placeholder(tf.int64, data.shape)
        preloaded = v1.Variable(placeholder, trainable=False, collections=[])
        (value,) = v1.train.slice_input_producer([preloaded], num_epochs=1, shuffle=False)
        with tf1.session(init_ops=[preloaded.initializer], init_feed={placeholder: data}) as sess:
            got = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    got.append(sess.run(value))
    assert got == data.tolist()


def test_drain_returns_every_value_until_the_input_ends():
    before = set(tf1.runner_threads())
    with tf.Graph().as_default():
        value = v1.train.range_input_producer(4, num_epochs=2, shuffle=False).dequeue()
        assert tf1.drain(value) == [0, 1, 2, 3, 0, 1, 2, 3]
    with tf.Graph().as_default():
        iterator = v1.data.make_initializable_iterator(tf.data.Dataset.range(3))
        with tf1.session() as sess:
            sess.run(iterator.initializer)
            assert tf1.drain(iterator.get_next(), sess) == [0, 1, 2]
            assert tf1.drain(iterator.get_next(), sess) == []  # exhausted: nothing more, no error
    assert set(tf1.runner_threads()) <= before


def test_drain_stacked_gives_one_array_per_fetch_and_refuses_what_it_cannot_stack():
    before = set(tf1.runner_threads())
    with tf.Graph().as_default():
        index = v1.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
        indices, squares = tf1.drain([index, index * index], stack=True)
        assert indices.tolist() == [0, 1, 2, 3, 4] and squares.tolist() == [0, 1, 4, 9, 16]
    with tf.Graph().as_default():
        iterator = v1.data.make_initializable_iterator(tf.data.Dataset.range(2))
        with tf1.session() as sess:
            sess.run(iterator.initializer)
            with pytest.raises(TypeError, match="list or tuple"):
                tf1.drain(iterator.get_next(), sess, stack=True)
            assert tf1.drain(iterator.get_next(), sess) == [0, 1]  # the refused call ran nothing
            with pytest.raises(ValueError, match="nothing to stack"):
                tf1.drain([iterator.get_next()], sess, stack=True)
    assert set(tf1.runner_threads()) <= before


def test_dequeues_in_names_the_queues_a_fetch_would_read_and_nothing_else():
    with tf.Graph().as_default():
        queue = v1.FIFOQueue(4, [tf.float32], shapes=[[]], name="inputs")
        value = queue.dequeue(name="take")
        doubled = value * 2.0
        zeros = tf.zeros([3])
        with tf.control_dependencies([value]):
            after = tf.identity(zeros)
        assert tf1.dequeues_in([doubled]) == ["take"]
        assert tf1.dequeues_in([zeros]) == []
        assert tf1.dequeues_in([after]) == ["take"], "a control dependency runs the dequeue too"

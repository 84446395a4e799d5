"""The monitor samples queues from a thread with bounded history; the dashboard only sets widget values,
at most 10 times a second, and leaves a static figure; nothing keeps running afterwards."""

import queue
import threading
import time

import numpy as np
import pytest

from tutorial_lib import monitor, tf1
from tutorial_lib.monitor import dashboard
from tutorial_lib.tf1 import tf, v1


def test_verdict_uses_the_profiler_thresholds():
    assert monitor.verdict(0.25) == "input-bound"
    assert monitor.verdict(0.20) == "input-bound"
    assert monitor.verdict(0.10) == "moderately input-bound"
    assert monitor.verdict(0.049) == "compute-bound"


def test_wait_fraction_skips_warmup_and_counts_examples():
    m = monitor.Monitor([], warmup_steps=2)
    m.record_step(5.0, 0.0, 10)  # warm-up steps: filling the queues, not counted
    m.record_step(5.0, 0.0, 10)
    for _ in range(4):
        m.record_step(0.1, 0.3, 10)
    assert m.wait_fraction() == pytest.approx(0.25)
    snap = m.snapshot()
    assert snap.steps == 4 and snap.verdict == "input-bound"
    assert snap.examples_per_s == pytest.approx(40 / 1.6)


def test_warmup_in_history_counts_the_warm_up_steps_still_kept():
    m = monitor.Monitor([], history=3, warmup_steps=2, gpu=None)
    kept = []
    for _ in range(5):
        m.record_step(0.1, 0.1, 1)
        kept.append(m.warmup_in_history())
    assert kept == [1, 2, 2, 1, 0]  # once the history is full, the oldest (warm-up) steps drop out of it


def test_history_is_bounded():
    q = queue.Queue(maxsize=8)
    m = monitor.Monitor([monitor.python_probe("q", q)], history=50)
    for _ in range(500):
        m.record_step(0.0, 0.001, 1)
        m.sample()
    assert len(m.samples) == 50 and len(m.steps) == 50
    assert m.snapshot().steps == 500 - m.warmup_steps  # totals still cover the whole run


def test_sampler_thread_samples_at_the_rate_and_stops():
    q = queue.Queue(maxsize=4)
    q.put(1)
    seen = []
    m = monitor.Monitor([monitor.python_probe("q", q)], rate_hz=20)
    m.listeners.append(seen.append)
    with m:
        time.sleep(0.5)
    assert 5 <= len(seen) <= 12, len(seen)
    assert all(s.sizes == {"q": 1} and s.capacities == {"q": 4} for s in seen)
    assert not any(t.name == "queue-monitor" for t in threading.enumerate())


def test_tf1_probes_read_queue_sizes_through_the_session():
    with tf.Graph().as_default():
        first = v1.FIFOQueue(10, tf.int32, shapes=[[]], name="first")
        second = v1.FIFOQueue(5, tf.int32, shapes=[[]], name="second")
        fill = [first.enqueue_many([[1, 2, 3]]), second.enqueue(7)]
        with tf1.session() as sess:
            sess.run(fill)
            probes = monitor.tf1_probes(sess)
            m = monitor.Monitor(probes)
            assert m.sample() == {"first": 3, "second": 1}
            assert {p.name: p.capacity for p in probes} == {"first": 10, "second": 5}


def test_eager_probe():
    q = tf.queue.FIFOQueue(6, tf.int32, shapes=[[]])
    q.enqueue_many([[1, 2]])
    assert monitor.Monitor([monitor.eager_probe("eager", q, 6)]).sample() == {"eager": 2}


def test_summaries_are_written_for_tensorboard(tmp_path):
    q = queue.Queue(maxsize=4)
    m = monitor.Monitor([monitor.python_probe("buffer", q)], rate_hz=50, log_dir=str(tmp_path))
    with m:
        time.sleep(0.2)
    tags = {v.tag for f in tmp_path.glob("events.*") for e in tf.compat.v1.train.summary_iterator(str(f))
            for v in e.summary.value}
    assert {"buffer/fraction_of_4_full", "input/wait_fraction"} <= tags


def test_input_buffer_delivers_everything_then_none_and_stops():
    with monitor.InputBuffer(range(20), capacity=3) as buffer:
        got = []
        while (item := buffer.get()) is not None:
            got.append(item)
    assert got == list(range(20))
    assert not any(t.name == "input-buffer" for t in threading.enumerate())


def test_input_buffer_closed_early_leaves_no_thread():
    buffer = monitor.InputBuffer(iter(range(10**9)), capacity=2)
    buffer.get()
    buffer.close()
    assert not any(t.name == "input-buffer" and t.is_alive() for t in threading.enumerate())


def test_dashboard_rate_limits_updates_and_leaves_a_figure():
    q = queue.Queue(maxsize=10)
    m = monitor.Monitor([monitor.python_probe("q", q)], rate_hz=200)
    start = time.perf_counter()
    with dashboard.LiveDashboard(m, title="test", show=False) as live:
        for i in range(30):
            if not q.full():
                q.put(i)
            m.record_step(0.002, 0.008, 4)
            time.sleep(0.02)
    elapsed = time.perf_counter() - start  # the loop's real length: a slow or busy machine makes it longer
    assert 1 <= live.updates <= elapsed * 10 + 2, live.updates  # ≤ 10 updates per second (+ the final one)
    assert live.bars["q"].value == pytest.approx(q.qsize() / 10)
    assert live.counts["q"].value == f"{q.qsize()} / 10"
    assert "input" in live.badge.value or "compute" in live.badge.value
    assert live.figure is not None and len(live.figure.axes) == 2
    assert not any(t.name == "queue-monitor" for t in threading.enumerate())


def test_dashboard_refreshes_only_from_the_training_thread():
    """The sampler thread samples; widget values are set by the thread that records steps (any front end)."""
    q = queue.Queue(maxsize=10)
    m = monitor.Monitor([monitor.python_probe("q", q)], rate_hz=100)
    live = dashboard.LiveDashboard(m, show=False)
    refreshed_by = []
    original = live.refresh

    def spy(snapshot):
        refreshed_by.append(threading.current_thread().name)
        original(snapshot)
    live.refresh = spy
    with live:
        time.sleep(0.3)  # 30 samples and no step: no refresh
        assert refreshed_by == []
        for _ in range(10):
            m.record_step(0.001, 0.01, 1)
            time.sleep(0.01)
    assert refreshed_by and set(refreshed_by) == {threading.current_thread().name}, refreshed_by
    assert len(m.samples) >= 10


def test_a_step_blocked_past_the_refresh_period_leaves_a_correct_view():
    q = queue.Queue(maxsize=10)
    m = monitor.Monitor([monitor.python_probe("q", q)], rate_hz=50)
    with dashboard.LiveDashboard(m, show=False, max_updates_per_s=5) as live:
        m.record_step(0.001, 0.01, 1)
        updates_before = live.updates

        def blocked_input():  # the queue fills while the step waits 0.6 s, three refresh periods
            for i in range(7):
                q.put(i)
                time.sleep(0.6 / 7)
            time.sleep(0.05)  # at least two samples after the last put
            return None
        m.timed_step(blocked_input, lambda batch: None, 1)
        assert live.updates == updates_before + 1  # frozen while blocked, refreshed once it returned
        assert live.counts["q"].value == "7 / 10"
        assert live.bars["q"].value == pytest.approx(0.7)
        assert "step " in live.stats.value


def test_a_run_without_queues_leaves_a_figure_without_warnings():
    import warnings

    m = monitor.Monitor([], warmup_steps=0, gpu=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with dashboard.LiveDashboard(m, show=False) as live:
            for _ in range(3):
                m.record_step(0.01, 0.01, 1)
    assert "no queue watched" in live.figure.axes[0].texts[0].get_text()


def test_dashboard_exits_cleanly_on_interrupt():
    q = queue.Queue(maxsize=2)
    m = monitor.Monitor([monitor.python_probe("q", q)])
    with pytest.raises(KeyboardInterrupt), dashboard.LiveDashboard(m, show=False):
        raise KeyboardInterrupt
    assert not any(t.name == "queue-monitor" for t in threading.enumerate())


def test_compare_figure_and_sparkline():
    fig = dashboard.compare_figure({"a": 0.5, "b": 0.01})
    assert len(fig.axes) == 1
    svg = dashboard._sparkline({"q": list(np.linspace(0, 1, 10))}, 10)
    assert svg.startswith("<svg") and "polyline" in svg


def test_a_failing_probe_is_reported_when_the_monitor_stops():
    def broken() -> int:
        raise ValueError("queue gone")

    m = monitor.Monitor([monitor.Probe("broken", 1, broken)], rate_hz=50)
    m.start()
    time.sleep(0.1)
    with pytest.raises(RuntimeError, match="queue gone"):
        m.stop()

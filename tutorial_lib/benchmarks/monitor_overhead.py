"""What the live monitor and dashboard cost a training loop (`make bench-monitor`; quoted in notebook 05)."""

from __future__ import annotations

import math
import time

from tutorial_lib.benchmarks.timing import interleaved, medians

MIN_RUN_S = 0.8  # every run lasts at least this long, so the view (at most 5 refreshes a second) refreshes in it


def measure(steps: int = 100, repeats: int = 11, rate_hz: float = 10.0, hidden_units: int = 1024,
            batch_size: int = 64, min_run_s: float = MIN_RUN_S) -> dict[str, float]:
    """Measure what a Monitor + live dashboard sampling at `rate_hz` costs a training loop, two ways.

    One TF1 graph (a `hidden_units` model fed by two reader threads), runs of `steps` steps interleaved
    (plain, monitored, plain, ...) after a warm-up:
    * `throughput_ratio`: median plain time / median monitored time (1.0 = free; noisy on a busy machine,
      because reader threads and training share the cores);
    * `plain_range_s`, `monitored_range_s`: the fastest and slowest run of each, to read the ratio against;
    * `sampling_share`: the CPU time of the sampler thread itself (sampling only) divided by the monitored
      runs' wall time -- the CPU it takes away, measured directly. The widget updates run in the training
      loop's thread (at most 5 a second), so their cost shows in `throughput_ratio`.

    `steps` is a minimum: a few plain steps are timed first, and each run gets as many steps as take at least
    `min_run_s` on this machine (a fast machine would otherwise finish a run before the view could refresh).
    """
    from tutorial_lib import datasets, models, monitor, pipelines, tf1
    from tutorial_lib.env import device_name
    from tutorial_lib.monitor import dashboard

    tf, v1 = tf1.tf, tf1.v1
    files = datasets.digit_files("bin", "train")
    with tf.Graph().as_default():
        v1.set_random_seed(0)
        images, labels = pipelines.tf1_training_batches(files, batch_size, 2, 4 * batch_size)
        stage, train, _ = models.staged_mlp(images, labels, hidden_units, device_name())
        with tf1.session() as sess:
            def plain(count: int | None = None) -> None:
                for _ in range(steps if count is None else count):
                    sess.run(stage)
                    sess.run(train)

            plain(5)  # fill the queues, warm up
            start = time.perf_counter()
            plain(10)
            steps = max(steps, math.ceil(min_run_s / ((time.perf_counter() - start) / 10)))

            probes = monitor.tf1_probes(sess)
            # One fresh monitor + live view per run, built before the clock starts: sampling and the live widget
            # updates are measured; building the view and drawing the final figure are not.
            watchers = [monitor.Monitor(probes, rate_hz=rate_hz) for _ in range(repeats + 1)]
            views = [dashboard.LiveDashboard(w, show=False) for w in watchers]

            spent: list[tuple[float, float]] = []  # (wall seconds, sampler seconds) per monitored run

            def monitored() -> None:
                watcher = watchers.pop()
                start = time.perf_counter()
                watcher.start()
                for _ in range(steps):
                    watcher.timed_step(lambda: sess.run(stage), lambda _: sess.run(train), batch_size)
                watcher.stop()
                spent.append((time.perf_counter() - start, watcher.sampling_s))

            times = interleaved({"plain": plain, "monitored": monitored}, repeats=repeats, warmup=1)
    middle = medians(times)
    return {"plain_s": middle["plain"], "monitored_s": middle["monitored"],
            # each run's first step refreshes at once; the limit spaces the others at least 1/5 s apart
            "view_updates_per_s": sum(max(0, v.updates - 1) for v in views) / sum(wall for wall, _ in spent),
            "sampling_share": sum(sampler for _, sampler in spent) / sum(wall for wall, _ in spent),
            "throughput_ratio": middle["plain"] / middle["monitored"], "rate_hz": rate_hz, "steps": steps,
            "shortest_run_s": min(times["monitored"]),  # the timed runs (the warm-up run left out, as in the range)
            "plain_range_s": (min(times["plain"]), max(times["plain"])),
            "monitored_range_s": (min(times["monitored"]), max(times["monitored"]))}

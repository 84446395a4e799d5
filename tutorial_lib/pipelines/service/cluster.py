"""Run a tf.data service on this machine: a dispatcher and workers, each in its own process, reached at 127.0.0.1.

Each server is a separate Python process, as it would be on separate machines: it can be stopped (or killed,
to play a crash) without touching the notebook's kernel, and `Cluster.close()` (or leaving the `with` block)
ends every one of them. The servers have no authentication and listen on every interface (TensorFlow offers no
bind address): use them on a trusted network only.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from tutorial_lib.env import import_tensorflow
from tutorial_lib.pipelines.service.server import HOST

tf = import_tensorflow()

START_TIMEOUT_S = 60.0

class Server:
    """One tf.data service server process: its kind, its address, and the process itself."""

    def __init__(self, kind: str, dispatcher_address: str, timeout_ms: int, port: int = 0):
        self.kind = kind
        # TensorFlow's log goes to a file, not a pipe: a pipe nobody reads fills up and stalls the server.
        self.log = tempfile.TemporaryFile(mode="w+")
        program = [sys.executable, "-m", "tutorial_lib.pipelines.service.server", kind, dispatcher_address,
                   str(timeout_ms), str(port), str(os.getpid())]
        self.process = subprocess.Popen(program, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                        start_new_session=True)
        self.address = ""
        self.listening_at: float | None = None  # the server's own time.monotonic() once it listened

    def wait_ready(self) -> Server:
        """Wait until the server prints its port (it has started listening); return self."""
        if not self.address:
            self.address = f"{HOST}:{self._read_port()}"
        return self

    def _read_port(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if line.startswith("ready "):
                _, port, stamp = line.split()
                self.listening_at = float(stamp)
                return port
            if not line and self.process.poll() is not None:
                break
        self.stop(kill=True)
        self.log.seek(0)
        error = self.log.read()[-2000:]
        raise RuntimeError(f"the tf.data {self.kind} did not start within {START_TIMEOUT_S:g} s:\n{error}")

    def cpu_seconds(self) -> float:
        """Return the CPU time (user + system, all threads) the process has used so far; Linux (/proc) only."""
        with open(f"/proc/{self.process.pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @property
    def alive(self) -> bool:
        """Say whether the process is still running."""
        return self.process.poll() is None

    def stop(self, kill: bool = False) -> None:
        """End the process: SIGTERM (a clean stop), or SIGKILL to play a crash; wait until it is gone."""
        if self.alive:
            os.killpg(self.process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        if self.process.stdout:
            self.process.stdout.close()


_LIVE: list[Cluster] = []


@atexit.register
def _close_all() -> None:
    """Stop every cluster this process started (also at interpreter exit)."""
    for cluster in list(_LIVE):
        cluster.close()


def start_cluster(num_workers: int = 2, worker_timeout_ms: int = 2000) -> Cluster:
    """Stop any cluster this process started before (so a notebook cell can be re-run), then start a new one."""
    _close_all()
    return Cluster(num_workers, worker_timeout_ms)


class Cluster:
    """A dispatcher and `num_workers` workers, reached at 127.0.0.1; a context manager that stops them all on exit.

    `worker_timeout_ms`: how long a worker may go without a heartbeat before the dispatcher drops it (it looks
    only in its maintenance pass, every `job_gc_check_interval_ms`, and a dropped worker's split is not reassigned).
    """

    def __init__(self, num_workers: int = 2, worker_timeout_ms: int = 2000):
        self.worker_timeout_ms = worker_timeout_ms
        _LIVE.append(self)
        self.workers: list[Server] = []
        self.dispatcher = Server("dispatcher", HOST, worker_timeout_ms).wait_ready()
        try:
            starting = [Server("worker", self.dispatcher.address, worker_timeout_ms) for _ in range(num_workers)]
            self.workers += starting  # listed at once, so that close() stops them whatever happens next
            for worker in starting:
                worker.wait_ready()
        except BaseException:
            self.close()
            raise

    @property
    def target(self) -> str:
        """Return the dispatcher's address as `distribute` wants it: grpc://host:port."""
        return f"grpc://{self.dispatcher.address}"

    def add_worker(self) -> Server:
        """Start one more worker; it registers with the dispatcher and gets work from the next job on."""
        worker = Server("worker", self.dispatcher.address, self.worker_timeout_ms)
        self.workers.append(worker)
        return worker.wait_ready()

    def restart_worker(self, index: int) -> Server:
        """Start a new worker at the address of worker `index` (which must have stopped), as after a preemption."""
        old = self.workers[index]
        if old.alive:
            raise RuntimeError(f"worker {index} ({old.address}) is still running; stop it first")
        self.workers[index] = Server("worker", self.dispatcher.address, self.worker_timeout_ms,
                                     port=int(old.address.rsplit(":", 1)[1]))
        return self.workers[index].wait_ready()

    def close(self) -> None:
        """Stop every worker, then the dispatcher."""
        for server in [*self.workers, getattr(self, "dispatcher", None)]:
            if server is not None:
                server.stop()
        if self in _LIVE:
            _LIVE.remove(self)

    @property
    def servers(self) -> list[Server]:
        """Return the dispatcher and the workers."""
        return [self.dispatcher, *self.workers]

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def distributed(dataset: tf.data.Dataset, target: str, processing_mode: Any, job_name: str | None = None,
                max_outstanding_requests: int | None = None) -> tf.data.Dataset:
    """Return `dataset` processed by the tf.data service at `target` (the only thing that names a host)."""
    return dataset.apply(tf.data.experimental.service.distribute(
        processing_mode=processing_mode, service=target, job_name=job_name,
        max_outstanding_requests=max_outstanding_requests))


def throughput(make_dataset: Callable[[], tf.data.Dataset], repeats: int = 3,
               servers: Sequence[Server] = (), skip: int = 0) -> dict[str, Any]:
    """Drain a fresh dataset `repeats` times; return the steady rate, the wait for the first element, and CPU time.

    A new service job first waits for the trainer to learn, at its next heartbeat, which workers serve it: that
    start-up is reported apart, as `first_element_s` (the wait) and `start_cpu_ms` (the CPU time up to the first
    element: building and tracing the dataset, registering it and starting the job, the first element, and
    whatever was made ahead meanwhile). What was made ahead then arrives in a burst; `skip` elements after the
    first are left out of the window as well, so that the burst can fall before it. Over the window (element
    `skip` to the last), `elements_per_s` is the rate and `cpu_ms_per_element` the CPU time this process (the
    trainer) and `servers` used per element (medians over repeats; CPU: Linux only): unlike the rate, other load
    on the machine hardly changes it; `cpu_ms_per_element_repeats` gives each repeat's. `counts` lists how many
    elements each repeat received in all.
    """
    import statistics

    rates, firsts, counts = [], [], []
    cpu: dict[str, list[float]] = {"trainer": [], "servers": [], "start_trainer": [], "start_servers": []}

    def cpu_now() -> tuple[float, float]:
        return time.process_time(), sum(server.cpu_seconds() for server in servers)

    for _ in range(repeats):
        before = at_first = at_window = cpu_now()
        start = time.perf_counter()
        first = window = last = start
        count = 0
        for _ in make_dataset():
            last = time.perf_counter()
            if count == 0:
                first, at_first = last, cpu_now()
            if count == skip:
                window, at_window = last, cpu_now()
            count += 1
        after = cpu_now()
        steady = max(count - 1 - skip, 1)
        cpu["trainer"].append((after[0] - at_window[0]) * 1000 / steady)
        cpu["servers"].append((after[1] - at_window[1]) * 1000 / steady)
        cpu["start_trainer"].append((at_first[0] - before[0]) * 1000)
        cpu["start_servers"].append((at_first[1] - before[1]) * 1000)
        rates.append((count - 1 - skip) / (last - window) if count > skip + 1 and last > window else 0.0)
        firsts.append(first - start)
        counts.append(count)
    median = {key: statistics.median(values) for key, values in cpu.items()}
    return {"elements_per_s": statistics.median(rates), "rates": rates, "counts": counts,
            "first_element_s": statistics.median(firsts),
            "cpu_ms_per_element": {"trainer": median["trainer"], "servers": median["servers"]},
            "cpu_ms_per_element_repeats": {"trainer": cpu["trainer"], "servers": cpu["servers"]},
            "start_cpu_ms": {"trainer": median["start_trainer"], "servers": median["start_servers"]}}


def busy_range(count: int, cost: int = 200) -> tf.data.Dataset:
    """Return range(count) where each element first costs some CPU work (`cost` chained 32x32 matmuls).

    Pure TensorFlow ops, so that a worker in another process (or on another host) can run it. Its options
    keep its map on one thread (a private thread pool of one, no intra-op parallelism).
    """
    def work(index: tf.Tensor) -> tf.Tensor:
        matrix = tf.eye(32) * 0.5 + tf.fill([32, 32], tf.cast(index % 7, tf.float32) * 1e-3)
        product = tf.foldl(lambda acc, _: tf.matmul(acc, matrix), tf.range(cost), initializer=tf.eye(32))
        return index + tf.cast(tf.reduce_sum(product) * 0.0, tf.int64)  # the work must run; the value is the index

    options = tf.data.Options()
    options.threading.private_threadpool_size = 1
    options.threading.max_intra_op_parallelism = 1
    return tf.data.Dataset.range(count).map(work).with_options(options)


def fault_drill(cluster: Cluster, processing_mode: str, count: int, kill_after: int, cost: int = 200,
                restart_after_s: float | None = None, timeout_s: float = 60.0,
                idle_timeout_s: float | None = None) -> dict[str, Any]:
    """Read `count` elements through the service in a client process; kill worker 0 once `kill_after` arrived.

    Every time is in seconds from the drill's start. The client stamps each element (`times`) and its end
    (`finished_s`) with its own `time.monotonic()` when it receives them -- the system-wide monotonic clock on
    Linux, the same in every process -- so the times do not depend on when this process reads them. With
    `restart_after_s`, a thread starts a new worker at the killed one's address that many seconds after the kill
    (a preempted machine coming back; `restart_launched_s`: launched, `restarted_s`: listening, by the new server's
    own clock, so that a delay in this process reading it does not move it) while the client
    keeps reading. The client is stopped, and reported as not finished, after `timeout_s` in all, or once
    nothing has arrived for `idle_timeout_s` after the kill (`idle_s`: how long it had then waited since the
    last element, or since the kill). Returns the values received (`seen`), those received after the kill, and
    those times.
    """
    import queue
    import threading

    program = [sys.executable, "-m", "tutorial_lib.pipelines.service.drill_client", cluster.target, processing_mode,
               str(count), str(kill_after), str(cost)]
    start = time.monotonic()
    client = subprocess.Popen(program, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in client.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    result: dict[str, Any] = {"finished": False, "seen": [], "times": [], "after_kill": [], "killed_at": None,
                              "killed_s": None, "restart_launched_s": None, "restarted_s": None,
                              "finished_s": None, "seconds": None, "idle_s": None}
    failures: list[BaseException] = []

    def restart() -> None:
        time.sleep(restart_after_s)
        result["restart_launched_s"] = time.monotonic() - start  # the new process is started ...
        try:
            result["restarted_s"] = cluster.restart_worker(0).listening_at - start  # ... and listened then
        except BaseException as error:  # re-raised by the drill once the client is stopped
            failures.append(error)

    restarter = threading.Thread(target=restart, daemon=True)
    last_arrival = None  # the client's stamp of the latest element after the kill (or the kill's time)
    try:
        while time.monotonic() - start < timeout_s:
            if last_arrival is not None and idle_timeout_s is not None \
                    and time.monotonic() - start - last_arrival >= idle_timeout_s:
                break
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if line is None:
                break
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            if event["event"] == "done":
                result.update(finished=True, seconds=event["seconds"], finished_s=event["t"] - start)
                break
            result["seen"].append(event["value"])
            result["times"].append(event["t"] - start)
            if last_arrival is not None:
                result["after_kill"].append(event["value"])
                last_arrival = event["t"] - start
            if event["event"] == "kill":
                cluster.workers[0].stop(kill=True)
                result["killed_at"], result["killed_s"] = len(result["seen"]), time.monotonic() - start
                last_arrival = result["killed_s"]
                if restart_after_s is not None:
                    restarter.start()
                client.stdin.write("go\n")
                client.stdin.flush()
    finally:
        if client.poll() is None:
            os.killpg(client.pid, signal.SIGKILL)
        client.wait(timeout=10)
        client.stdin.close()
        if restarter.is_alive():
            restarter.join()
    result["waited_s"] = time.monotonic() - start
    if not result["finished"] and last_arrival is not None:
        result["idle_s"] = result["waited_s"] - last_arrival
    if failures:
        raise failures[0]
    return result

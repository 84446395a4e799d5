"""The tf.data service helpers: real server processes on 127.0.0.1, counted modes, a fault drill, clean shutdown."""

import subprocess
import sys
import time
from collections import Counter

import pytest

from tutorial_lib.pipelines import service
from tutorial_lib.tf1 import tf

SP = tf.data.experimental.service.ShardingPolicy


@pytest.fixture(scope="module")
def cluster():
    with service.Cluster(num_workers=2) as running:
        yield running
    assert not any(server.alive for server in running.servers)


def test_modes_deliver_the_counts_they_promise(cluster):
    assert all(server.alive for server in cluster.servers)
    assert all(server.address.startswith("127.0.0.1:") for server in cluster.servers)
    epochs = Counter(int(x) for x in service.distributed(tf.data.Dataset.range(12), cluster.target, SP.OFF))
    dynamic = Counter(int(x) for x in service.distributed(tf.data.Dataset.range(12), cluster.target, SP.DYNAMIC))
    assert epochs == Counter({v: 2 for v in range(12)})
    assert dynamic == Counter(range(12))


def test_busy_range_yields_its_indices_and_throughput_counts_them(cluster):
    assert [int(x) for x in service.busy_range(5, 10)] == [0, 1, 2, 3, 4]
    rate = service.throughput(lambda: service.distributed(service.busy_range(20, 10), cluster.target, SP.DYNAMIC), 2,
                              servers=cluster.servers)
    assert rate["counts"] == [20, 20] and rate["elements_per_s"] > 0 and rate["first_element_s"] >= 0
    assert rate["cpu_ms_per_element"]["trainer"] > 0 and rate["cpu_ms_per_element"]["servers"] > 0
    each = rate["cpu_ms_per_element_repeats"]  # every repeat's, whose medians are the figures above
    assert len(each["trainer"]) == len(each["servers"]) == 2
    assert rate["cpu_ms_per_element"]["servers"] == pytest.approx(sum(each["servers"]) / 2)
    assert rate["start_cpu_ms"]["trainer"] > 0 and rate["start_cpu_ms"]["servers"] >= 0  # kept apart
    windowed = service.throughput(lambda: tf.data.Dataset.range(10), 2, skip=4)  # counts every element, times 5
    assert windowed["counts"] == [10, 10] and windowed["elements_per_s"] > 0
    assert service.throughput(lambda: tf.data.Dataset.range(3), 1, skip=4)["elements_per_s"] == 0.0  # no window
    short = iter([5, 4])  # a second repeat that receives fewer elements shows in `counts`
    rate = service.throughput(lambda: tf.data.Dataset.range(next(short)), 2)
    assert rate["counts"] == [5, 4] and rate["cpu_ms_per_element"]["servers"] == 0


def test_a_killed_worker_comes_back_and_dynamic_sharding_repeats_nothing(cluster):
    drill = service.fault_drill(cluster, "dynamic", count=100, kill_after=20, cost=200, restart_after_s=1,
                                timeout_s=60)
    seen = Counter(drill["seen"])
    assert drill["finished"] and drill["killed_at"] == 20
    assert drill["killed_s"] + 1 <= drill["restart_launched_s"] < drill["restarted_s"] < drill["finished_s"]
    times = drill["times"]  # the client's own stamps: in order, before its end, and before the drill returned
    assert times == sorted(times) and 0 < times[0] and times[-1] <= drill["finished_s"] <= drill["waited_s"]
    assert drill["idle_s"] is None
    assert max(seen.values()) == 1 and set(seen) <= set(range(100))
    assert all(server.alive for server in cluster.servers)
    with pytest.raises(RuntimeError, match="still running"):
        cluster.restart_worker(0)


def test_a_drill_without_restart_stops_after_the_idle_timeout(cluster):
    try:
        drill = service.fault_drill(cluster, "dynamic", count=60, kill_after=10, cost=200, timeout_s=90,
                                    idle_timeout_s=3)
    finally:
        cluster.restart_worker(0)  # leave the module's cluster whole
    assert drill["killed_at"] == 10 and drill["restarted_s"] is None
    assert max(Counter(drill["seen"]).values()) == 1
    if drill["finished"]:
        assert drill["idle_s"] is None and drill["times"][-1] <= drill["finished_s"]
    else:  # stopped for waiting, not for the overall limit: idle since the last element (or the kill)
        last = max([drill["killed_s"], *drill["times"]])
        assert drill["idle_s"] >= 3 and abs(drill["waited_s"] - last - drill["idle_s"]) < 1e-6
        assert drill["waited_s"] < 90


def test_start_cluster_stops_the_one_before():
    first = service.start_cluster(num_workers=1)
    second = service.start_cluster(num_workers=1)
    try:
        assert not any(server.alive for server in first.servers)
        assert all(server.alive for server in second.servers)
    finally:
        second.close()
    assert not any(server.alive for server in second.servers)


def test_servers_end_when_the_process_that_started_them_dies():
    script = ("import os\nfrom tutorial_lib.pipelines import service\nc = service.Cluster(num_workers=1)\n"
              "print(*[s.process.pid for s in c.servers], flush=True)\nos._exit(0)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    pids = [int(p) for p in done.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(pid) for pid in pids):
        time.sleep(0.2)
    assert not any(_running(pid) for pid in pids)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False

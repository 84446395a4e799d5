"""The dashboard's GPU panel without a GPU: a fake NVML drives the real code path; no GPU says so and nothing fails."""

from __future__ import annotations

import queue
import threading
import time
from types import SimpleNamespace

import pytest

from tutorial_lib import monitor
from tutorial_lib.monitor import dashboard, gpu


class FakeNvml:
    """Just enough of pynvml: one GPU whose utilisation and memory follow the values the test sets."""

    def __init__(self, fail_init: bool = False):
        self.fail_init, self.utilization, self.used = fail_init, 37, 1234 * 2**20
        self.initialised, self.bus_ids = 0, []

    def nvmlInit(self):
        if self.fail_init:
            raise RuntimeError("NVML Shared Library Not Found")
        self.initialised += 1

    def nvmlShutdown(self):
        self.initialised -= 1

    def nvmlDeviceGetHandleByPciBusId(self, bus_id):
        self.bus_ids.append(bus_id)
        return "handle"

    def nvmlDeviceGetHandleByIndex(self, index):
        return "handle"

    def nvmlDeviceGetName(self, handle):
        return b"NVIDIA H100 80GB HBM3"

    def nvmlDeviceGetUtilizationRates(self, handle):
        return SimpleNamespace(gpu=self.utilization, memory=10)

    def nvmlDeviceGetMemoryInfo(self, handle):
        return SimpleNamespace(used=self.used, total=81559 * 2**20, free=0)


def test_without_a_gpu_the_panel_says_so_and_nothing_fails():
    q = queue.Queue(maxsize=4)
    m = monitor.Monitor([monitor.python_probe("q", q)], rate_hz=50)
    if m.gpu is not None:
        pytest.skip("this machine has a GPU: the fake-NVML tests below cover the panel")
    with dashboard.LiveDashboard(m, show=False) as live:
        for _ in range(8):
            m.record_step(0.001, 0.01, 1)
            time.sleep(0.01)
    assert "no GPU" in live.gpu.value and "TensorFlow sees none" in live.gpu.value
    assert m.gpu_history() == ([], [], [])
    assert live.figure is not None and len(live.figure.axes) == 2


def test_detect_opens_the_gpu_tensorflow_uses_by_its_bus_id():
    nvml = FakeNvml()
    probe, description = gpu.detect(nvml=nvml, sees_gpu=True, bus_id="0000:00:04.0")
    assert probe is not None and description == "NVIDIA H100 80GB HBM3 (NVML)"
    assert nvml.bus_ids == [b"0000:00:04.0"] and nvml.initialised == 1
    reading = probe.read()
    assert reading == gpu.GpuReading(0.37, 1234.0, 81559.0)
    probe.close()
    assert nvml.initialised == 0


def test_detect_explains_each_missing_piece():
    assert gpu.detect(sees_gpu=False)[0] is None
    probe, why = gpu.detect(nvml=FakeNvml(fail_init=True), sees_gpu=True)
    assert probe is None and "NVML did not start" in why and "driver" in why


def test_the_panel_shows_utilisation_memory_and_the_wait_on_a_fake_gpu():
    nvml = FakeNvml()
    nvml.utilization = 20
    probe, _ = gpu.detect(nvml=nvml, sees_gpu=True, bus_id=None)
    q = queue.Queue(maxsize=4)
    m = monitor.Monitor([monitor.python_probe("q", q)], rate_hz=100, warmup_steps=0, gpu=probe)
    with dashboard.LiveDashboard(m, show=False, max_updates_per_s=1000) as live:
        for step in range(10):
            nvml.utilization = 20 + step  # the sampler thread reads these
            time.sleep(0.03)
            m.record_step(0.003, 0.001, 1)  # 75% waiting
    panel = live.gpu.value
    assert "NVIDIA H100 80GB HBM3" in panel and "memory 1,234 / 81,559 MiB" in panel
    assert "the GPU waits for input 75% of step time" in panel
    times, utilization, memory = m.gpu_history()
    assert len(times) >= 5 and set(memory) == {1234.0}
    assert min(utilization) >= 0.20 and max(utilization) <= 0.29
    assert len(live.figure.axes) == 3 and "waits for input 75%" in live.figure.axes[2].get_title()
    assert not any(t.name == "queue-monitor" for t in threading.enumerate())
    probe.close()


def test_describe_says_what_the_panel_will_show_here():
    from tutorial_lib.env import import_tensorflow

    if import_tensorflow().config.list_physical_devices("GPU"):
        pytest.skip("this machine has a GPU")
    assert gpu.describe() == "no GPU: TensorFlow sees none on this machine, so the model trains on the CPU"

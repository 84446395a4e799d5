"""The dashboard's GPU panel (notebook 05): utilisation and memory in use, read through NVML (`nvidia-ml-py`).

`detect()` returns a `GpuProbe` for the GPU TensorFlow calls `/GPU:0` when TensorFlow sees one and NVML answers,
or `None` and the reason (no GPU, no NVIDIA driver, ...): the panel then says so and nothing fails. The Monitor's
sampler thread reads the probe with the queues. NVML's utilisation is the share of its last sample period
(1/6 s to 1 s, depending on the GPU) during which a kernel ran; the dashboard's "the GPU waits for input X% of
step time" is the training loop's own wait share (of its steps' waiting plus computing), since no step runs on the
GPU while the loop waits for a batch; it is a lower bound on the GPU's idle share, which also holds the time between
steps.
Tests pass a fake NVML module (`nvml=`) to run this code on a machine without a GPU.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

_PCI_BUS_ID = re.compile(r"pci bus id: ([0-9a-fA-F:.]+)")


@dataclass(frozen=True)
class GpuReading:
    """One NVML reading: utilisation in [0, 1], memory in use and in total (MiB)."""

    utilization: float
    memory_used_mib: float
    memory_total_mib: float


class GpuProbe:
    """Reads one GPU's utilisation and memory through an initialised NVML module (pynvml, or a fake in tests)."""

    def __init__(self, nvml: Any, handle: Any):
        self.nvml, self.handle = nvml, handle
        name = nvml.nvmlDeviceGetName(handle)
        self.name = name.decode() if isinstance(name, bytes) else str(name)

    def read(self) -> GpuReading:
        """Return the current reading."""
        rates = self.nvml.nvmlDeviceGetUtilizationRates(self.handle)
        memory = self.nvml.nvmlDeviceGetMemoryInfo(self.handle)
        return GpuReading(rates.gpu / 100.0, memory.used / 2**20, memory.total / 2**20)

    def close(self) -> None:
        """Shut NVML down (each probe initialised it once)."""
        self.nvml.nvmlShutdown()


@functools.cache  # every Monitor asks; the devices TensorFlow sees do not change within a process
def _tensorflow_gpu_bus_id() -> tuple[bool, str | None]:
    """Return (TensorFlow sees a GPU, the PCI bus id of its /GPU:0 if it reports one)."""
    from tutorial_lib.env import import_tensorflow

    tf = import_tensorflow()
    if not tf.config.list_physical_devices("GPU"):
        return False, None
    from tensorflow.python.client import device_lib

    for device in device_lib.list_local_devices():
        if device.device_type == "GPU":
            found = _PCI_BUS_ID.search(device.physical_device_desc or "")
            return True, found.group(1) if found else None
    return True, None


def detect(nvml: Any = None, sees_gpu: bool | None = None, bus_id: str | None = None) -> tuple[GpuProbe | None, str]:
    """Return (probe, description) for TensorFlow's /GPU:0, or (None, why there is no GPU panel)."""
    if sees_gpu is None:
        sees_gpu, bus_id = _tensorflow_gpu_bus_id()
    if not sees_gpu:
        return None, "no GPU: TensorFlow sees none on this machine, so the model trains on the CPU"
    if nvml is None:
        try:
            import pynvml as nvml
        except ImportError:
            return None, "GPU present, but nvidia-ml-py is not installed: pip install nvidia-ml-py"
    try:
        nvml.nvmlInit()
    except Exception as error:  # NVMLError_LibraryNotFound, NVMLError_DriverNotLoaded, ...
        return None, f"GPU present, but NVML did not start ({error}): is the NVIDIA driver loaded?"
    try:
        if bus_id:
            handle = nvml.nvmlDeviceGetHandleByPciBusId(bus_id.encode() if isinstance(bus_id, str) else bus_id)
        else:
            handle = nvml.nvmlDeviceGetHandleByIndex(0)
        probe = GpuProbe(nvml, handle)
    except Exception as error:
        nvml.nvmlShutdown()
        return None, f"GPU present, but NVML could not read it ({error})"
    return probe, f"{probe.name} (NVML)"


def describe() -> str:
    """Return what the GPU panel will say about this machine's GPU (NVML opened and closed again)."""
    probe, description = detect()
    if probe is not None:
        probe.close()
    return description

"""Set a notebook up (quiet TensorFlow import, version check, seed) and describe the machine (every notebook)."""

from __future__ import annotations

import contextlib
import logging
import os
import platform
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

MIN_TENSORFLOW = (2, 18)  # the oldest TensorFlow the course is checked on (pyproject.toml says the same)

# Set before TensorFlow is first imported, these silence the C++ INFO and WARNING lines of its start-up;
# ERROR lines still print.
_QUIET_ENV = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}

# Lines TensorFlow's C++ side prints at start-up whatever the log level, that say nothing is wrong.
_BENIGN = [
    re.compile(r"^WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR$"),
    re.compile(r"cudart_stub\.cc:\d+\] Could not find cuda drivers on your machine, GPU will not be used"),
    re.compile(r"Unable to register cu(DNN|FFT|BLAS) factory"),
    # TensorFlow 2.18 logs this (through absl, whatever TF_CPP_MIN_LOG_LEVEL says) at the first graph it optimizes.
    re.compile(r"mlir_graph_optimization_pass\.cc:\d+\] MLIR V1 optimization pass is not enabled$"),
]
# Failing to start CUDA is only benign when the machine has no NVIDIA device at all.
_NO_GPU_BENIGN = [re.compile(r"cuda_(platform|driver)\.cc:\d+\] failed call to cuInit")]  # 2.19+, 2.18


def _benign(line: str) -> bool:
    patterns = _BENIGN + ([] if Path("/dev/nvidiactl").exists() else _NO_GPU_BENIGN)
    return not line.strip() or any(p.search(line) for p in patterns)


@contextlib.contextmanager
def _filtered_native_stderr() -> Iterator[None]:
    """Capture what C++ code writes to file descriptor 2, then pass on every line that is not benign."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = [line for line in captured.read().decode(errors="replace").splitlines() if not _benign(line)]
            if kept:
                print("\n".join(kept), file=sys.stderr)


def import_tensorflow(quiet: bool = True) -> ModuleType:
    """Import TensorFlow without the C++ banner or deprecation spam; real errors still show."""
    if not quiet or "tensorflow" in sys.modules:
        import tensorflow as tf

        return tf
    for key, value in _QUIET_ENV.items():
        os.environ.setdefault(key, value)
    with _filtered_native_stderr():
        import tensorflow as tf

        tf.config.list_physical_devices()  # initialises the device platforms, which print at that moment
        _first_graph(tf)  # what TensorFlow prints once, at the first graph it runs, is printed here
    # Deprecation notices of tf.compat.v1 are logged at WARNING; errors are logged at ERROR.
    tf.get_logger().setLevel(logging.ERROR)
    return tf


def _first_graph(tf: ModuleType) -> None:
    """Run one tiny TF1 graph in a session: TensorFlow logs some lines once per process at the first graph it
    optimizes (2.18: the MLIR pass line), which the import's filter then holds back."""
    graph = tf.Graph()
    with graph.as_default():
        one = tf.constant(1)
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(one)


def setup(seed: int = 0) -> ModuleType:
    """Import TensorFlow quietly, check it is new enough for the course, seed its random ops; return it."""
    tf = import_tensorflow()
    found = tuple(int(part) for part in tf.__version__.split(".")[:2])
    if found < MIN_TENSORFLOW:
        needed = ".".join(map(str, MIN_TENSORFLOW))
        raise RuntimeError(f"the course needs TensorFlow {needed} or newer, found {tf.__version__}: "
                           "run `make lab` from the course folder, which installs the right version into .venv")
    tf.random.set_seed(seed)
    return tf


def device_name() -> str:
    """Return '/GPU:0' when TensorFlow sees a GPU, else '/CPU:0'."""
    tf = import_tensorflow()
    return "/GPU:0" if tf.config.list_physical_devices("GPU") else "/CPU:0"


def describe() -> dict[str, str]:
    """Return the versions and devices that matter for the course."""
    tf = import_tensorflow()
    import ipykernel
    import ipywidgets
    import matplotlib
    import numpy as np

    gpus = tf.config.list_physical_devices("GPU")
    return {
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "matplotlib": matplotlib.__version__,
        "ipywidgets": ipywidgets.__version__,
        "ipykernel": ipykernel.__version__,
        "cpu cores": str(os.cpu_count()),
        "gpus": ", ".join(g.name for g in gpus) if gpus else "none (the course runs on the CPU)",
        "device used": device_name(),
    }


def front_end() -> str:
    """Say where the notebook runs and which accelerator TensorFlow sees; in Colab, turn on its widget manager.

    Colab renders third-party widgets (the course's dashboards) only with its custom widget manager on
    (`google.colab.output.enable_custom_widget_manager`). Every notebook's generated install cell calls this.
    """
    from tutorial_lib import __version__, locations

    try:
        from google.colab import output as colab_output
    except ImportError:
        colab_output = None
    if colab_output is not None:
        colab_output.enable_custom_widget_manager()
        where = "Google Colab (its custom widget manager is now on)"
    elif os.environ.get("KAGGLE_KERNEL_RUN_TYPE"):
        where = "Kaggle"
    elif os.environ.get("VSCODE_PID"):
        where = "VS Code"
    else:
        where = "Jupyter"
    tf = import_tensorflow()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        names = [tf.config.experimental.get_device_details(g).get("device_name", g.name) for g in gpus]
        accelerator = f"{len(gpus)} GPU ({', '.join(names)}): the training runs use /GPU:0"
    elif Path("/dev/nvidiactl").exists():
        accelerator = ("an NVIDIA device is present but TensorFlow cannot use it: install "
                       "\"data-into-tensorflow[gpu]\" (tensorflow[and-cuda]); until then the course runs on the CPU")
    else:
        accelerator = "none, the course runs on the CPU"
    source = "installed package" if locations.is_installed() else "checkout"
    return f"front end: {where}; accelerator: {accelerator}; course {__version__} from the {source}"


def error_summary(error) -> str:
    """Return the informative sentence of a TensorFlow error, without node and device decorations."""
    lines = [line.strip() for line in error.message.splitlines() if line.strip()]
    text = next((line for line in lines if not line.startswith(("Graph execution error", "Detected at node",
                                                                  "File ", "Node:", "[["))), lines[-1])
    text = text.split("}}")[-1].split(" [Op:")[0].strip()
    return text.split("transformation with iterator: ")[-1].split(": ", 1)[-1] if "transformation" in text \
        else text

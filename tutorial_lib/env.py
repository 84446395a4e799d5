"""Import TensorFlow quietly and describe the machine the course runs on."""

from __future__ import annotations

import logging
import os
import platform
from types import ModuleType

# Only these two, set before TensorFlow is first imported, silence the C++ start-up banner
# (INFO and WARNING lines); ERROR lines still reach the notebook.
_QUIET_ENV = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}


def import_tensorflow(quiet: bool = True) -> ModuleType:
    """Import TensorFlow without the C++ banner or deprecation spam; real errors still show."""
    if quiet:
        for key, value in _QUIET_ENV.items():
            os.environ.setdefault(key, value)
    import tensorflow as tf

    if quiet:
        # Deprecation notices of tf.compat.v1 are logged at WARNING; errors are logged at ERROR.
        tf.get_logger().setLevel(logging.ERROR)
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

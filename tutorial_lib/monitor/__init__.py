"""Watch an input pipeline while a model trains (notebooks 05 and 06; also `make bench-monitor`).

* `sampler` -- `Monitor`: queue fill levels sampled from a background thread, and each step's time split into
  waiting for input and computing; probes for TF1 queues, eager `tf.queue`s and Python queues; its public
  names are also available here as `monitor.<name>`;
* `dashboard` -- the live ipywidgets view of a Monitor and the static picture it leaves behind;
* `calibration` -- notebook 05's knobs chosen from costs measured on this machine;
* `keras_fit` -- `watch_fit`: the same dashboard for Keras `model.fit(dataset)`, wait vs compute per batch;
* `gpu` -- the GPU panel: utilisation and memory through NVML when TensorFlow sees a GPU;
* `profiler` -- TensorFlow's profiler and its input-pipeline analyzer, as a second opinion (notebook 06).
"""

from tutorial_lib.monitor.sampler import (  # noqa: F401
    INPUT_BOUND,
    MODERATELY_INPUT_BOUND,
    InputBuffer,
    Monitor,
    Probe,
    Snapshot,
    eager_probe,
    python_probe,
    tf1_probes,
    verdict,
)

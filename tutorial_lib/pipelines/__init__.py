"""Input pipelines the course has taught, as tested library versions later notebooks call.

* `digits` -- the digit readers and training batches in pairs, TF1 queue form and tf.data form (taught in
  02-04; used by 05 and 10); its public names are also available here as `pipelines.<name>`;
* `processes` -- run scripts as separate processes side by side and always stop them (notebook 07b's trainer
  and evaluator);
* `ptb` -- the PTB producer: token stream to [batch_size, num_steps] windows (notebook 09);
* `service` -- a tf.data service on this machine: cluster, servers, fault drills (notebook 11).
"""

from tutorial_lib.pipelines.digits import (  # noqa: F401
    augment,
    csv_record_defaults,
    dataset_read_digits,
    dataset_training_batches,
    decode_csv_line,
    decode_fixed_record,
    flat_image,
    scale,
    slow_map,
    tf1_read_digits,
    tf1_training_batches,
)

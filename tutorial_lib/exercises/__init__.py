"""Checkers for the notebooks' exercises (every notebook): `exercises.check_<name>(answer)` and `exercises.TODO`.

Every checker prints friendly feedback that never reveals the solution and returns a Verdict. One module per
notebook, in course order; every public name is also available here as `exercises.<name>`:

* `core` -- what every checker shares: `TODO`, `Mismatch`, `Verdict`, `run_check`, `expect_equal`, `require`
  (a failed verdict raises: nbgrader's test cells), `requirements` (what a right answer must do, on each checker);
* `mutation` -- the checkers' mutation report: right answers and mutants from tests/exercise_cases_*.py;
* `start_here` -- notebook 00: count a digit, ids back to words, atoms of an element;
* `feeding` -- notebook 01: bytes per feed, feed a tensor other than a placeholder, batches to feed;
* `reading_files` -- notebook 02: record_defaults, decode a CIFAR-10 record, a tf.data CSV reader;
* `queues_and_threads` -- notebook 03a: the threads started, runners started and stopped, one clean epoch;
* `batching_and_shuffling` -- notebook 03b: the capacity rule, how far a shuffle moves values, an epoch from
  several readers;
* `preloaded_data` -- notebook 04: preload into a variable, graph size of a constant, clean epochs, serve arrays
  through an initializable iterator;
* `live_dashboard` -- notebook 05: the verdict, threads needed, make it compute-bound;
* `profiler_check` -- notebook 06: profile a loop by hand, a pipeline fast enough for both the dashboard and
  the profiler, which instrument to trust for a TF1 queue;
* `validate_in_one_session` -- notebook 07a: batches in a pass, a repeatable validation pass, the same pass;
* `validate_in_another_process` -- notebook 07b: accuracy over a pass, the checkpoints a manager keeps, evaluate
  every checkpoint;
* `one_batch_many_evaluations` -- notebook 08: the Armijo condition, one dequeue for many evaluations, a line
  search with session handles;
* `ptb_producer` -- notebook 09: epoch_size, a window by hand, carry the LSTM's state;
* `queues_to_tf_data` -- notebook 10: translate a queue pipeline, the ideal time, a feedable iterator without one;
* `scaling_out` -- notebook 11: how many elements arrive, each element once, workers needed.
"""

from tutorial_lib.exercises.batching_and_shuffling import (  # noqa: F401
    check_capacity,
    check_join_epoch,
    check_mean_displacement,
)
from tutorial_lib.exercises.core import TODO, Verdict, require, run_check  # noqa: F401
from tutorial_lib.exercises.feeding import check_feed_batches, check_feed_bytes, check_logits_feed  # noqa: F401
from tutorial_lib.exercises.live_dashboard import (  # noqa: F401
    check_classify,
    check_compute_bound_knobs,
    check_keep_up,
)
from tutorial_lib.exercises.one_batch_many_evaluations import (  # noqa: F401
    check_armijo,
    check_cache,
    check_handle_line_search,
)
from tutorial_lib.exercises.preloaded_data import (  # noqa: F401
    check_epoch_dataset,
    check_graph_megabytes,
    check_preload,
    check_serve_arrays,
)
from tutorial_lib.exercises.profiler_check import (  # noqa: F401
    check_fast_dataset,
    check_profile_loop,
    check_tf1_queue_advice,
)
from tutorial_lib.exercises.ptb_producer import check_carried_state, check_epoch_size, check_window  # noqa: F401
from tutorial_lib.exercises.queues_and_threads import (  # noqa: F401
    check_one_epoch_keys,
    check_run_with_runners,
    check_threads_started,
)
from tutorial_lib.exercises.queues_to_tf_data import (  # noqa: F401
    check_alternate,
    check_ideal_seconds,
    check_translation,
)
from tutorial_lib.exercises.reading_files import (  # noqa: F401
    check_csv_dataset,
    check_decode_cifar,
    check_record_defaults,
)
from tutorial_lib.exercises.scaling_out import (  # noqa: F401
    check_each_once,
    check_expected_count,
    check_shared_job,
)
from tutorial_lib.exercises.start_here import check_atom_count, check_count_label, check_invert  # noqa: F401
from tutorial_lib.exercises.validate_in_another_process import (  # noqa: F401
    check_accuracy_over,
    check_evaluate_checkpoints,
    check_kept_checkpoints,
)
from tutorial_lib.exercises.validate_in_one_session import (  # noqa: F401
    check_batches_in_pass,
    check_same_pass,
    check_validation_pass,
)

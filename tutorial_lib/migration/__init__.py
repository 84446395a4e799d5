"""The migration tool: from the TF1 input pipelines people wrote to tf.data, for a user's own code.

* `api_map` -- the migration map: each TF1 input API the course used, its tf.data / eager form, and the notebook
  section where a cell asserts the pair;
* `table` -- the scanner's table: each TF1 call's tf.data form with the call's own arguments, and its pitfalls;
* `scanner` -- find the TF1 input calls in Python files and notebooks without running them, and connect them into
  pipelines;
* `report` -- what the scanner found as text, JSON or Markdown (`python -m tutorial_lib migrate PATH...`).
"""

"""Trusted grading: each submission's kernel sealed by the operating system, and the score decided in a process the
student's code never ran in (see docs/instructors/grading.md, "Grades a student cannot forge").

* `seal` -- the sandbox a submission's kernel runs in (bubblewrap: its own uid and namespaces, limits);
* `codec` -- plain data across the process boundary (JSON in, fresh Python and NumPy values out);
* `tfdata` -- TensorFlow values as data: a dataset crosses as the elements it yielded, rebuilt by the grader;
* `sandbox` -- the grading kernel's side: replies to the grader's requests;
* `remote` -- the grader's side: checkers call answers that run in the kernel;
* `worker` -- one submission: run it in a fresh kernel, grade each exercise, write its results;
* `classroom` -- every submission of an assignment, in parallel, each within a time and memory limit, into
  nbgrader's gradebook (`python -m tutorial_lib grade`).
"""

"""The red-team suite's submissions: tampering a student could find online or think of, one attempt per submission
(tests/test_grading.py grades them in a real nbgrader round trip; `python -m tutorial_lib bench grading` times a
class that includes them; notebooks/INSTRUCTORS.md keeps the table).

Each attempt: (student id, assignment, {answer grade_id: answer source}, the exercises it tampers with, what it
tries). The other answer cells of that submission hold the reference answers, so they must score as usual.
"""

from __future__ import annotations

WRONG_COUNT = "def count_label(labels, digit):\n    return 0\n"
WRONG_INVERT = "def invert(vocab):\n    return dict(vocab)\n"

# (student, assignment, answers, tampered test cells, attempt)
ATTEMPTS: list[tuple[str, str, dict[str, str], list[str], str]] = [
    ("rt-require", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "exercises.require = lambda verdict: None\n"},
     ["ex1_count_label_test"], "replace exercises.require, which the locked test cell calls"),
    ("rt-checker", "00_start_here",
     {"ex1_count_label": WRONG_COUNT
      + "exercises.check_count_label = lambda answer: exercises.Verdict(True, 'passed')\n"},
     ["ex1_count_label_test"], "replace the checker itself with one that always passes"),
    ("rt-verdict", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "exercises.core.Verdict.__bool__ = lambda self: True\n"},
     ["ex1_count_label_test"], "make every verdict true (Verdict.__bool__)"),
    ("rt-numpy", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "np.array_equal = lambda *args, **kwargs: True\nnp.sum = lambda *a, **k: 0\n"},
     ["ex1_count_label_test"], "replace NumPy functions the checkers use"),
    ("rt-builtins", "00_start_here",
     {"ex1_count_label": "import builtins\nbuiltins.isinstance = lambda *args: True\n" + WRONG_COUNT},
     ["ex1_count_label_test"], "replace a builtin (isinstance)"),
    ("rt-traceback", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "get_ipython().showtraceback = lambda *args, **kwargs: None\n"},
     ["ex1_count_label_test"], "hide the test cell's error (IPython's traceback display, nbgrader#1324)"),
    ("rt-lying-eq", "00_start_here",
     {"ex1_count_label": "class AlwaysEqual:\n    def __eq__(self, other):\n        return True\n"
                         "    def __ne__(self, other):\n        return False\n\n"
                         "def count_label(labels, digit):\n    return AlwaysEqual()\n"},
     ["ex1_count_label_test"], "return an object whose == is always true"),
    ("rt-lying-len", "00_start_here",
     {"ex2_invert": "class Liar(dict):\n    def __len__(self):\n        return 10**6\n"
                    "    def __eq__(self, other):\n        return True\n    def __iter__(self):\n"
                    "        return iter(range(10**6))\n\ndef invert(vocab):\n    return Liar()\n"},
     ["ex2_invert_test"], "return a dict whose len, iteration and == lie"),
    ("rt-lying-dtype", "00_start_here",
     {"ex1_count_label": "Whole = type('Whole', (int,), {'__eq__': lambda self, other: True, '__hash__': int.__hash__})"
                         "\n\ndef count_label(labels, digit):\n    return Whole(0)\n"},
     ["ex1_count_label_test"], "an int subclass with a lying == (a whole number that equals anything), via type()"),
    ("rt-reference", "00_start_here",
     {"ex1_count_label": "from tutorial_lib.exercises import start_here\n\ndef count_label(labels, digit):\n"
                         "    return start_here.check_count_label.__wrapped__(labels, digit)\n"},
     ["ex1_count_label_test"], "reach into the installed checkers for the expected values"),
    ("rt-library-file", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "import tutorial_lib\n"
      "tf.io.write_file(tutorial_lib.__file__.replace('__init__.py', 'exercises/start_here.py'), "
      "'def check_count_label(a):\\n    return True\\n')\n"},
     ["ex1_count_label_test"], "overwrite the library's checker file (for the next student too)"),
    ("rt-gradebook", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "tf.io.write_file('../../gradebook.db', 'forged')\n"
      "for path in tf.io.gfile.glob('/*/*/gradebook.db') + tf.io.gfile.glob('/*/*/*/gradebook.db'):\n"
      "    tf.io.write_file(path, 'forged')\n"},
     ["ex1_count_label_test"], "find and overwrite the gradebook"),
    ("rt-exit", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "import os\nos._exit(0)\n"},
     ["ex1_count_label_test"], "exit the kernel before the test cell runs"),
    ("rt-loop", "00_start_here",
     {"ex1_count_label": "def count_label(labels, digit):\n    while True:\n        pass\n"},
     ["ex1_count_label_test"], "an infinite loop"),
    ("rt-memory", "00_start_here",
     {"ex2_invert": "def invert(vocab):\n    hog = np.ones((1 << 40,), np.float64)\n    return {}\n"},
     ["ex2_invert_test"], "a memory bomb (8 TiB at once)"),
    ("rt-sleep", "00_start_here",
     {"ex3_atom_count": "import time\n\ndef atom_count(molecule, symbol):\n    time.sleep(25)\n    return 0\n"},
     ["ex3_atom_count_test"], "sleep past the time limit (each call under the cell timeout)"),
    ("rt-runner", "03a_queues_and_threads",
     {"ex2_run_with_runners": "def run_with_runners(sess, fetch, steps):\n    return []\n\n"
                              "exercises = None\nexercises.require = print\n"},
     ["ex2_run_with_runners_test"], "rebind the notebook's `exercises` so the test cell calls something else"),
    ("rt-swallow", "03a_queues_and_threads",
     {"ex2_run_with_runners": "def run_with_runners(sess, fetch, steps):\n    coord = v1.train.Coordinator()\n"
                              "    threads = v1.train.start_queue_runners(sess, coord)\n    results = []\n"
                              "    with coord.stop_on_exception():\n        for _ in range(steps):\n"
                              "            results.append(sess.run(fetch))\n    coord.request_stop()\n"
                              "    coord.join(threads)\n    return results\n"},
     ["ex2_run_with_runners_test"], "the plausible wrong answer: coord.stop_on_exception() swallows OutOfRangeError"),
]

# Forged in the notebook file rather than in an answer cell: test cells emptied and given outputs that say
# "passed", their points raised, their nbgrader metadata turned off, an extra graded cell added.
FORGED_STUDENT = "rt-forged-notebook"

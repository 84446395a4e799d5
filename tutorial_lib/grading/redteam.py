"""The red-team suite's submissions: tampering a student could find online or think of, one attempt per submission
(tests/test_grading.py grades them in a real nbgrader round trip; `python -m tutorial_lib bench grading` times a
class that includes the harmless ones; docs/instructors/grading.md keeps the table).

Each attempt: (student id, assignment, {answer grade_id: answer source}, the exercises it loses, what it tries).
The other answer cells of that submission hold the reference answers, so they must score as usual; an attempt that
kills or floods its own kernel loses the exercises after it too (its own points only). In an answer, @COURSE@ stands
for the course directory's absolute path and @PORT@ for a TCP port on the grader's loopback that the test listens on
(a student on a hub can learn both), so an attempt aims at the real files and the real network.

`FORGES_OWN` are the attempts that do change their own score: the exercises still judged by their own kernel's word
(`remote.REMOTE` lacks them), where a student's code can forge the verdict, its own points only.
"""

from __future__ import annotations

import json

WRONG_COUNT = "def count_label(labels, digit):\n    return 0\n"
WRONG_INVERT = "def invert(vocab):\n    return dict(vocab)\n"
WRONG_ATOMS = "def atom_count(molecule, symbol):\n    return 0\n"
ALL_00 = ["ex1_count_label_test", "ex2_invert_test", "ex3_atom_count_test"]
# A score row as the old grader's worker read them from its results pipe.
ROW = "".join(json.dumps({"grade_id": grade_id, "points": 1.0, "score": 1.0, "feedback": "ok", "how": "remote"})
              + "\n" for grade_id in ("ex1_count_label_test", "ex2_invert_test", "ex3_atom_count_test"))
FORGED_REPLY = '{"result": "{\\"I\\": \\"1\\"}"}'
# Write score rows into every pipe of every process the kernel can see (the old grader's results pipe was one).
PIPE_WRITER = """
import os
def write_rows():
    seen = []
    for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
        try:
            seen.append(open(f'/proc/{pid}/cmdline').read().replace(chr(0), ' ')[:80])
            fds = os.listdir(f'/proc/{pid}/fd')
        except OSError:
            continue
        for fd in fds:
            try:
                if int(fd) > 2 and os.readlink(f'/proc/{pid}/fd/{fd}').startswith('pipe:'):
                    with open(f'/proc/{pid}/fd/{fd}', 'w') as pipe:
                        pipe.write(ROW * 10)
            except (OSError, ValueError):
                pass
    return seen
""" + f"ROW = {ROW!r}\n"
# An answer that uses the reference solution when it can read it (so it passes only if the seal leaks).
USE_IF_READABLE = """
import json
def _solution(text):
    for cell in json.loads(text)["cells"]:
        source = "".join(cell["source"])
        if "def count_label" in source and "NotImplementedError" not in source and "TODO" not in source:
            return source
source = None
for path in READ_FROM:
    try:
        source = _solution(READ(path))
    except Exception as error:
        print("could not read", path, type(error).__name__)
    if source:
        break
if source:
    exec(source)
"""

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
     ALL_00, "replace a builtin (isinstance): its own kernel stops answering, and its later exercises are lost"),
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
     ALL_00, "exit the kernel before the test cell runs (its own later exercises are lost)"),
    ("rt-loop", "00_start_here",
     {"ex1_count_label": "def count_label(labels, digit):\n    while True:\n        pass\n"},
     ["ex1_count_label_test"], "an infinite loop"),
    ("rt-memory", "00_start_here",
     {"ex2_invert": "def invert(vocab):\n    hog = np.ones((1 << 40,), np.float64)\n    return {}\n"},
     ["ex2_invert_test"], "a memory bomb (8 TiB at once)"),
    ("rt-sleep", "00_start_here",
     {"ex3_atom_count": "import time\n\ndef atom_count(molecule, symbol):\n    time.sleep(15)\n    return 0\n"},
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

# What a kernel can do at the operating system's level (the seal must stop each one).
ATTEMPTS += [
    ("rt-proc-fds", "00_start_here",
     {"ex3_atom_count": WRONG_ATOMS + PIPE_WRITER + "print('processes seen:', write_rows())\n"},
     ["ex3_atom_count_test"], "find the grader's results pipe under /proc/<pid>/fd and write full-score rows into it"),
    ("rt-looper", "00_start_here",
     {"ex3_atom_count": WRONG_ATOMS + PIPE_WRITER + "import secrets\n\ndef _forge():\n"
      "    print('@@grader-' + secrets.token_hex(16) + '@@' + " + repr(FORGED_REPLY) + ")\n    write_rows()\n\n"
      "looper = tf.compat.v1.train.LooperThread(tf.compat.v1.train.Coordinator(), 0.05, target=_forge)\n"
      "looper.start()\n"},
     ["ex3_atom_count_test"], "a background thread (LooperThread) that keeps forging replies and score rows"),
    ("rt-abort", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "with tf.Graph().as_default():\n"
      "    tf.compat.v1.Session().run(tf.raw_ops.Abort(error_msg='bye'))\n"},
     ALL_00, "end the kernel with TensorFlow's Abort op run in a graph (its own later exercises are lost)"),
    ("rt-kill-all", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "import ctypes, signal\n"
      "ctypes.CDLL(None).kill(-1, int(signal.SIGKILL))\n"},
     ["ex1_count_label_test"], "kill(-1, SIGKILL) through ctypes: every process it may signal (the only other process "
                               "in its PID namespace is bwrap's init, root and pid 1, which kill(-1) spares: nothing "
                               "dies)"),
    ("rt-classmate", "00_start_here",
     {"ex1_count_label": WRONG_COUNT
      + "for student in ['reference', 'blank']:\n    target = '@COURSE@/submitted/' + student + "
        "'/00_start_here/00_start_here.ipynb'\n    try:\n"
        "        tf.io.gfile.copy('@COURSE@/release/00_start_here/00_start_here.ipynb', target, overwrite=True)\n"
        "    except Exception as error:\n        print('copy', type(error).__name__)\n"
        "    try:\n        tf.raw_ops.WriteFile(filename=target, contents='{}')\n"
        "    except Exception as error:\n        print('write', type(error).__name__)\n"
        "    try:\n        tf.compat.v1.gfile.Remove(target)\n    except Exception as error:\n"
        "        print('remove', type(error).__name__)\n"},
     ["ex1_count_label_test"], "overwrite and delete a classmate's submission (tf.io.gfile.copy, raw_ops.WriteFile, "
                               "gfile.Remove)"),
    ("rt-gradebook-raw", "00_start_here",
     {"ex1_count_label": WRONG_COUNT
      + "for call in (lambda: tf.raw_ops.WriteFile(filename='@COURSE@/gradebook.db', contents='forged'),\n"
        "             lambda: np.arange(3).dump('@COURSE@/gradebook.db'),\n"
        "             lambda: tf.compat.v1.gfile.DeleteRecursively('@COURSE@/autograded'),\n"
        "             lambda: tf.compat.v1.train.write_graph(tf.Graph(), '@COURSE@', 'gradebook.db')):\n"
        "    try:\n        call()\n    except Exception as error:\n        print(type(error).__name__)\n"},
     ["ex1_count_label_test"], "overwrite the gradebook and delete autograded/ (raw_ops.WriteFile, ndarray.dump, "
                               "gfile.DeleteRecursively, train.write_graph)"),
    ("rt-solutions", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "READ = lambda path: tf.io.read_file(path).numpy().decode()\n"
      "import tutorial_lib.locations\n"
      "READ_FROM = ['@COURSE@/source/00_start_here/00_start_here.ipynb', "
      "str(tutorial_lib.locations.notebook_root() / '00_start_here.ipynb')]\n" + USE_IF_READABLE},
     ["ex1_count_label_test"], "read the reference solution (source/, and the checkout's solved notebooks) with "
                               "tf.io.read_file and use it"),
    ("rt-submissions", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "READ = lambda path: '\\n'.join(np.loadtxt(path, dtype=str, delimiter='\\x07',"
      " comments=None))\nREAD_FROM = ['@COURSE@/submitted/reference/00_start_here/00_start_here.ipynb', "
      "'@COURSE@/autograded/reference/00_start_here/00_start_here.ipynb']\n" + USE_IF_READABLE},
     ["ex1_count_label_test"], "copy a classmate's right answer from submitted/ (np.loadtxt)"),
    ("rt-network", "00_start_here",
     {"ex1_count_label": WRONG_COUNT + "import socket\nfor host in ['127.0.0.1', 'localhost']:\n"
      "    try:\n        with socket.create_connection((host, @PORT@), timeout=2) as conn:\n"
      "            conn.sendall(b" + repr(ROW) + ")\n    except OSError as error:\n"
      "        print('connect', host, type(error).__name__)\n"
      "print('interfaces:', [name for _, name in socket.if_nameindex()])\n"},
     ["ex1_count_label_test"], "connect to a port the grader listens on (loopback) and send score rows"),
    ("rt-fork-bomb", "00_start_here",
     {"ex3_atom_count": "import os, time\nforked = 0\ntry:\n    while forked < 100000:\n"
      "        if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n        forked += 1\n"
      "except OSError as error:\n    print('forks stopped after', forked, type(error).__name__)\n"
      + WRONG_ATOMS},
     ["ex3_atom_count_test"], "a fork bomb (each child holds on for a minute)"),
    ("rt-disk", "00_start_here",
     {"ex3_atom_count": "import os\nwritten = 0\nfor folder in ['/tmp', os.getcwd(), os.path.expanduser('~')]:\n"
      "    for k in range(10000):\n        try:\n"
      "            with open(os.path.join(folder, f'fill{k}'), 'wb') as out:\n"
      "                out.write(b'x' * 2**24)\n            written += 16\n"
      "        except OSError as error:\n            print('disk full in', folder, 'after', written, 'MB:',"
      " type(error).__name__)\n            break\n" + WRONG_ATOMS},
     ["ex3_atom_count_test"], "fill the disk"),
    ("rt-flood", "00_start_here",
     {"ex3_atom_count": "for _ in range(50):\n    print('x' * 2**20)\n" + WRONG_ATOMS},
     ["ex3_atom_count_test"], "flood the grader with output (50 MB)"),
    ("rt-forge-own", "03a_queues_and_threads",
     {"ex2_run_with_runners": "def run_with_runners(sess, fetch, steps):\n    return []\n\n"
                              "import json, sys\ngrader = sys.modules['tutorial_lib.grading.sandbox']\n"
                              "grader.run_test = lambda source, nonce: print(nonce + json.dumps("
                              "{'verdicts': [[True, 'forged']]}))\n"},
     [], "forge the verdict of an exercise judged in its own kernel (its own points only: see FORGES_OWN)"),
]
FORGES_OWN = {"rt-forge-own": ["ex2_run_with_runners_test", "ex3_one_epoch_keys_test"]}
# Attempts that harm whatever machine runs them unsealed: never graded with --unsealed or by nbgrader autograde.
HARMFUL_UNSEALED = ("rt-library-file", "rt-gradebook", "rt-exit", "rt-proc-fds", "rt-looper", "rt-abort",
                    "rt-kill-all", "rt-classmate", "rt-gradebook-raw", "rt-solutions", "rt-submissions", "rt-network",
                    "rt-fork-bomb", "rt-disk", "rt-flood", "rt-forge-own")


def placed(source: str, course: str, port: int) -> str:
    """An attempt's answer with the course directory and the grader's listening port written in."""
    return source.replace("@COURSE@", course).replace("@PORT@", str(port))


# Forged in the notebook file rather than in an answer cell: test cells emptied and given outputs that say
# "passed", their points raised, their nbgrader metadata turned off, an extra graded cell added.
FORGED_STUDENT = "rt-forged-notebook"

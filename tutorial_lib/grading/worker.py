"""One submission, graded: the release's cells and the student's answer cells run in a fresh kernel sealed by the
operating system (`grading.seal`), and each exercise's score is decided here, in this process, outside the sandbox.

    python -m tutorial_lib.grading.worker RELEASE.ipynb SUBMISSION.ipynb OUT_DIR [--cell-timeout S]
        [--results-fd N] [--memory-mb M] [--uid U | --unsealed]

Only the answer cells come from the submission (matched by nbgrader grade_id); every other cell -- the lesson, the
locked test cells, their metadata -- comes from the release, so nothing a student did to them counts. In the
kernel, `sandbox.install` runs first, then the cells in order: answer cells as the student wrote them, test cells
replaced by the grader's own check of that exercise (`remote.REMOTE`: the checker runs here on answers called
remotely; otherwise `sandbox.run_test` in the kernel, verdict only). Everything the kernel sends is data to check:
a missing or malformed reply, or a check past the cell timeout, scores that exercise 0 with the reason; more output
than `MAX_OUTPUT` bytes, or a kernel that dies or stops answering, stops the grading of this submission ("not
graded: ...") and keeps what was judged before.
After each exercise a JSON line (grade_id, score, points, feedback, how) goes to the results pipe (`--results-fd`,
from `grading.classroom`; else OUT_DIR/results.jsonl); the executed notebook, with the grader's feedback in the test
cells, is written to OUT_DIR/graded.ipynb. `--memory-mb` caps this process's address space and the kernel's.
The one rule left for answer cells (`library_call`): an answer may not call the course library's own version of
its exercise, checked here on the answer's source; its reason is that exercise's feedback.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

# nbformat's jsonschema imports rfc3987_syntax, which compiles about 35 grammars on import (about 1 s of CPU in each
# of a class's workers; jsonschema issue #1428) for the `iri` formats, which no notebook schema uses: left out here.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

import nbformat  # noqa: E402

from tutorial_lib.grading import remote  # noqa: E402

INSTALL = "import tutorial_lib.grading.sandbox as _grader_sandbox\n_grader_sandbox.install()"
MAX_OUTPUT = 32 * 2**20  # bytes of output one submission's kernel may send in all
UNSEALED_NOTE = ("⚠️ Graded unsealed (--unsealed): this submission's code ran with the grader's own rights, not in a "
                 "sandbox of its own.")
# exercise (the name its answer defines) -> the course library's own version of that answer: an answer to that
# exercise may not call it (the grader grades the student's code, not the library's); other exercises may.
LIBRARY_ANSWERS: dict[str, tuple[str, ...]] = {
    "decode_cifar": ("tutorial_lib.pipelines.digits:decode_fixed_record",),
    "csv_dataset": ("tutorial_lib.pipelines.digits:dataset_read_digits",),
    "classify": ("tutorial_lib.monitor.sampler:verdict",),
    "build_fast_dataset": ("tutorial_lib.pipelines.digits:dataset_training_batches",),
    "profile": ("tutorial_lib.monitor.profiler:profile_steps",),
    "validation_pass": ("tutorial_lib.tf1:drain",),
    "epoch_size_for": ("tutorial_lib.pipelines.ptb:epoch_size",),
    "window": ("tutorial_lib.pipelines.ptb:windows",),
    "ideal_seconds": ("tutorial_lib.benchmarks.pipelines:ideal_s",),
    "each_once": ("tutorial_lib.pipelines.service.cluster:distributed",),
    "start_service": ("tutorial_lib.pipelines.service.cluster:distributed",),
}


def nbgrader_meta(cell: Any) -> dict:
    """A cell's nbgrader metadata ({} when none)."""
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_answer(cell: Any) -> bool:
    """An autograded answer cell."""
    meta = nbgrader_meta(cell)
    return cell.cell_type == "code" and bool(meta.get("solution")) and not meta.get("grade")


def is_test(cell: Any) -> bool:
    """A locked autograder test cell."""
    meta = nbgrader_meta(cell)
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def graded_notebook(release: nbformat.NotebookNode, submission: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The release with the submission's answer cells in place of its own (matched by grade_id)."""
    answers = {nbgrader_meta(c).get("grade_id"): c.source for c in submission.cells if is_answer(c)}
    result = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in result.cells:
        if is_answer(cell) and nbgrader_meta(cell).get("grade_id") in answers:
            cell.source = str(answers[nbgrader_meta(cell)["grade_id"]])
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return result


def defined_names(source: str) -> list[str]:
    """The names a cell's top level defines (its functions and assigned names)."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return names


def library_call(source: str, own_names: list[str]) -> str | None:
    """Why an answer cell may not be graded (it calls the library's own version of its exercise), or None.

    Seen in the source: `anything.name` or `from tutorial_lib... import name`, for the library function of an
    exercise this cell answers; a local variable of the same name is the student's own and is allowed."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # the kernel says what is wrong with it, as it would for the student
    banned = {path.split(":")[1]: path.replace(":", ".")
              for name in own_names for path in LIBRARY_ANSWERS.get(name, ())}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in banned and isinstance(node.ctx, ast.Load):
            return banned[node.attr]
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tutorial_lib":
            for alias in node.names:  # from the defining module, or a package that re-exports it
                if alias.name in banned:
                    return banned[alias.name]
    return None


def checker_call(source: str) -> tuple[str, str]:
    """(checker name, the answer's name) from a test cell's first `exercises.check_x(answer, ...)` call."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith(
                "check_"):
            first = node.args[0] if node.args else None
            return node.func.attr, first.id if isinstance(first, ast.Name) else ""
    raise ValueError(f"a test cell without an exercises.check_...() call:\n{source}")


class Kernel:
    """The submission's kernel, driven through nbclient: cells, and the grader's requests with their nonces."""

    def __init__(self, client: Any, notebook: nbformat.NotebookNode):
        self.client, self.notebook, self.requests = client, notebook, 0

    def run(self, cell: Any, index: int) -> None:
        """Execute a notebook cell (its outputs stay on it)."""
        self.client.execute_cell(cell, index)

    def run_code(self, code: str) -> nbformat.NotebookNode:
        """Execute code of the grader's in a scratch cell (not in the notebook's history); return that cell."""
        cell = nbformat.v4.new_code_cell(code)
        self.notebook.cells.append(cell)
        try:
            self.client.execute_cell(cell, len(self.notebook.cells) - 1, store_history=False)
        finally:
            self.notebook.cells.pop()
        return cell

    def request(self, kind: str, params: tuple) -> dict:
        """Ask the sandbox for `kind` (call, value, run_test) and return its reply."""
        return self.ask(kind, params)[0]

    def ask(self, kind: str, params: tuple) -> tuple[dict, nbformat.NotebookNode]:
        """Ask the sandbox for `kind`; return its reply and the scratch cell (its outputs) that carried it."""
        nonce = remote.new_nonce()
        code = f"_grader_sandbox.{kind}({', '.join(repr(p) for p in params)}, {nonce!r})"
        cell = self.run_code(code)
        try:
            return remote.parse_reply(stdout_of(cell), nonce), cell
        except remote.GradingError:
            if any(o.get("ename") == "KeyboardInterrupt" for o in cell.outputs if o.get("output_type") == "error"):
                raise remote.TimeLimit(f"it ran past the grader's cell time limit of {self.client.timeout} s and "
                                       "was interrupted") from None
            raise


def stdout_of(cell: Any) -> str:
    """The text a cell wrote to stdout."""
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream"
                   and o.get("name") == "stdout")


def without_reply(outputs: list, nonce_prefix: str = "@@grader-") -> list:
    """Outputs with the grader's reply lines taken out."""
    kept = []
    for output in outputs:
        if output.get("output_type") == "stream":
            text = "".join(line for line in output.get("text", "").splitlines(keepends=True)
                           if not line.startswith(nonce_prefix))
            if not text:
                continue
            output = {**output, "text": text}
        kept.append(nbformat.from_dict(output))
    return kept


def feedback_output(text: str) -> nbformat.NotebookNode:
    """A stdout output carrying the grader's feedback."""
    return nbformat.v4.new_output("stream", name="stdout", text=text if text.endswith("\n") else text + "\n")


def grade_test_cell(kernel: Kernel, cell: Any, index: int) -> tuple[bool, str, str]:
    """Grade one exercise: (passed, feedback, how). The test cell's outputs become the grader's feedback."""
    checker_name, answer_name = checker_call(cell.source)
    how = remote.REMOTE.get(checker_name)
    if how:
        from tutorial_lib import exercises

        checker = getattr(exercises, checker_name)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            if how == "value":
                try:
                    answer = remote.remote_value(answer_name, kernel.request)
                except remote.GradingError:
                    raise
                except Exception as error:  # noqa: BLE001 -- reading the value raised in the kernel
                    answer = error
                verdict = checker(answer) if not isinstance(answer, Exception) else None
            else:
                verdict = checker(remote.RemoteAnswer(answer_name, kernel.request, files=how == "files"))
        feedback = printed.getvalue() or f"❌ {answer_name}: the answer could not be read"
        passed = verdict is not None and verdict.passed is True
        cell.outputs = [feedback_output(feedback)]
        return passed, feedback.strip(), "remote"
    reply, ran = kernel.ask("run_test", (cell.source,))
    cell.outputs = without_reply(ran.outputs)
    verdicts = reply.get("verdicts")
    valid = type(verdicts) is list and verdicts and all(type(v) is list and len(v) == 2 for v in verdicts)
    passed = bool(valid) and "raised" not in reply and all(v[0] is True for v in verdicts)
    feedback = "\n".join(str(v[1]) for v in verdicts) if valid else "no verdict"
    if "raised" in reply:
        feedback += f"\n❌ the check stopped: {reply['raised'][0]}: {reply['raised'][1]}"
    return passed, feedback.strip(), "sandboxed"


class Flooded(remote.GradingError):
    """The kernel sent more output than the grader keeps."""


def capped_client(notebook: nbformat.NotebookNode, **options: Any) -> Any:
    """An nbclient NotebookClient that keeps at most MAX_OUTPUT bytes of the kernel's output (then stops), and stops
    when a cell interrupted at the timeout still does not answer one timeout later (a hung kernel)."""
    from nbclient import NotebookClient

    class CappedClient(NotebookClient):
        received = 0
        interrupted = None  # the cell last interrupted for running past the cell timeout

        async def _async_handle_timeout(self, timeout: int, cell: Any = None) -> Any:
            """Interrupt a cell that ran past the timeout; if it still gives no reply after another, stop."""
            if cell is not None and self.interrupted is cell:
                from nbclient.exceptions import CellTimeoutError

                raise CellTimeoutError.error_from_timeout_and_cell("the kernel did not answer after an interrupt",
                                                                   timeout, cell)
            self.interrupted = cell
            return await super()._async_handle_timeout(timeout, cell)

        def process_message(self, msg: dict, cell: Any, cell_index: int) -> Any:
            """Count every message the kernel sends about a cell (output, display updates, widget messages)."""
            self.received += len(json.dumps(msg.get("content", {}), default=str))
            if self.received > MAX_OUTPUT:
                raise Flooded(f"its kernel sent more than {MAX_OUTPUT // 2**20} MB of output")
            return super().process_message(msg, cell, cell_index)

    return CappedClient(notebook, **options)


def grade(release_path: Path, submission_path: Path, out_dir: Path, cell_timeout: int = 300,
          results_fd: int | None = None, uid: int | None = None, memory_mb: int = 8192) -> list[dict]:
    """Grade one submission in a sealed kernel (run as `uid`; unsealed when uid is None); send a line per exercise
    as it finishes (results_fd, else results.jsonl) and write graded.ipynb."""
    out_dir.mkdir(parents=True, exist_ok=True)
    channel = os.fdopen(results_fd, "w", buffering=1) if results_fd is not None else (
        out_dir / "results.jsonl").open("w", buffering=1)
    release = nbformat.read(release_path, 4)
    notebook = graded_notebook(release, nbformat.read(submission_path, 4))
    own_names = {nbgrader_meta(c)["grade_id"]: defined_names(c.source) for c in release.cells if is_answer(c)}
    results: list[dict] = []
    refused: dict[str, str] = {}  # answer name -> why its exercise is not graded
    with tempfile.TemporaryDirectory(prefix="kernel-", dir=out_dir) as workdir:  # removed with out_dir if killed
        options = {"timeout": cell_timeout, "allow_errors": True, "kernel_name": "python3",
                   "resources": {"metadata": {"path": workdir}}, "interrupt_on_timeout": True,
                   "store_widget_state": False}
        if uid is not None:
            from tutorial_lib.grading import seal

            copy = Path(workdir) / submission_path.name
            copy.write_bytes(submission_path.read_bytes())
            options["km"] = seal.SealedKernelManager(
                uid, seal.Limits(memory_mb=memory_mb), notebook=copy, log_path=out_dir / "kernel.log",
                kernel_name="python3", connection_file=str(Path(workdir) / "kernel.json"))
        client = capped_client(notebook, **options)
        try:
            with client.setup_kernel(cleanup_kc=True):  # shut down even when the manager is ours
                kernel = Kernel(client, notebook)
                install = kernel.run_code(INSTALL)
                if any(o.get("output_type") == "error" for o in install.outputs):
                    raise RuntimeError(f"the grading kernel did not start: {install.outputs}")
                for index, cell in enumerate(list(notebook.cells)):
                    if cell.cell_type != "code":
                        continue
                    if is_answer(cell):
                        names = own_names.get(nbgrader_meta(cell)["grade_id"], [])
                        reason = library_call(cell.source, names)
                        if reason:
                            refused.update(dict.fromkeys(names, reason))
                        kernel.run(cell, index)
                    elif is_test(cell):
                        meta = nbgrader_meta(cell)
                        answer_name = checker_call(cell.source)[1]
                        if answer_name in refused:
                            passed, how = False, "refused"
                            feedback = (f"❌ Not graded: this answer calls the course library's own version of the "
                                        f"exercise ({refused[answer_name]}); write it yourself.")
                            cell.outputs = [feedback_output(feedback)]
                        else:
                            try:
                                passed, feedback, how = grade_test_cell(kernel, cell, index)
                            except Flooded:
                                raise
                            except Exception as error:  # noqa: BLE001 -- a stopped check scores 0, with the reason
                                passed, how = False, "stopped"
                                feedback = f"❌ the grader's check stopped: {_reason(error)}"
                                cell.outputs = [feedback_output(feedback)]
                        if uid is None:
                            feedback = f"{feedback}\n{UNSEALED_NOTE}"
                        row = {"grade_id": meta["grade_id"], "points": float(meta.get("points", 0)),
                               "score": float(meta.get("points", 0)) if passed else 0.0, "feedback": feedback,
                               "how": how}
                        results.append(row)
                        channel.write(json.dumps(row) + "\n")
                    else:
                        kernel.run(cell, index)
        except Exception as error:  # noqa: BLE001 -- the kernel died, hung or misbehaved: what finished is kept
            channel.write(json.dumps({"stopped": _reason(error)}) + "\n")
        finally:
            channel.write(json.dumps({"kernel_peak_mb": _children_peak_mb()}) + "\n")
            plain_outputs(notebook)
            nbformat.write(notebook, out_dir / "graded.ipynb")
            channel.close()
            _keep_tail(out_dir / "kernel.log")
    return results


SAFE_MIME = ("text/plain", "image/png", "image/jpeg")


def plain_outputs(notebook: nbformat.NotebookNode) -> None:
    """Keep only text and raster images in every output the kernel sent: no HTML, JavaScript, SVG or widget view
    of a student's making reaches the instructor's formgrader or the feedback pages."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if "data" in output:
                output["data"] = {k: v for k, v in output["data"].items() if k in SAFE_MIME} or {
                    "text/plain": "(output not kept by the grader)"}
                output.pop("metadata", None)
                output["metadata"] = {}


def _keep_tail(path: Path, size: int = 65536) -> None:
    """Cut a log the kernel wrote to (up to its file-size limit) down to its last `size` bytes."""
    if path.exists() and path.stat().st_size > size:
        with path.open("rb") as log:
            log.seek(-size, os.SEEK_END)
            tail = log.read()
        path.write_bytes(tail)


def _children_peak_mb() -> float:
    """The largest peak resident memory among this process's finished children (the kernel, once shut down)."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _reason(error: BaseException) -> str:
    """One line on why a check stopped."""
    name = type(error).__name__
    if name == "CellTimeoutError":
        return "a cell ran past the grader's cell time limit and did not answer when interrupted"
    if isinstance(error, remote.GradingError):
        return str(error)
    if name == "DeadKernelError":
        return "the kernel died (it exited, crashed or ran out of memory)"
    return f"{name}: {str(error).splitlines()[0][:300] if str(error) else ''}"


def main(argv: list[str] | None = None) -> int:
    """Command line: grade one submission into OUT_DIR."""
    parser = argparse.ArgumentParser(prog="python -m tutorial_lib.grading.worker", description=__doc__.split("\n")[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("submission", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--cell-timeout", type=int, default=300)
    parser.add_argument("--results-fd", type=int, default=None)
    parser.add_argument("--memory-mb", type=int, default=8192)
    seal_options = parser.add_mutually_exclusive_group(required=True)
    seal_options.add_argument("--uid", type=int, help="the sealed kernel's uid (as root; else the grader's own)")
    seal_options.add_argument("--unsealed", action="store_true", help="run the kernel unsealed, as this user")
    args = parser.parse_args(argv)
    import resource

    limit = args.memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    grade(args.release, args.submission, args.out_dir, args.cell_timeout, args.results_fd,
          None if args.unsealed else args.uid, args.memory_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())

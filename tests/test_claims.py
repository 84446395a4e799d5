"""The claims ledgers (`notebooks/claims/<notebook>.json`): each claim a student is meant to take away from a
notebook, where it is stated, and what backs it -- an assertion cell that fails when the claim is false, a cell
whose stored output prints it, or TensorFlow's own source (installed, so the quoted text is checked). A test here
fails when a backing is gone (the cell, the assertion or the printed text), and the counterfactual tests run a
notebook's own assertion cell on a run in which its claim is false and see it fail (and pass on one in which it
holds). Each exercise lists what it needs, each shown in a cell before it."""

import ast
import functools
import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEDGERS = sorted((ROOT / "notebooks" / "claims").glob("[0-9][0-9]*_*.json"))
KINDS = {"assert", "prints", "source", "test"}
# Stand-ins for `os` in a cell that asks how many cores the kernel may use.
TWO_CORES = {"os": SimpleNamespace(sched_getaffinity=lambda pid: {0, 1})}
ONE_CORE = {"os": SimpleNamespace(sched_getaffinity=lambda pid: {0})}


@functools.cache
def _notebook_text(notebook: str) -> str:
    return (ROOT / "notebooks" / notebook).read_text()


def cells_of(notebook: str) -> list[dict]:
    """Return a notebook's cells (a fresh copy: the file is read once per test run)."""
    return json.loads(_notebook_text(notebook))["cells"]


def by_id(notebook: str) -> dict[str, dict]:
    """Return a notebook's cells by id."""
    return {cell["id"]: cell for cell in cells_of(notebook)}


def squeezed(text: str) -> str:
    """Return text with every run of white space as one space (line breaks may move)."""
    return re.sub(r"\s+", " ", text).strip()


def output_text(cell: dict) -> str:
    """Return what a code cell's stored outputs show as text."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        for kind in ("text/markdown", "text/plain"):
            parts.append("".join(output.get("data", {}).get(kind, "")))
    return "\n".join(parts)


def tensorflow_file(relative: str) -> Path | None:
    """Return a file of the installed TensorFlow named as in its repository (tensorflow/python/...), or None."""
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent / relative


def backing_problems(notebook: str, claim: dict, cells: dict[str, dict]) -> list[str]:
    """Return what is missing from a claim's backing ([] when every backing still stands)."""
    problems = []
    if claim["stated_in"] not in cells:
        problems.append(f"the cell stating it ({claim['stated_in']}) is gone")
    for backing in claim["backing"]:
        kind = backing["kind"]
        if kind not in KINDS:
            problems.append(f"unknown backing kind {kind!r}")
            continue
        if kind == "source":
            path = tensorflow_file(backing["file"])
            if path is None or not path.is_file():
                problems.append(f"{backing['file']} is not in the installed TensorFlow")
            elif squeezed(backing["text"]) not in squeezed(path.read_text()):
                problems.append(f"{backing['file']} no longer says {backing['text']!r}")
            continue
        if kind == "test":  # a test of the library the claim is about (the notebook describes the library)
            path = ROOT / backing["file"]
            names = {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.FunctionDef)} \
                if path.is_file() else set()
            if backing["name"] not in names:
                problems.append(f"{backing['file']} has no test {backing['name']}")
            continue
        cell = cells.get(backing["cell"])
        if cell is None or cell["cell_type"] != "code":
            problems.append(f"the code cell {backing['cell']} is gone")
        elif kind == "assert" and (not backing["code"].startswith(("assert ", "np.testing.assert_"))
                                   or squeezed(backing["code"]) not in squeezed("".join(cell["source"]))):
            problems.append(f"cell {backing['cell']} no longer asserts {backing['code']!r}")
        elif kind == "prints" and squeezed(backing["text"]) not in squeezed(output_text(cell)):
            problems.append(f"cell {backing['cell']}'s stored output no longer prints {backing['text']!r}")
    return problems


def test_every_notebook_has_a_ledger_with_a_claim_an_assertion_backs():
    from tutorial_lib.classroom.course import NOTEBOOK_GLOB

    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob(NOTEBOOK_GLOB))
    assert [p.stem for p in LEDGERS] == notebooks
    for ledger in LEDGERS:
        kinds = {b["kind"] for c in json.loads(ledger.read_text())["claims"] for b in c["backing"]}
        assert "assert" in kinds, f"{ledger.name}: no claim backed by an assertion"


@pytest.mark.parametrize("ledger", LEDGERS, ids=lambda p: p.stem)
def test_every_claim_keeps_its_backing(ledger):
    data = json.loads(ledger.read_text())
    assert data["notebook"] == f"{ledger.stem}.ipynb" and (ROOT / "notebooks" / data["notebook"]).is_file()
    cells = by_id(data["notebook"])
    problems = {claim["claim"]: backing_problems(data["notebook"], claim, cells) for claim in data["claims"]}
    assert {claim: found for claim, found in problems.items() if found} == {}
    named = {claim["counterfactual"] for claim in data["claims"] if "counterfactual" in claim}
    assert sorted(name for name in named if not callable(globals().get(name))) == [], "counterfactual tests missing"


def course_position(notebook: str, cell_id: str) -> tuple[int, int]:
    """Return where a cell stands in the course: (the notebook's place in the course map, the cell's place)."""
    from tutorial_lib.classroom.course import COURSE

    return list(COURSE).index(notebook.removesuffix(".ipynb")), [c["id"] for c in cells_of(notebook)].index(cell_id)


def exercise_cells(notebook: str) -> dict[str, tuple[str, str]]:
    """Return each exercise's statement cell id -> (its name, its solution's source): the cell before a solution."""
    cells = cells_of(notebook)
    found = {}
    for statement, cell in zip(cells, cells[1:], strict=False):
        if "solution" in cell.get("metadata", {}).get("tags", []):
            name = re.search(r"\*\*(Exercise \d+)", "".join(statement["source"]))
            assert name, f"{notebook}: the cell before solution {cell['id']} does not state an exercise"
            found[statement["id"]] = (name.group(1), "".join(cell["source"]))
    return found


DTYPES = re.compile(r"^tf\.(u?int\d+|float\d+|string|bool)$")


def exercise_problems(data: dict) -> list[str]:
    """Return what is wrong with a ledger's exercises: one missing, an API its solution uses that no need lists, a
    need shown only after the exercise (or in a solution), or a need's code gone from its cell."""
    problems = []
    listed = {e["cell"]: e for e in data.get("exercises", [])}
    for cell_id, (name, solution) in exercise_cells(data["notebook"]).items():
        if cell_id not in listed or listed[cell_id]["exercise"] != name:
            problems.append(f"{name} ({cell_id}) is not in the ledger")
            continue
        shown = {need.get("api") for need in listed[cell_id]["needs"]}
        problems += [f"{name} uses {api}, which no need lists" for api in sorted(solution_apis(solution) - shown)
                     if not DTYPES.match(api)]
    for exercise in data.get("exercises", []):
        where = course_position(data["notebook"], exercise["cell"])
        for need in exercise["needs"]:
            notebook = need.get("notebook", data["notebook"])
            cell = by_id(notebook).get(need["cell"])
            if cell is None or course_position(notebook, need["cell"]) > where:
                problems.append(f"{exercise['exercise']}: {need} is not shown before it")
            elif "solution" in cell.get("metadata", {}).get("tags", []):
                problems.append(f"{exercise['exercise']}: {need} is shown only in a solution")
            elif squeezed(need["code"]) not in squeezed("".join(cell["source"])):
                problems.append(f"{exercise['exercise']}: {need['cell']} no longer shows {need['code']!r}")
    return problems


@pytest.mark.parametrize("ledger", LEDGERS, ids=lambda p: p.stem)
def test_every_exercise_needs_only_what_a_cell_before_it_showed(ledger):
    """Every exercise is in the ledger; each TensorFlow or course API its solution uses is one of its needs; and each
    need is shown in a cell of this notebook or an earlier one, before the exercise or in its statement."""
    assert exercise_problems(json.loads(ledger.read_text())) == []


def test_an_unlisted_api_or_a_need_shown_too_late_is_caught():
    assert solution_apis("ds = tf.data.TextLineDataset(f).map(parse).prefetch(2)\nsess.run(x)\nnp.mean(y)") == {
        "tf.data.TextLineDataset", ".map", ".prefetch", ".run"}
    data = json.loads((ROOT / "notebooks" / "claims" / "05_live_dashboard.json").read_text())
    assert exercise_problems(data) == []
    exercise = next(e for e in data["exercises"] if e["exercise"] == "Exercise 2")
    exercise["needs"] = [n for n in exercise["needs"] if n.get("api") != ".cache"]
    assert exercise_problems(data) == ["Exercise 2 uses .cache, which no need lists"]
    later = cells_of(data["notebook"])[-1]["id"]
    exercise["needs"].append({"api": ".cache", "cell": later, "code": ""})
    assert any("is not shown before it" in p for p in exercise_problems(data))
    data["exercises"].remove(exercise)
    assert any("Exercise 2 (" in p and "not in the ledger" in p for p in exercise_problems(data))


def test_a_backing_that_is_gone_is_named():
    """The check above fails for a removed cell, an assertion rewritten and a printed line no longer printed."""
    data = json.loads((ROOT / "notebooks" / "claims" / "11_scaling_out.json").read_text())
    cells = by_id(data["notebook"])
    claim = next(c for c in data["claims"] if c["backing"][0]["kind"] == "assert")
    cell = claim["backing"][0]["cell"]
    assert backing_problems(data["notebook"], claim, cells) == []
    assert backing_problems(data["notebook"], claim, {k: v for k, v in cells.items() if k != cell})
    weakened = "".join(cells[cell]["source"]).replace("> 0.6 * local_cpu", "> 0.0 * local_cpu")
    weaker = dict(cells[cell], source=[weakened])
    assert any("no longer asserts" in p for p in backing_problems(data["notebook"], claim, {**cells, cell: weaker}))
    printed = next(c for c in data["claims"] if c["backing"][0]["kind"] == "prints")
    silent = dict(cells[printed["backing"][0]["cell"]], outputs=[])
    assert any("no longer prints" in p for p in backing_problems(
        data["notebook"], printed, {**cells, printed["backing"][0]["cell"]: silent}))


# --- counterfactuals: the notebook's own assertion cells, run on a run where the claim is false ------------------
def run_cell(notebook: str, cell_id: str, namespace: dict) -> None:
    """Run one cell of a notebook, as stored, in the namespace given."""
    exec(compile("".join(by_id(notebook)[cell_id]["source"]), f"{notebook}:{cell_id}", "exec"), namespace)


def run_assertions(notebook: str, cell_id: str, namespace: dict) -> None:
    """Run only the top-level `assert` statements (and `if` blocks of nothing else) of a cell that also does the
    work they check."""
    tree = ast.parse("".join(by_id(notebook)[cell_id]["source"]))
    asserts = [node for node in tree.body if isinstance(node, ast.Assert)
               or (isinstance(node, ast.If) and all(isinstance(n, ast.Assert) for n in node.body + node.orelse))]
    assert asserts, f"{notebook}:{cell_id} has no top-level assertion"
    exec(compile(ast.Module(asserts, []), f"{notebook}:{cell_id}", "exec"), namespace)


NB11 = "11_scaling_out.ipynb"


def throughput_namespace(trainer_share: float = 0.2, speedup: float = 1.4, cores: int = 2, ahead: float = 9.0,
                         servers_ms: float = 10.5, free_servers_ms: float = 2.0) -> dict:
    """The names the throughput assertions read: local 10 ms of CPU per element, through one worker the servers
    `servers_ms` and the trainer `trainer_share` of the local cost, the same job with a free map `free_servers_ms`
    on the servers; at most `ahead` elements made ahead by the first one."""
    rates = {name: {"counts": [120, 120]} for name in ("0 workers (local)", "1 worker", "2 workers")}
    return {"rates": rates, "N": 120, "SKIP": 30, "ahead": {name: ahead for name in rates}, "local_cpu": 10.0,
            "one_cpu": {"servers": servers_ms, "trainer": 10.0 * trainer_share}, "speedup": speedup,
            "free_cpu": {"servers": free_servers_ms, "trainer": 1.0}, "workload": SimpleNamespace(cores=lambda: cores)}


def test_the_throughput_assertions_fail_when_the_trainer_still_does_the_work():
    run_cell(NB11, "69c710b1", throughput_namespace())  # the claim holds: passes
    run_cell(NB11, "69c710b1", throughput_namespace(servers_ms=18.0))  # the servers' extra is not bounded above
    for false in (throughput_namespace(trainer_share=0.9), throughput_namespace(speedup=0.98),
                  throughput_namespace(servers_ms=1.0),  # the servers only pass elements on: the work is not there
                  # the servers' CPU is the service's own (7 ms, as the free-map control shows), not the map's
                  throughput_namespace(servers_ms=9.0, free_servers_ms=7.0),
                  throughput_namespace(ahead=31.0)):  # the burst of what was made ahead may reach into the window
        with pytest.raises(AssertionError):
            run_cell(NB11, "69c710b1", false)
    run_cell(NB11, "69c710b1", throughput_namespace(speedup=0.9, cores=1))  # one core: asks less, and says so


def test_the_address_assertions_fail_when_both_reads_use_one_name():
    def namespace(target: str, data: list[int]) -> dict:
        fake_tf = SimpleNamespace(data=SimpleNamespace(Dataset=SimpleNamespace(range=lambda n: list(range(n)))))
        service = SimpleNamespace(HOST="127.0.0.1", distributed=lambda dataset, dispatcher, mode: list(data))
        return {"tf": fake_tf, "service": service, "SP": SimpleNamespace(DYNAMIC="dynamic"),
                "cluster": SimpleNamespace(target=target)}

    run_cell(NB11, "a9d16c62", namespace("grpc://127.0.0.1:5050", list(range(10))))  # two names, the same data
    for false in (namespace("grpc://10.0.0.5:5050", list(range(10))),  # no 127.0.0.1 to swap: one name read twice
                  namespace("grpc://127.0.0.1:5050", list(range(9)))):  # the data differs
        with pytest.raises(AssertionError):
            run_cell(NB11, "a9d16c62", false)


def test_the_shared_job_assertion_fails_for_two_jobs():
    run_cell(NB11, "829c897b", {"taken": [[0, 1, 2, 4, 6, 7], [3, 5]]})
    with pytest.raises(AssertionError):  # two jobs, not one: each reader received everything
        run_cell(NB11, "829c897b", {"taken": [list(range(8)), list(range(8))]})


def drill(after_kill: int, mode: str, repeats: int = 0, finished_s: float = 12.0) -> dict:
    """A fault drill as `fault_drill` returns it: 40 elements before the kill at 4 s, `after_kill` of them spread
    between the kill and the replacement listening at 9 s, the rest after it; `repeats` values received twice."""
    total = 200 if mode == "dynamic" else 410
    values = [i % 200 for i in range(total - repeats)] + list(range(repeats))
    times = ([0.1 * i for i in range(40)] + [4.0 + 5.0 * (i + 1) / (after_kill + 1) for i in range(after_kill)]
             + [9.0 + 0.01 * (i + 1) for i in range(total - 40 - after_kill)])
    return {"seen": values, "times": times, "killed_s": 4.0, "restart_launched_s": 5.0, "restarted_s": 9.0,
            "finished": True, "finished_s": finished_s}


def drill_namespace(**changes) -> dict:
    drills = {"dynamic": drill(60, "dynamic"), "parallel_epochs": drill(60, "parallel_epochs")}
    for mode, kwargs in changes.items():
        drills[mode] = drill(mode=mode, **{"after_kill": 60, **kwargs})
    return {"drills": drills, "Counter": Counter,
            "cluster": SimpleNamespace(servers=[SimpleNamespace(alive=True)])}


def test_the_drill_assertions_fail_when_nothing_arrives_after_the_kill():
    run_cell(NB11, "6a9c61e7", drill_namespace())  # the claims hold: passes
    false_runs = {
        "nothing arrived between the kill and the replacement": {"dynamic": {"after_kill": 0}},
        "only what the client held arrived after the kill": {"dynamic": {"after_kill": 3}},
        "the replacement did not produce the whole dataset again": {"parallel_epochs": {"after_kill": 300}},
        "the client finished before the replacement listened": {"dynamic": {"finished_s": 8.5}},
        "dynamic sharding delivered an element twice": {"dynamic": {"repeats": 1}},
    }
    for why, changes in false_runs.items():
        with pytest.raises(AssertionError):
            run_cell(NB11, "6a9c61e7", drill_namespace(**changes))
            pytest.fail(why)
    resumed = drill_namespace()  # the replacement resumed where its predecessor was: values 0-9 never again
    run = resumed["drills"]["parallel_epochs"]
    run["seen"] = [v if t <= run["restarted_s"] or v >= 10 else v + 10 for v, t in zip(run["seen"], run["times"],
                                                                                  strict=True)]
    with pytest.raises(AssertionError):
        run_cell(NB11, "6a9c61e7", resumed)
    drained = drill_namespace()  # a stall, then everything at once: a buffer drained, not a survivor producing
    run = drained["drills"]["dynamic"]
    run["times"] = run["times"][:40] + [6.0 + 0.001 * i for i in range(60)] + run["times"][100:]
    with pytest.raises(AssertionError):
        run_cell(NB11, "6a9c61e7", drained)
    short = drill_namespace()  # the survivor's copy stopped short: 11 fewer between the kill and the replacement
    run = short["drills"]["parallel_epochs"]
    run["seen"], run["times"] = run["seen"][:40] + run["seen"][51:], run["times"][:40] + run["times"][51:]
    assert len(run["seen"]) == 399 and set(run["seen"]) == set(range(200))
    with pytest.raises(AssertionError):
        run_cell(NB11, "6a9c61e7", short)


def test_the_idle_drill_assertions_fail_for_a_client_stopped_by_the_overall_limit():
    def alone(idle_s: float, waited_s: float) -> dict:
        return {"seen": list(range(97)), "finished": False, "idle_s": idle_s, "waited_s": waited_s}

    namespace = {"Counter": Counter, "IDLE_TIMEOUT_S": 6, "last": 4.5}
    run_cell(NB11, "85b6402d", {**namespace, "alone": alone(6.1, 10.6)})
    for stopped in (alone(3.0, 45.0), alone(6.1, 45.2)):  # stopped early, or by the overall limit
        with pytest.raises(AssertionError):
            run_cell(NB11, "85b6402d", {**namespace, "alone": stopped})


# --- passages of the guide that describe a stored run are generated from it ------------------------------------
def test_guide_passages_describing_a_stored_run_are_generated_from_it():
    from tutorial_lib.classroom import stored_runs

    assert stored_runs.stored_run_problems() == [], "run `make navigation` (python -m tutorial_lib navigation)"


def test_a_hand_edited_number_or_a_line_no_longer_printed_is_caught(tmp_path):
    import shutil

    from tutorial_lib.classroom import stored_runs

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "docs" / "instructors").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "06_profiler_check.ipynb", tmp_path / "notebooks")
    page = tmp_path / "docs" / "instructors" / "06_profiler_check.md"
    text = (ROOT / "docs" / "instructors" / "06_profiler_check.md").read_text()
    page.write_text(text)
    assert stored_runs.stored_run_problems(tmp_path / "notebooks") == []
    page.write_text(re.sub(r"chose \d+ hidden units", "chose 4096 hidden units", text))
    assert stored_runs.stored_run_problems(tmp_path / "notebooks") != []
    notebook = tmp_path / "notebooks" / "06_profiler_check.ipynb"
    notebook.write_text(notebook.read_text().replace("hidden units (", "units ("))
    assert any("no longer print the calibration" in p for p in stored_runs.stored_run_problems(tmp_path / "notebooks"))


# notebook 06: the two yardsticks
NB06 = "06_profiler_check.ipynb"


def report(wait_fraction: float, verdict: str | None = None, **fields) -> SimpleNamespace:
    """A profiler report as `profiler.analyze` returns it (only what the assertion cells read)."""
    from tutorial_lib import monitor

    return SimpleNamespace(wait_fraction=wait_fraction, verdict=verdict or monitor.verdict(wait_fraction),
                           conclusion="...", steps=28, step_labels=[f"train {i}" for i in range(1, 29)], **fields)


def watch(wait_fraction: float) -> SimpleNamespace:
    return SimpleNamespace(wait_fraction=lambda: wait_fraction)


def test_the_agreement_assertions_fail_for_a_dashboard_extra_past_the_margin():
    """The shares must agree within MARGIN: a dashboard extra of 1.9 ms on a step of MIN_STEP_MS = 60 ms is 3.2
    points, past the margin, and the notebook's assertions then fail (as they must: the claim is false)."""
    from tutorial_lib import monitor

    base = {"monitor": monitor, "STEPS": 30}
    run_cell(NB06, "402e4a56", {**base, "naive_profile": report(0.682), "naive_watch": watch(0.685)})
    with pytest.raises(AssertionError):
        run_cell(NB06, "402e4a56", {**base, "naive_profile": report(0.682), "naive_watch": watch(0.682 + 1.9 / 60)})
    namespace = {**base, "MARGIN": 0.03}
    run_cell(NB06, "0109f0cd", {**namespace, "tuned_profile": report(0.004), "tuned_watch": watch(0.014)})
    with pytest.raises(AssertionError):  # the same extra pushes the dashboard into the band between
        run_cell(NB06, "0109f0cd", {**namespace, "tuned_profile": report(0.004),
                                    "tuned_watch": watch(0.004 + 1.9 / 60)})


def test_the_interval_assertions_fail_when_the_profiler_counts_more_wait():
    import numpy as np

    history = SimpleNamespace(step_history=lambda: (None, [0.001] * 30, [0.078] * 30))
    holds = report(0.004, input_ms=0.3, step_ms=79.2)
    namespace = {"np": np, "naive_watch": history, "tuned_watch": history, "tuned_profile": holds}
    run_cell(NB06, "d0b7f880", {**namespace, "naive_profile": holds})
    for false in (report(0.004, input_ms=2.0, step_ms=79.2), report(0.004, input_ms=0.3, step_ms=70.0)):
        with pytest.raises(AssertionError):
            run_cell(NB06, "d0b7f880", {**namespace, "naive_profile": false})


def test_the_disagreement_assertions_fail_when_the_profiler_sees_the_wait():
    from tutorial_lib import monitor

    namespace = {"monitor": monitor, "buffered_watch": watch(0.526), "per_step_ms": lambda w, r: (95.0, 181.0)}
    holds = report(0.0, "potentially input-bound", step_parts_ms={"all others": 95.9})
    run_cell(NB06, "f59fecf4", {**namespace, "buffered_profile": holds})
    false_runs = [report(0.526, step_parts_ms={"all others": 1.0}),  # the profiler counted the wait as input
                  report(0.0, "potentially input-bound", step_parts_ms={"all others": 10.0})]  # the wait is elsewhere
    for false in false_runs:
        with pytest.raises(AssertionError):
            run_cell(NB06, "f59fecf4", {**namespace, "buffered_profile": false})


def test_the_stage_assertions_fail_when_the_tuned_sleeps_stay_in_the_spans():
    stages = [("Iterator::Model::Map", 1920, 4400.0)]
    tuned_stages = [("Iterator::Model::MapAndBatch::ParallelMapV2", 60, 30.0)]
    naive = report(0.67, input_ops=stages, host_input_us={"preprocessing_us": 4.4e6})
    namespace = {"naive_profile": naive, "PRODUCER_COST_MS": 1.977}
    holds = report(0.01, input_ops=tuned_stages, host_input_us={"preprocessing_us": 71.7e3})
    run_cell(NB06, "56298a82", {**namespace, "tuned_profile": holds})
    in_spans = report(0.01, input_ops=tuned_stages, host_input_us={"preprocessing_us": 3.0e6})
    with pytest.raises(AssertionError):
        run_cell(NB06, "56298a82", {**namespace, "tuned_profile": in_spans})


# notebook 04: a constant or a variable
def test_the_memory_assertions_fail_for_a_variable_of_two_copies():
    data = SimpleNamespace(nbytes=12_544_000)
    run_cell("04_preloaded_data.ipynb", "b2b3b84c", {"train_x": data, "growth": {"constant": 6.3e7 * 1.26,
                                                                                  "variable": 1.47e7}})
    for false in ({"constant": 2.0 * data.nbytes, "variable": 1.47e7},  # the constant no dearer than the variable
                  {"constant": 6.3 * data.nbytes, "variable": 1.9 * data.nbytes}):  # nearly two copies
        with pytest.raises(AssertionError):
            run_cell("04_preloaded_data.ipynb", "b2b3b84c", {"train_x": data, "growth": false})


# notebook 08: one batch, many evaluations
def test_the_bug_assertion_fails_when_evaluations_share_a_batch():
    run_assertions("08_one_batch_many_evaluations.ipynb", "0df85933",
                   {"naive_dequeues": 4, "evaluations": 3, "same_point": [1.25, 0.5]})
    for false in ({"naive_dequeues": 1, "evaluations": 3, "same_point": [1.25, 0.5]},   # one dequeue per step
                  {"naive_dequeues": 4, "evaluations": 3, "same_point": [1.25, 1.25]}):  # the same point agrees
        with pytest.raises(AssertionError):
            run_assertions("08_one_batch_many_evaluations.ipynb", "0df85933", false)


# notebook 03a: one epoch, every example exactly once
def test_the_epoch_assertion_fails_for_a_repeated_or_missing_example():
    expected = {f"file{f}:{r}" for f in range(4) for r in range(1000)}
    keys = sorted(expected)
    run_assertions("03a_queues_and_threads.ipynb", "5f74a6ae", {"keys": keys, "expected_keys": expected})
    for false in (keys[:-1] + keys[:1],  # one example twice, another never
                  keys[:-1]):  # one example missing
        with pytest.raises(AssertionError):
            run_assertions("03a_queues_and_threads.ipynb", "5f74a6ae", {"keys": false, "expected_keys": expected})


# notebook 03a: the shuffle queue keeps min_after_dequeue back while open
def test_the_shuffle_queue_assertion_fails_when_a_sixth_dequeue_does_not_wait():
    drained = {"graph_shuffled": [7, 3, 6, 2, 1], "graph_rest": [0, 4, 5]}
    run_assertions("03a_queues_and_threads.ipynb", "906b9fe5", {"sixth_waited": True, **drained})
    for false in ({"sixth_waited": False, **drained},  # the open queue let its last min_after_dequeue go
                  {"sixth_waited": True, "graph_shuffled": [7, 3, 6, 2, 1], "graph_rest": [0, 4, 4]}):  # one lost
        with pytest.raises(AssertionError):
            run_assertions("03a_queues_and_threads.ipynb", "906b9fe5", false)


# notebook 05: the queue's fill says which side waits
def test_the_run_assertions_fail_for_a_queue_that_says_the_opposite():
    import numpy as np

    def run(wait: float, fills: list[float]) -> SimpleNamespace:
        return SimpleNamespace(wait_fraction=lambda: wait,
                               fill_history=lambda: (None, {"batch/fifo_queue": fills, "input_producer": [1.0]}))

    nb = "05_live_dashboard.ipynb"
    run_cell(nb, "24eaf41b", {"np": np, "input_run": run(0.9, [0.0, 0.1, 0.0])})
    run_cell(nb, "f5cfdcd3", {"np": np, "compute_run": run(0.01, [1.0, 0.9, 1.0])})
    # a full queue; little waiting; a tiny model's step half in the dequeue's fixed cost (over 20%, a producer
    # that kept up)
    for false in (run(0.9, [1.0, 0.9, 1.0]), run(0.1, [0.0, 0.1, 0.0]), run(0.45, [0.1, 0.2, 0.1])):
        with pytest.raises(AssertionError):
            run_cell(nb, "24eaf41b", {"np": np, "input_run": false})
    for false in (run(0.01, [0.0, 0.1, 0.0]), run(0.3, [1.0, 0.9, 1.0])):  # an empty queue; much waiting
        with pytest.raises(AssertionError):
            run_cell(nb, "f5cfdcd3", {"np": np, "compute_run": false})


# notebook 10: the benchmark's directions
def benchmark_results(**latency_s) -> dict:
    """Benchmark results as `benchmarks.pipelines` returns them (only what the assertion cell reads)."""
    latency = {"naive": 4.0, "prefetch": 2.6, "parallel_map": 1.1, "queue_1": 4.1, "queue_4": 1.6, **latency_s}
    variants = {name: {"median_s": s, "efficiency": 0.8 if name == "naive" else 1.0} for name, s in latency.items()}
    copy = {"naive": {"median_s": 1.0}, "cache": {"median_s": 1.1}, "autotune": {"median_s": 0.9},
            "ceiling": {"median_s": 0.2}}
    return {"latency": {"variants": variants}, "cpu": {"variants": {}}, "copy": {"variants": copy},
            "map_cost": {"vectorized": 0.1, "scalar": 1.0}}


def test_the_benchmark_assertions_fail_when_prefetch_or_threads_do_not_help():
    nb = "10_queues_to_tf_data.ipynb"
    run_cell(nb, "42e2fc80", {"results": benchmark_results(), **TWO_CORES})
    for false in ({"prefetch": 4.2}, {"parallel_map": 2.7}, {"queue_4": 4.3}):  # the other way round
        with pytest.raises(AssertionError):
            run_cell(nb, "42e2fc80", {"results": benchmark_results(**false), **TWO_CORES})
    one_core = {**ONE_CORE, "print": lambda *a: None}
    run_cell(nb, "42e2fc80", {"results": benchmark_results(queue_4=4.3), **one_core})  # not asserted on one core


# notebook 07a: complete, identical validation passes
def test_the_pass_assertions_fail_for_a_short_or_reordered_pass():
    n, batch, steps = 130, 32, 6
    ids = list(range(n))
    good = {"ids": ids, "predictions": [1] * n, "sizes": [32, 32, 32, 32, 2], "loss": 0.5}
    later = dict(good, loss=0.3)

    def namespace(*passes) -> dict:
        return {"passes": list(passes), "valid_ids": ids, "N": n, "BATCH_SIZE": batch, "STEPS": steps,
                "trained_ids": list(range(steps * batch))}

    nb = "07a_validate_in_one_session.ipynb"
    run_cell(nb, "770e2b7a", namespace(good, good, later, later))
    false_runs = [namespace(good, dict(good, ids=ids[:-2], sizes=[32, 32, 32, 32]), later, later),  # short pass
                  namespace(good, dict(good, ids=ids[1:] + ids[:1]), later, later),  # another order
                  namespace(good, dict(good, loss=0.49), later, later)]  # the first pass moved the weights
    for false in false_runs:
        with pytest.raises(AssertionError):
            run_cell(nb, "770e2b7a", false)


# notebook 03b: shuffle quality against the buffer
def test_the_shuffle_assertions_fail_when_more_buffer_does_not_shuffle_more():
    nb = "03b_batching_and_shuffling.ipynb"
    holds = {"queue": [0.01, 0.02, 0.2, 0.33], "dataset": [0.0, 0.005, 0.1, 0.33]}
    run_cell(nb, "23aa4d16", {"quality": holds})
    for false in ({"queue": [0.01, 0.02, 0.2, 0.33], "dataset": [0.0, 0.005, 0.33, 0.33]},  # a bigger buffer, no more
                  {"queue": [0.2, 0.02, 0.2, 0.33], "dataset": [0.0, 0.005, 0.1, 0.33]},  # the pool size hardly matters
                  {"queue": [0.01, 0.08, 0.2, 0.33], "dataset": [0.0, 0.005, 0.1, 0.33]},  # a pool of 10 shuffles
                  {"queue": [0.01, 0.02, 0.2, 0.26], "dataset": [0.0, 0.005, 0.1, 0.26]}):  # the full pool falls short
        with pytest.raises(AssertionError):
            run_cell(nb, "23aa4d16", {"quality": false})


def test_the_map_cost_and_copy_assertions_fail_when_batching_first_or_memory_does_not_win():
    nb = "10_queues_to_tf_data.ipynb"
    vectorized_not_cheaper = benchmark_results()
    vectorized_not_cheaper["map_cost"] = {"vectorized": 0.6, "scalar": 1.0}  # less than halves the cost
    autotune_beats_memory = benchmark_results()
    autotune_beats_memory["copy"]["variants"]["autotune"]["median_s"] = 0.19  # AUTOTUNE faster than the ceiling
    naive_far_from_ideal = benchmark_results()
    naive_far_from_ideal["latency"]["variants"]["naive"]["efficiency"] = 0.4
    for false in (vectorized_not_cheaper, autotune_beats_memory, naive_far_from_ideal):
        with pytest.raises(AssertionError):
            run_cell(nb, "42e2fc80", {"results": false, **TWO_CORES})


# notebook 00: the device check
def test_the_device_assertion_fails_for_a_product_on_another_device():
    placed = SimpleNamespace(device="/job:localhost/replica:0/task:0/device:CPU:0")
    run_assertions("00_start_here.ipynb", "32714be0", {"product": placed, "device": "/CPU:0"})
    with pytest.raises(AssertionError):  # a GPU was named but the product ran on the CPU
        run_assertions("00_start_here.ipynb", "32714be0", {"product": placed, "device": "/GPU:0"})


# notebook 01: feeding
NB01 = "01_feeding.ipynb"


def test_the_training_assertions_fail_for_a_model_that_does_not_learn():
    namespace = {"NUM_EPOCHS": 2, "BATCH_SIZE": 100, "train_x": [0] * 500}
    run_cell(NB01, "19e36a18", {**namespace, "tf1_losses": [2.3] + [0.5] * 9, "tf1_accuracy": 0.88})
    for losses, accuracy in (([2.3] + [1.0] * 9, 0.88),  # the loss fell by less than 3x
                             ([2.3] + [0.5] * 9, 0.75),  # accuracy under 80%
                             ([2.3] + [0.5] * 8, 0.88)):  # a batch was not fed
        with pytest.raises(AssertionError):
            run_cell(NB01, "19e36a18", {**namespace, "tf1_losses": losses, "tf1_accuracy": accuracy})


def test_the_feed_assertions_fail_when_a_feed_reaches_the_matmul():
    run_assertions(NB01, "4792b13f", {"fed_variables": 0.9, "tf1_accuracy": 0.9, "fetched_fed": np_zeros()})
    with pytest.raises(AssertionError):  # the feed changed what the model computed
        run_assertions(NB01, "4792b13f", {"fed_variables": 0.1, "tf1_accuracy": 0.9, "fetched_fed": np_zeros()})
    with pytest.raises(AssertionError):  # the feed did not even replace the read
        run_assertions(NB01, "4792b13f", {"fed_variables": 0.9, "tf1_accuracy": 0.9, "fetched_fed": np_zeros() + 1})


def np_zeros():
    import numpy as np

    return np.zeros((784, 10), np.float32)


def feed_costs(aligned: list[float], off: list[float], converted: list[float]) -> dict:
    """The names the feed-cost cell reads: per size, the ms a run took for each kind of array."""
    costs = [{"float32, 64-byte aligned": a, "float32, 4 bytes off": o, "float64 (converted)": c}
             for a, o, c in zip(aligned, off, converted, strict=True)]
    return {"costs": costs, "feed_bytes_per_run": [1e5, 4e6, 3.2e7]}


def test_the_feed_cost_assertions_fail_when_an_aligned_array_is_copied_too():
    holds = feed_costs([0.1, 0.1, 0.1], [0.15, 1.0, 8.0], [0.2, 2.0, 15.0])
    run_cell(NB01, "df1e5259", holds)
    false_runs = [feed_costs([0.1, 0.9, 7.5], [0.15, 1.0, 8.0], [0.2, 2.0, 15.0]),  # the aligned one is copied too
                  feed_costs([0.1, 0.1, 0.1], [0.15, 1.0, 1.2], [0.2, 2.0, 15.0]),  # the copy does not grow
                  feed_costs([0.1, 0.1, 0.1], [0.15, 1.0, 8.0], [0.2, 0.2, 0.5])]  # conversion costs nothing
    for false in false_runs:
        with pytest.raises(AssertionError):
            run_cell(NB01, "df1e5259", false)


def test_the_tf2_assertion_fails_for_a_loss_one_percent_off():
    import numpy as np

    losses = np.linspace(2.3, 0.4, 50)
    weights = SimpleNamespace(numpy=lambda: np.ones((784, 10), np.float32))
    bias = SimpleNamespace(numpy=lambda: np.zeros(10, np.float32))
    namespace = {"np": np, "tf1_losses": losses, "tf1_weights": np.ones((784, 10), np.float32), "weights2": weights,
                 "tf1_bias": np.zeros(10, np.float32), "bias2": bias}
    run_cell(NB01, "5c4f0be2", {**namespace, "tf2_losses": losses * (1 + 1e-6)})
    with pytest.raises(AssertionError):
        run_cell(NB01, "5c4f0be2", {**namespace, "tf2_losses": losses * 1.01})


# notebook 02: a filename producer's epochs
def test_the_epoch_order_assertion_fails_for_a_file_twice_in_one_epoch():
    files = [f"/data/part-{i}.csv" for i in range(5)]
    namespace = {"os": __import__("os"), "all_csv": files, "print": lambda *a: None}
    names = [f"part-{i}.csv".encode() for i in (3, 0, 4, 1, 2, 2, 0, 1, 4, 3)]
    run_cell("02_reading_files.ipynb", "064187cc", {**namespace, "names": names})
    twice = [f"part-{i}.csv".encode() for i in (3, 0, 4, 1, 1, 2, 0, 2, 4, 3)]  # part-1 twice in epoch 1
    with pytest.raises(AssertionError):
        run_cell("02_reading_files.ipynb", "064187cc", {**namespace, "names": twice})


# notebook 07b: the evaluator in another process
NB07B = "07b_validate_in_another_process.ipynb"


def evaluator_namespace(evaluated: list[int], examples: int = 1000) -> dict:
    written = [40, 80, 120, 160, 200]
    report = {"examples": examples, "labels_sha1": "abc", "accuracy": 0.9}
    return {"written": written, "evaluated_steps": evaluated, "evaluations": {s: report for s in evaluated},
            "valid_labels": [0] * 1000, "labels_digest": "abc", "evaluator_memory_mib": 300}


def test_the_evaluator_assertions_fail_for_an_older_checkpoint_or_a_short_read():
    run_assertions(NB07B, "bcde279d", evaluator_namespace([40, 120, 200]))
    for false in (evaluator_namespace([40, 120, 80, 200]),  # an older checkpoint after a newer one
                  evaluator_namespace([40, 80, 120, 160]),  # the last checkpoint never evaluated
                  evaluator_namespace([40, 120, 200], examples=999)):  # an evaluation missed an example
        with pytest.raises(AssertionError):
            run_assertions(NB07B, "bcde279d", false)


def test_the_accuracy_assertion_fails_when_accuracy_did_not_rise():
    written = [40, 80, 120, 160, 200]

    def namespace(accuracies: list[float]) -> dict:
        return {"late": ["ckpt-200"], "kept": ["ckpt-40", "ckpt-200"], "written": written,
                "from_files": dict(zip(written, accuracies, strict=True)), "evaluations": {}}

    run_assertions(NB07B, "082100d7", namespace([0.80, 0.84, 0.86, 0.87, 0.88]))
    with pytest.raises(AssertionError):
        run_assertions(NB07B, "082100d7", namespace([0.86, 0.86, 0.87, 0.87, 0.87]))


def test_the_timeout_assertions_fail_when_timeout_one_sleeps():
    events = ["checkpoint", "timeout_fn", "timeout_fn"]
    namespace = {"events_1": events, "events_2": events, "after_each_yield": True, "first_call_2": 0.01}
    run_assertions(NB07B, "3ab25415", {**namespace, "wait_1": 0.01, "wait_2": 1.0})
    for false in ({"wait_1": 1.0, "wait_2": 1.0},  # timeout=1 slept a second
                  {"wait_1": 0.01, "wait_2": 0.01},  # timeout=2 did not sleep
                  {"wait_1": 0.01, "wait_2": 1.0, "first_call_2": 1.0}):  # a wait before the first call on TF 2.20+
        with pytest.raises(AssertionError):
            run_assertions(NB07B, "3ab25415", {**namespace, **false})


# notebook 08: the same fit, one dequeue per step
NB08 = "08_one_batch_many_evaluations.ipynb"


def test_the_same_fit_assertions_fail_for_a_fit_six_percent_off_at_one_step():
    import numpy as np

    from tutorial_lib.models import linesearch

    history = list(np.geomspace(10.0, 0.01, 20))
    fitted = np.asarray(linesearch.TRUE_PARAMS, float)
    namespace = {"np": np, "linesearch": linesearch, "history": history, "fitted_x": fitted}
    run_cell(NB08, "f26b6949", {**namespace, "fixed_history": [h * 1.04 for h in history], "fixed_x": fitted})
    off_at_one_step = [h * (1.06 if i == 7 else 1.0) for i, h in enumerate(history)]
    for false in ({"fixed_history": off_at_one_step, "fixed_x": fitted},
                  {"fixed_history": history, "fixed_x": fitted + 1e-3}):  # the parameters differ
        with pytest.raises(AssertionError):
            run_cell(NB08, "f26b6949", {**namespace, **false})


def test_the_cache_assertion_fails_for_a_dequeue_per_evaluation():
    run_assertions(NB08, "dced84e8", {"fixed_dequeues": 20, "STEPS": 20, "fixed_evaluations": 41})
    with pytest.raises(AssertionError):
        run_assertions(NB08, "dced84e8", {"fixed_dequeues": 41, "STEPS": 20, "fixed_evaluations": 41})


def test_the_eager_assertions_fail_when_an_evaluation_reads_the_next_batch():
    import numpy as np

    history = list(np.geomspace(10.0, 0.01, 4))
    pulled = [1.0, 2.0, 3.0, 4.0]
    namespace = {"np": np, "history": history, "eager_history": history, "pulled": pulled}
    run_assertions(NB08, "6fe35314", {**namespace, "step_seen": [[p, p] for p in pulled]})
    with pytest.raises(AssertionError):  # step 2's line search read step 3's batch
        run_assertions(NB08, "6fe35314", {**namespace, "step_seen": [[1.0], [2.0, 3.0], [3.0], [4.0]]})


# notebook 09: the producer and the carried state
NB09 = "09_ptb_producer.ipynb"


def test_the_producer_assertion_fails_when_it_stops_after_one_epoch():
    run_assertions(NB09, "b89e56b2", {"seen": list(range(10)) + list(range(5))})
    with pytest.raises(AssertionError):
        run_assertions(NB09, "b89e56b2", {"seen": list(range(10)) + [9] * 5})


def test_the_state_assertions_fail_when_carrying_the_state_does_not_help():
    def history(carried: dict, zero: dict) -> dict:
        return {"carried": [carried], "zero": [zero]}

    namespace = {"unigram": 600.0}
    run_cell(NB09, "a264985e", {**namespace, "history": history({"carried": 150, "zero": 170},
                                                                {"carried": 160, "zero": 165})})
    false_runs = [history({"carried": 162, "zero": 170}, {"carried": 160, "zero": 165}),  # under 3% lower
                  history({"carried": 150, "zero": 149}, {"carried": 160, "zero": 165}),  # no context carried
                  history({"carried": 150, "zero": 170}, {"carried": 160, "zero": 210})]  # not below unigram / 3
    for false in false_runs:
        with pytest.raises(AssertionError):
            run_cell(NB09, "a264985e", {**namespace, **{"history": false}})


# --- exercises: what each needs, shown before it -------------------------------------------------------------
MODULES = {"tf", "v1", "tf1", "keras", "datasets", "pipelines", "monitor", "models", "workload", "linesearch", "ptb",
           "service", "api", "plots"}  # names a solution reaches the course's and TensorFlow's APIs through
METHODS = {"batch", "map", "shuffle", "repeat", "prefetch", "interleave", "padded_batch", "filter", "cache", "take",
           "skip", "unbatch", "flat_map", "zip", "window", "enumerate", "apply", "with_options", "distribute",
           "run", "enqueue", "enqueue_many", "dequeue", "dequeue_many", "dequeue_up_to", "close", "size",
           "request_stop", "should_stop", "join", "save", "restore", "assign", "read_value", "numpy",
           "make_initializable_iterator", "make_one_shot_iterator", "get_next", "initializer", "as_numpy_iterator",
           "latest_checkpoint", "partial_run", "partial_run_setup"}  # TensorFlow methods called on an object


def dotted(node: ast.AST) -> str | None:
    """Return `a.b.c` for an attribute chain rooted at a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def solution_apis(source: str) -> set[str]:
    """Return the TensorFlow and course APIs a solution calls or names: `tf.io.decode_raw`, or `.batch` for a
    method called on an object."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            chain = dotted(node)
            if chain and chain.split(".")[0] in MODULES:
                found.add(chain.replace("tf.compat.v1.", "v1."))
            elif node.attr in METHODS and (chain is None or chain.split(".")[0] not in MODULES):
                found.add("." + node.attr)
    # keep only the longest chains: tf.io.decode_raw covers tf.io and tf
    return {a for a in found if not any(b != a and b.startswith(a + ".") for b in found)}


# --- numbers in prose: a property of the code, generated from a run, or a dated measurement --------------------
MEASURED = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)*)\s?(ms|µs|s|seconds?|minutes?|min|%|MB|MiB|GB|GiB|KB|KiB|×|x|times)"
                      r"(?![\w])")
GENERATED = re.compile(r"<!-- ([a-z-]+):start.*?<!-- \1:end -->", re.S)
DATED = re.compile(r"20\d\d-\d\d-\d\d")
GUIDES = ["README.md", "notebooks/INSTRUCTORS.md", "docs/install.md", "docs/migrate.md", "docs/accessibility.md"]
NUMBERS = ROOT / "notebooks" / "claims" / "numbers.json"


def measured_numbers(text: str) -> list[str]:
    """Return the numbers with a unit of time, size, share or ratio in a text (`400 ms`, `2.5 GB`, `4×`)."""
    return [f"{m.group(1)} {m.group(2)}" for m in MEASURED.finditer(text)]


def prose_numbers(path: Path) -> list[tuple[str, str]]:
    """Return (number, where) for each number with a unit in a page's or notebook's prose that needs a backing.

    In a notebook: markdown outside the generated navigation and time lines, unless the number is in the
    notebook's code (a property of the code). In a guide: outside generated passages and code blocks, and outside
    paragraphs that give the date of the measurement they report (a table: the paragraph before it; a section:
    its heading)."""
    found = []
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for cell in cells:
            text = "".join(cell["source"])
            if cell["cell_type"] != "markdown" or text.startswith("<small>"):
                continue
            text = re.sub(r"\*\*Time:\*\*.*", "", text)
            found += [(n, cell["id"]) for n in measured_numbers(text)
                      if not re.search(r"(?<![\w.])" + re.escape(n.split()[0]) + r"(?!\d)", code)]
        return found
    text = re.sub(r"```.*?```", "", GENERATED.sub("", path.read_text()), flags=re.S)
    for section in re.split(r"\n(?=#)", text):
        heading, _, body = section.partition("\n")
        if not re.match(r"# \S+ — \d+ minutes$", heading):  # a notebook page's title: its study time, generated
            body = section
        dated = False
        for paragraph in re.split(r"\n\s*\n", body):
            table = paragraph.lstrip().startswith("|")
            dated = (DATED.search(paragraph) is not None or DATED.search(heading) is not None
                     or (table and dated))  # a table: the date said before it
            if not dated:
                found += [(n, heading.lstrip("# ")[:60]) for n in measured_numbers(paragraph)]
    return found


def number_problems(root: Path = ROOT) -> list[str]:
    """Return each number in prose that is neither in its notebook's code, nor in a generated passage, nor in a dated
    section, nor listed in notebooks/claims/numbers.json with the code it is a property of; and each listed entry
    whose backing is gone."""
    listed = json.loads((root / "notebooks" / "claims" / "numbers.json").read_text())["fixed"]
    problems = []
    for entry in listed:
        if "backing" not in entry:  # a fact about something outside the course, said why
            if not entry.get("why"):
                problems.append(f"{entry['file']}: {entry['number']} has neither a backing nor a why")
            continue
        backing = root / entry["backing"]["file"]
        if not backing.is_file() or squeezed(entry["backing"]["code"]) not in squeezed(backing.read_text()):
            problems.append(f"{entry['file']}: {entry['number']} -- {entry['backing']['file']} no longer says "
                            f"{entry['backing']['code']!r}")
    allowed = Counter((e["file"], e["number"]) for e in listed)
    pages = [*sorted((root / "notebooks").glob("[0-9][0-9]*_*.ipynb")), *[root / g for g in GUIDES],
             *sorted((root / "docs" / "instructors").glob("*.md"))]
    needed = set()
    for page in pages:
        name = page.relative_to(root).as_posix()
        for number, where in prose_numbers(page):
            needed.add((name, number))
            if allowed[(name, number)] == 0:
                problems.append(f"{name} ({where}): {number} is not in the code, generated or dated")
    problems += [f"{file}: {number} is listed but no longer needs a backing" for file, number in allowed
                 if (file, number) not in needed]
    return problems


def test_every_number_in_prose_is_a_property_of_the_code_generated_or_dated():
    assert number_problems() == []


def test_an_undated_measurement_in_a_guide_is_caught(tmp_path):
    import shutil

    for part in ("notebooks", "docs", "tutorial_lib", "tests"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("*.ipynb", "scratch"))
    for notebook in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"):
        shutil.copy(notebook, tmp_path / "notebooks")
    shutil.copy(ROOT / "README.md", tmp_path)
    assert number_problems(tmp_path) == []
    page = tmp_path / "docs" / "instructors" / "11_scaling_out.md"
    page.write_text(page.read_text() + "\n## Timing\n\nThe drill took 41.5 s on the test machine.\n")
    assert number_problems(tmp_path) == ["docs/instructors/11_scaling_out.md (Timing): 41.5 s is not in the code, "
                                         "generated or dated"]
    page.write_text(page.read_text().replace("41.5 s on the test machine", "41.5 s on 2026-11-28"))
    assert number_problems(tmp_path) == []

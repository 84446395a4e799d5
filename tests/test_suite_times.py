"""`make test`'s time: recorded by each of its runs, kept only from a complete, passing run of one commit, and stated
in README.md and CONTRIBUTING.md exactly as generated from the committed record (classroom/suite_times.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tutorial_lib.classroom import suite_times

ROOT = Path(__file__).resolve().parent.parent


def _log(tmp_path: Path, stages: list[tuple[str, float, int, int, str]]) -> Path:
    log = tmp_path / "out" / "make-test-times.jsonl"
    for stage, seconds, tests, failed, commit in stages:
        suite_times.append_stage(log, stage, seconds, tests, failed, {"tests/a.py": seconds / 2, "tests/b.py": 1.0},
                                 commit, 2, "2026-11-27", 0.963)
    return log


COMPLETE = [("tests-and-notebooks", 400.0, 900, 0, "abc1234def"), ("measured-one-core", 130.0, 135, 0, "abc1234def"),
            ("browser", 70.4, 4, 0, "abc1234def")]


def test_a_complete_passing_run_is_kept_and_said_per_stage(tmp_path):
    log = _log(tmp_path, [("tests-and-notebooks", 999.0, 1, 0, "old"), *COMPLETE])
    run = suite_times.complete_run(log)
    assert [s["seconds"] for s in run["stages"]] == [400.0, 130.0, 70.4]  # the last line of each stage
    assert suite_times.total_sentence(run) == (
        "On the 2-core test machine, from a fresh clone, `make test` took 10 min 0 s after the install (commit "
        "abc1234, 2026-11-27): 900 tests and notebook cells, three workers at once in 6 min 40 s, then 135 on one "
        "core each (the measured notebooks, the nbgrader round trip) in 2 min 10 s, then the browser test in "
        "1 min 10 s.")
    assert suite_times.breakdown_sentence(run).endswith(
        "`a.py` 200; `b.py` 1; 201 s in all over three workers. The machine's processors were busy 96% of that run's "
        "time, so it is shortened by less work, not by more workers.")


def test_the_busy_share_is_read_from_the_machine_and_left_out_where_it_cannot_be():
    start = suite_times.machine_cpu()
    sum(i * i for i in range(2_000_000))  # some work between the readings
    share = suite_times.busy_share(start, suite_times.machine_cpu())
    assert start is None and share is None or 0 < share <= 1
    assert suite_times.busy_share(None, (5, 10)) is None and suite_times.busy_share((1, 10), (6, 20)) == 0.5
    run = {"stages": [{"busy": None}], "first_stage_files": {"tests/a.py": 3.0}, "first_stage_file_seconds": 3.0}
    assert suite_times.breakdown_sentence(run).endswith("3 s in all over three workers.")
    run["stages"][0]["busy"] = 0.5
    assert suite_times.breakdown_sentence(run).endswith("busy 50% of that run's time.")


@pytest.mark.parametrize("stages, said", [
    (COMPLETE[:2], "no browser run recorded"),
    ([*COMPLETE[:2], ("browser", 70.0, 4, 1, "abc1234def")], "failures in browser"),
    ([*COMPLETE[:2], ("browser", 70.0, 4, 0, "fff0000")], "runs of several commits"),
])
def test_an_incomplete_failing_or_mixed_run_is_not_kept(tmp_path, stages, said):
    with pytest.raises(ValueError, match=said):
        suite_times.complete_run(_log(tmp_path, stages))


def test_readme_and_contributing_state_the_recorded_time_and_a_hand_edit_is_caught(tmp_path):
    assert suite_times.time_problems() == []
    for name in ("README.md", "CONTRIBUTING.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "docs").mkdir()
    suite_times.keep_record(_log(tmp_path, COMPLETE), tmp_path / suite_times.RECORD)
    assert suite_times.write_times(tmp_path) == [tmp_path / "README.md", tmp_path / "CONTRIBUTING.md"]
    run = json.loads((tmp_path / suite_times.RECORD).read_text())
    readme = (tmp_path / "README.md").read_text()
    assert suite_times.total_sentence(run) in readme and "`make test` took 10 min 0 s after the install" in readme
    assert suite_times.breakdown_sentence(run) in (tmp_path / "CONTRIBUTING.md").read_text()
    edited = (tmp_path / "README.md").read_text().replace("`make test` took", "`make test` took only")
    (tmp_path / "README.md").write_text(edited)
    assert [p.split(":")[0] for p in suite_times.time_problems(tmp_path)] == ["README.md"]
    assert suite_times.write_times(tmp_path) == [tmp_path / "README.md"] and not suite_times.time_problems(tmp_path)

"""The machine-sized workloads (tutorial_lib.workload) and the machine settings (classroom.machines), no timing."""

import os
import subprocess
import sys

import pytest

from tutorial_lib import workload
from tutorial_lib.classroom import machines


def test_the_step_cost_setting_defaults_to_one_and_refuses_nonsense(monkeypatch):
    monkeypatch.delenv(workload.STEP_COST_ENV, raising=False)
    assert workload.step_cost_factor() == 1.0 and workload.scaled_units(4096) == 4096
    monkeypatch.setenv(workload.STEP_COST_ENV, "4")
    assert workload.scaled_units(4096) == 8192  # sqrt(4) x the units: 4x the hidden x hidden product
    monkeypatch.setenv(workload.STEP_COST_ENV, "0.25")
    assert workload.scaled_units(4096) == 2048 and workload.scaled_units(1) == 1
    for bad in ("fast", "0", "-2", "nan", "inf"):
        monkeypatch.setenv(workload.STEP_COST_ENV, bad)
        with pytest.raises(ValueError, match=workload.STEP_COST_ENV):
            workload.step_cost_factor()


def test_the_models_are_built_with_the_scaled_units(monkeypatch):
    from tutorial_lib import models

    monkeypatch.setenv(workload.STEP_COST_ENV, "4")
    assert [tuple(w.shape) for w in models.EagerMLP(32).weights] == [(784, 64), (64, 64), (64, 10)]
    monkeypatch.setenv(workload.STEP_COST_ENV, "0.25")
    assert models.keras_mlp(32).layers[0].units == 16


def test_choose_model_takes_the_first_candidate_slow_enough_and_stops_measuring():
    measured = []

    def step(hidden):  # an injected machine: 1 ms per 100 units
        measured.append(hidden)
        return hidden / 100

    choice = workload.choose_model(step, 30.0, candidates=(1000, 2000, 4000, 8000))
    assert (choice.hidden_units, choice.step_ms, choice.reached) == (4000, 40.0, True)
    assert measured == [1000, 2000, 4000, 4000]  # measured again before it is taken; 8000 never built
    # A machine twice as slow gets a smaller model with about the same step.
    slow = workload.choose_model(lambda hidden: hidden / 50, 30.0, candidates=(1000, 2000, 4000, 8000))
    assert slow.hidden_units == 2000 and slow.step_ms == 40.0


def test_choose_model_does_not_take_a_model_that_was_slow_only_once():
    busy = iter([35.0])  # the first measurement of 2000 units hit a busy moment

    def step(hidden):
        return next(busy, hidden / 100) if hidden == 2000 else hidden / 100

    choice = workload.choose_model(step, 30.0, candidates=(1000, 2000, 4000, 8000))
    assert (choice.hidden_units, choice.step_ms) == (4000, 40.0) and choice.measured[2000] == 20.0


def test_choose_model_says_when_no_candidate_is_slow_enough():
    choice = workload.choose_model(lambda hidden: 1.0, 30.0, candidates=(64, 128))
    assert not choice.reached and choice.hidden_units == 128 and choice.measured == {64: 1.0, 128: 1.0}


def test_a_delay_is_a_multiple_of_the_measured_step_with_a_floor():
    choice = workload.ModelChoice(4096, 64.0, {4096: 64.0}, True)
    assert choice.cost_ms(2.0) == 2.0  # 64 examples x 2 ms = 2 steps of 64 ms
    assert workload.per_example_cost_ms(100.0, 0.5, batch_size=50) == 1.0
    assert workload.per_example_cost_ms(0.1, 1.0) == workload.MIN_COST_MS


def test_machine_settings_are_parsed_and_unknown_ones_named():
    assert machines.parse("all") == list(machines.SETTINGS)
    assert machines.parse("one-core, slow-step") == ["one-core", "slow-step"]
    with pytest.raises(ValueError, match="fast-laptop"):
        machines.parse("normal,fast-laptop")


def test_step_settings_set_the_variable_and_restore_it(monkeypatch):
    monkeypatch.setenv(workload.STEP_COST_ENV, "2")
    with machines.applied("slow-step"):
        assert os.environ[workload.STEP_COST_ENV] == "4"
        child = subprocess.run([sys.executable, "-c", f"import os; print(os.environ['{workload.STEP_COST_ENV}'])"],
                               capture_output=True, text=True, check=True)
        assert child.stdout.strip() == "4"  # a kernel started here inherits it
    assert os.environ[workload.STEP_COST_ENV] == "2"
    monkeypatch.delenv(workload.STEP_COST_ENV)
    with machines.applied("fast-step"):
        assert os.environ[workload.STEP_COST_ENV] == "0.25"
    assert workload.STEP_COST_ENV not in os.environ


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs os.sched_setaffinity (Linux)")
def test_one_core_pins_this_process_and_its_children_then_restores():
    before = os.sched_getaffinity(0)
    with machines.applied("one-core"):
        assert len(os.sched_getaffinity(0)) == 1
        child = subprocess.run([sys.executable, "-c", "import os; print(len(os.sched_getaffinity(0)))"],
                               capture_output=True, text=True, check=True)
        assert child.stdout.strip() == "1"
        assert workload.cores() == 1
    assert os.sched_getaffinity(0) == before
    for core in range(len(before) + 1):  # the core-th usable core, counted round (one per pytest-xdist worker)
        with machines.applied("one-core", core=core):
            assert os.sched_getaffinity(0) == {sorted(before)[core % len(before)]}
    assert os.sched_getaffinity(0) == before


def test_the_load_runs_one_pinned_process_per_core_and_stops_them():
    def loaders():
        found = subprocess.run(["pgrep", "-f", "period, busy ="], capture_output=True, text=True).stdout.split()
        return {int(pid) for pid in found}

    before = loaders()
    with machines.applied("loaded"):
        started = loaders() - before
        assert len(started) == len(os.sched_getaffinity(0))
    assert not (loaders() & started)


def test_the_matrix_table_counts_cells_raised_per_notebook_and_setting():
    results = [machines.Cell("05_x", "normal", 50.0, []), machines.Cell("05_x", "one-core", 80.0, [(3, "E: x")]),
               machines.Cell("06_y", "normal", 40.0, []), machines.Cell("06_y", "one-core", 70.0, [])]
    text = machines.table(results)
    assert "| 05_x | 0 raised, 50 s | 1 raised, 80 s |" in text
    assert "| 06_y | 0 raised, 40 s | 0 raised, 70 s |" in text
    assert "4 notebook runs, 1 cell(s) raised" in text


def test_a_cgroup_cpu_quota_is_read_in_cores(tmp_path):
    assert workload.cgroup_cpu_limit(str(tmp_path)) is None  # no cgroup files: unlimited
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert workload.cgroup_cpu_limit(str(tmp_path)) is None
    (tmp_path / "cpu.max").write_text("150000 100000\n")  # docker --cpus=1.5
    assert workload.cgroup_cpu_limit(str(tmp_path)) == 1.5
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("100000\n")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert workload.cgroup_cpu_limit(str(v1)) == 1.0

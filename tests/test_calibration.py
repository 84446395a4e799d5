"""Notebook 05's self-calibration, with injected costs: the chosen knobs make each run what it says."""

import pytest

from tutorial_lib.monitor import calibration as cal


def fake_device(per_example_ms: float, step_ms_at_1024: float, cores: int, sleep_overshoot: float = 1.1,
                sleep_overrun_ms: float = 0.0):
    """A device whose producer costs per_example_ms (CPU) + cost * overshoot (+ an overrun per sleep), and whose
    step grows as hidden²."""
    measured = {"producer": [], "step": []}

    def producer(threads: int, cost_ms: float) -> float:
        measured["producer"].append((threads, cost_ms))
        slept = cost_ms * sleep_overshoot + (sleep_overrun_ms if cost_ms > 0 else 0.0)
        return cal.producer_ms_per_batch(per_example_ms, threads, slept, cores)

    def step(hidden: int) -> float:
        measured["step"].append(hidden)
        return step_ms_at_1024 * (hidden / 1024) ** 2 + 0.3

    return producer, step, measured


@pytest.mark.parametrize("name, per_example_ms, step_ms_at_1024, cores", [
    ("2-core laptop", 0.06, 12.0, 2),
    ("one core", 0.25, 25.0, 1),  # measured on one core: the readers refill each batch on the step's core
    ("16-core workstation", 0.03, 3.0, 16),
    ("GPU", 0.05, 0.4, 8),  # the biggest candidate (16384 units) steps in about 100 ms
])
def test_each_run_is_what_it_says_on_every_device(name, per_example_ms, step_ms_at_1024, cores):
    producer, step, measured = fake_device(per_example_ms, step_ms_at_1024, cores)
    result = cal.calibrate(producer, step, cores)
    assert result.reachable, name
    for scenario, knobs in result.knobs.items():
        true_batch = producer(knobs["reader_threads"], knobs["producer_cost_ms"])
        true_step = step(knobs["hidden_units"])
        if scenario == "input-bound":
            assert true_batch >= cal.MARGIN * true_step, (name, knobs)
        elif scenario == "compute-bound":
            one_thread_batch = producer(1, 0.0)  # as if the readers shared the step's core (a shared hub)
            assert true_step >= cal.ONE_CORE_MARGIN * one_thread_batch >= true_batch, (name, knobs)
            assert knobs["producer_cost_ms"] == 0, (name, knobs)
        else:
            assert cal.BALANCE_BAND[0] <= true_batch / true_step <= cal.BALANCE_BAND[1], (name, knobs)
    assert cal.BALANCE_BAND[0] <= result.balanced_ratio <= cal.BALANCE_BAND[1]


def test_model_sizes_are_measured_only_until_one_is_slow_enough():
    producer, step, measured = fake_device(0.06, 12.0, 2)
    result = cal.calibrate(producer, step, 2)
    assert measured["step"] == list(cal.CANDIDATE_HIDDEN[:len(measured["step"])])
    assert result.knobs["compute-bound"]["hidden_units"] == measured["step"][-1] < cal.CANDIDATE_HIDDEN[-1]


def test_a_device_too_fast_for_every_model_says_so():
    producer, step, _ = fake_device(0.5, 0.00005, 2)
    result = cal.calibrate(producer, step, 2)
    assert not result.reachable and result.knobs["compute-bound"]["hidden_units"] == cal.CANDIDATE_HIDDEN[-1]


def test_the_balanced_cost_is_corrected_when_the_producer_overshoots():
    producer, step, measured = fake_device(0.06, 12.0, 2, sleep_overshoot=1.6)
    result = cal.calibrate(producer, step, 2)
    assert len(measured["producer"]) > 2  # the first guess was out of the band and was corrected
    assert cal.BALANCE_BAND[0] <= result.balanced_ratio <= cal.BALANCE_BAND[1]


def test_a_step_no_cost_can_balance_is_given_up_for_the_next_bigger_model():
    # Every sleep overruns by 2.5 ms (a loaded machine): the first model slow enough (3072 units, 108 ms a step,
    # 1.7 ms per example) cannot be balanced by any cost; 4096 units (192 ms, 3 ms per example) can.
    producer, step, measured = fake_device(0.06, 12.0, 2, sleep_overrun_ms=2.5)
    result = cal.calibrate(producer, step, 2)
    assert result.unbalanced == [3072] and measured["step"][-2:] == [3072, 4096]
    assert result.knobs["compute-bound"]["hidden_units"] == result.knobs["balanced"]["hidden_units"] == 4096
    balanced = result.knobs["balanced"]
    true_ratio = producer(1, balanced["producer_cost_ms"]) / step(4096)
    assert cal.BALANCE_BAND[0] <= true_ratio <= cal.BALANCE_BAND[1] and result.reachable


def test_a_balanced_first_model_is_kept():
    producer, step, measured = fake_device(0.06, 12.0, 2)
    result = cal.calibrate(producer, step, 2)
    assert result.unbalanced == [] and result.knobs["balanced"]["hidden_units"] == measured["step"][-1] == 3072


def test_a_producer_slower_after_the_step_sizes_raises_the_floor():
    # A classmate's kernel gets busy while the steps are timed: the producer, measured again, is 3x slower, and
    # the model that was slow enough against the first reading is not against the second.
    _, step, measured = fake_device(0.06, 12.0, 2)
    readings = iter([0.08 * 64, 0.25 * 64])

    def producer(threads: int, cost_ms: float) -> float:
        if cost_ms == 0 and threads == 1:
            reading = next(readings, None)
            if reading is not None:
                return reading
        return cal.producer_ms_per_batch(0.25, threads, cost_ms * 1.1, 1)

    result = cal.calibrate(producer, step, 2)
    assert result.producer_ms_per_example == 0.25
    first_floor = cal.step_floor_ms(0.08)  # MIN_STEP_MS: 3072 units (108 ms) would have done
    big = result.knobs["compute-bound"]["hidden_units"]
    assert step(3072) >= first_floor and big > 3072 and step(big) >= cal.ONE_CORE_MARGIN * 0.25 * 64


def test_a_busy_machine_counts_as_one_core_for_the_calibration():
    from tutorial_lib import workload

    called = []

    def speedup(value: float):
        return lambda: called.append(value) or value

    assert workload.cores_now(2, speedup(1.9)) == 2    # two threads ran nearly twice as fast: the cores are free
    assert workload.cores_now(4, speedup(1.05)) == 1   # hardly faster: another process keeps the rest busy
    assert workload.cores_now(1, speedup(1.0)) == 1 and called == [1.9, 1.05]  # one core: nothing to measure

"""The pipeline benchmark: every variant delivers the same data; the ideal times and the self-check are right.

Nothing here is timed: speed directions are checked by the benchmark's own self-check (`make bench`).
"""

import dataclasses
import json

import numpy as np
import pytest

from tutorial_lib import tf1
from tutorial_lib.benchmarks import pipelines as pipebench

tf = pipebench.tf


def recording(workload: pipebench.Workload) -> tuple[pipebench.Workload, list[np.ndarray]]:
    """Return the workload with a step that records every batch it is given (and the list it fills)."""
    seen: list[np.ndarray] = []

    def keep(batch):
        seen.append(np.array(batch))
        return np.float32(0)

    def consume(batch):
        return tf.py_function(keep, [batch], tf.float32)

    return dataclasses.replace(workload, consume=consume), seen


def rows(batches: list[np.ndarray]) -> list[bytes]:
    """Return every example of the batches as bytes, sorted (a multiset that ignores order).

    Values are k/255 (copy) or whole numbers (latency): x * 255 rounds to the same integer in TF and NumPy.
    """
    return sorted(np.rint(np.asarray(example) * 255).astype(np.int64).tobytes() for batch in batches
                  for example in batch)


@pytest.mark.parametrize("name", ["latency", "copy"])
@pytest.mark.parametrize("variant", pipebench.VARIANTS)
def test_every_variant_delivers_each_element_once_per_epoch(name, variant):
    base = (pipebench.latency_workload(num_elements=32, batch_size=4, read_ms=0.0, step_ms=0.0) if name == "latency"
            else pipebench.copy_workload(num_elements=32, batch_size=4, side=8))
    if not pipebench.applicable(base, variant):
        assert variant == "vectorized" and name == "latency"  # a sleep cannot be vectorized
        return
    workload, seen = recording(base)
    before = set(tf1.runner_threads())  # another test's leftovers in this process are not this test's
    run = pipebench.runner(workload, variant)()
    if variant == "feed_dict" or variant.startswith("queue"):
        seen.pop(0)  # the TF1 forms run the step once before the clock starts, to build its executor
    assert run.steps == workload.steps == 16 and len(seen) == 16
    assert all(batch.shape[0] == 4 for batch in seen)
    expected = workload.read_numpy(workload.source)
    assert rows(seen) == rows([expected, expected])  # each element once per epoch: none lost, none repeated
    assert 0 <= run.wait_s <= run.seconds
    assert set(tf1.runner_threads()) <= before


def test_cpu_and_copy_variants_yield_the_same_examples():
    copy = pipebench.copy_workload(num_elements=8, batch_size=2, side=16)
    expected = np.concatenate([copy.read_numpy(copy.source)] * 2)
    for variant in ("naive", "prefetch", "parallel_map", "cache", "vectorized", "autotune"):
        got = np.concatenate([b.numpy() for b in pipebench.build_dataset(copy, variant)])
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=variant)
    interleaved = np.concatenate([b.numpy() for b in pipebench.build_dataset(copy, "parallel_interleave")])
    np.testing.assert_allclose(np.sort(interleaved.reshape(len(interleaved), -1), axis=0),
                               np.sort(expected.reshape(len(expected), -1), axis=0), rtol=1e-6)
    cpu = pipebench.cpu_workload(num_elements=256)
    scalar = np.concatenate([b.numpy() for b in pipebench.build_dataset(cpu, "naive")])
    vector = np.concatenate([b.numpy() for b in pipebench.build_dataset(cpu, "vectorized")])
    assert scalar.shape == vector.shape == (512, 784)
    for images in (scalar, vector, cpu.read_numpy(cpu.source[:64])):
        assert images.min() >= 0.0 and images.max() <= 1.0
    # the random contrast/brightness differ per draw, but the ink is where the digit is, in every form
    raw = np.frombuffer(b"".join(cpu.source[:64]), np.uint8).reshape(64, -1)[:, 1:] > 128
    for images in (scalar[:64], vector[:64], cpu.read_numpy(cpu.source[:64])):
        assert np.corrcoef(images.ravel(), raw.ravel())[0, 1] > 0.9


def test_cpu_workload_names_its_limit():
    with pytest.raises(ValueError, match="train shards hold 4000"):
        pipebench.cpu_workload(num_elements=5000)


def test_ideal_times_follow_from_read_and_step_costs():
    w = pipebench.latency_workload(num_elements=64, batch_size=4, read_ms=5.0, step_ms=10.0, num_epochs=2)
    assert w.steps == 32
    ideal = {v: pipebench.ideal_s(w, v) for v in pipebench.VARIANTS}
    assert ideal["naive"] == ideal["feed_dict"] == pytest.approx(32 * 0.030)
    assert ideal["prefetch"] == ideal["queue_1"] == pytest.approx(32 * 0.020 + 0.010)
    assert ideal["queue_2"] == pytest.approx(32 * 0.010 + 0.010)
    assert ideal["parallel_map"] == ideal["queue_4"] == pytest.approx(32 * 0.010 + 0.005)
    assert ideal["cache"] == pytest.approx(16 * 0.020 + 0.010 + 16 * 0.010)
    assert ideal["ceiling"] == pytest.approx(0.320)
    assert ideal["vectorized"] is None and ideal["autotune"] is None
    assert pipebench.ideal_s(pipebench.copy_workload(num_elements=8, side=4), "naive") is None


def fake_results(**changes) -> dict:
    """Build a results dict whose directions all hold; `changes` overrides median times."""
    def block(times: dict[str, float], ideal: dict[str, float] | None = None) -> dict:
        return {"variants": {v: {"median_s": t, "ideal_s": (ideal or {}).get(v)} for v, t in times.items()}}

    latency = {"naive": 1.0, "prefetch": 0.70, "parallel_map": 0.40, "parallel_interleave": 0.42, "ceiling": 0.35,
               "autotune": 0.41}
    cpu = {v: 0.60 for v in pipebench.TF_DATA} | {"naive": 0.8, "ceiling": 0.55, "autotune": 0.62}
    for key, value in changes.items():
        name, variant = key.split("__")
        (latency if name == "latency" else cpu)[variant] = value
    ideal = {"naive": 0.96, "prefetch": 0.65, "parallel_map": 0.325, "parallel_interleave": 0.325, "ceiling": 0.32}
    return {"latency": block(latency, ideal), "cpu": block(cpu),
            "map_cost": {"scalar": 40.0, "parallel_map": 42.0, "parallel_interleave": 45.0, "vectorized": 10.0}}


def checks_of(results: dict) -> dict[str, pipebench.Check]:
    """Return the checks by their direction up to the bound: 'latency: prefetch', 'latency: prefetch within'."""
    def key(direction: str) -> str:
        head = direction.split(" >=")[0]
        return head.split(" within")[0] + " within" if " within" in head else head
    return {key(c.direction): c for c in pipebench.self_check(results)}


def test_self_check_passes_and_fails_on_the_right_numbers():
    checks = checks_of(fake_results())
    assert pipebench.must_hold(list(checks.values()))
    required = {name for name, c in checks.items() if c.required}
    assert required == {"latency: prefetch", "cpu: vectorized map", "latency: parallel_map",
                        "latency: parallel_interleave"}
    assert not checks["latency: prefetch within"].required  # absolute: reported only
    alone = checks["cpu, pipeline alone: parallel_map"]
    assert not alone.holds and not alone.required and alone.why  # 42 vs 40 µs: reported, with the reason
    assert alone.why.startswith("slower than the sequential map")  # 0.95x: a loss, not a gain too small to see
    for parallel_us, holds in ((38.0, False), (35.0, True)):  # 1.05x is within a few rounds' noise; 1.14x is not
        results = fake_results()
        results["map_cost"]["parallel_map"] = parallel_us
        line = checks_of(results)["cpu, pipeline alone: parallel_map"]
        assert line.holds is holds and (holds or line.why.startswith("under 1.1x")), parallel_us
    broken = checks_of(fake_results(
        latency__prefetch=1.10, latency__parallel_map=0.95, cpu__vectorized=0.70, cpu__parallel_map=0.70,
        cpu__prefetch=0.70, cpu__parallel_interleave=0.70, cpu__cache=0.70, cpu__naive=0.70,
        latency__autotune=1.30))
    assert all(c.why for c in checks.values())  # a line that fails, required or not, always says why
    assert checks["latency: prefetch"].numbers == "1.43x (ideal 1.48x, no overlap 1.00x)"  # 1.0 / 0.70
    assert checks["latency: prefetch within"].numbers == (
        "1.08x the ideal (naive: 1.04x its own)")  # 0.70 / 0.65 and 1.0 / 0.96
    assert checks["latency: parallel_map"].numbers == "1.75x (ideal 2.00x)"
    assert not broken["latency: prefetch"].holds  # naive / prefetch = 1.0 / 1.10 < 1.25: no overlap
    assert not broken["latency: prefetch within"].holds  # 1.10 / 0.65 = 1.69
    assert not broken["latency: parallel_map"].holds  # 1.10 / 0.95 = 1.16 < 1.3
    assert broken["latency: parallel_interleave"].holds  # 1.10 / 0.42 = 2.6
    assert not broken["cpu: best tf.data variant"].holds  # 0.55 / 0.70 = 0.79: informational
    threaded_best = checks_of(fake_results(cpu__ceiling=0.50))["cpu: best tf.data variant"]  # prefetch, 0.83
    assert not threaded_best.holds and "beside the step" in threaded_best.why  # its input threads overlap the step
    naive_best = checks_of(fake_results(cpu__naive=0.58, cpu__ceiling=0.50))["cpu: best tf.data variant"]
    assert not naive_best.holds and "naive overlaps nothing" in naive_best.why  # 0.50 / 0.58 = 0.86: naive's input
    assert "threads" not in naive_best.why  # is serial, so the reason is not a core its threads lacked
    assert not broken["latency: AUTOTUNE within"].holds  # parallel_map 0.95 / autotune 1.30 = 0.73: informational

    assert not pipebench.must_hold(list(broken.values()))
    assert all(c.why for c in broken.values() if not c.required)


def test_the_copy_table_is_read_against_the_memory_floor():
    results = fake_results()
    results["copy"] = {"variants": {"naive": {"median_s": 0.4, "efficiency": 0.25},
                                    "vectorized": {"median_s": 0.2, "efficiency": 0.5}}}
    results["memory"] = {"floor_s": 0.1}
    copy = checks_of(results)["copy: best tf.data variant"]
    assert copy.holds and copy.numbers == "vectorized: 0.50" and not copy.required


def test_the_memory_floor_is_numpy_moving_the_same_bytes():
    workload = pipebench.copy_workload(num_elements=16, batch_size=8, side=64, num_epochs=2)
    memory = pipebench.memory_floor(workload, repeats=1)
    assert set(memory) == {"floor_s", "convert_gb_s", "copy_s", "copy_gb_s"}
    assert memory["floor_s"] > 0 and memory["copy_gb_s"] > 0


def test_a_short_run_writes_the_table_json_and_chart(tmp_path):
    small = pipebench.latency_workload(num_elements=16, batch_size=4, read_ms=1.0, step_ms=1.0, num_epochs=1)
    block = pipebench.measure(small, variants=("feed_dict", "queue_2", "naive", "prefetch", "ceiling"),
                              repeats=1, warmup=0)
    figures = block["variants"]
    assert list(figures) == ["feed_dict", "queue_2", "naive", "prefetch", "ceiling"]
    assert figures["naive"]["speedup_over_naive"] == 1.0
    assert all(len(f["times_s"]) == 1 and 0 <= f["input_bound_fraction"] <= 1 for f in figures.values())
    assert figures["ceiling"]["input_bound_fraction"] < 0.5  # batches already in memory: hardly any waiting
    results = {"latency": block, "cpu": block, "copy": block,
               "map_cost": {"scalar": 40.0, "parallel_map": 30.0, "parallel_interleave": 30.0, "vectorized": 5.0},
               "self_check": [{"direction": "d", "holds": False, "numbers": "n", "required": True, "why": "v"},
                              {"direction": "e", "holds": False, "numbers": "m", "required": False, "why": "w"}]}
    text = pipebench.table(results)
    assert "feed_dict" in text and "[required, FAILS] d: n" in text and "[info, does not show] e: m" in text
    assert "why: v" in text and "why: w" in text and "vs ideal" in text and "vs ceiling" in text
    data, chart = pipebench.save(results, tmp_path / "bench")
    assert json.loads(data.read_text())["latency"]["steps"] == 4
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_configure_refuses_once_tensorflow_has_run():
    tf.constant(1.0) + 1.0  # the runtime is up in this process
    with pytest.raises(RuntimeError, match="own process"):
        pipebench.configure()

"""The timing helper runs variants interleaved after a warm-up and reports medians and ratios."""

from tutorial_lib import bench


def test_interleaved_order_counts_and_ratios():
    calls = []
    times = bench.interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, repeats=3, warmup=2)
    assert calls == ["a", "b"] * 5  # two warm-up rounds, then three timed rounds, always A B
    assert {name: len(values) for name, values in times.items()} == {"a": 3, "b": 3}
    fixed = {"fast": [1.0, 9.0, 2.0], "slow": [4.0, 4.0, 100.0]}
    assert bench.medians(fixed) == {"fast": 2.0, "slow": 4.0}
    assert bench.ratios(fixed, "fast") == {"fast": 1.0, "slow": 2.0}

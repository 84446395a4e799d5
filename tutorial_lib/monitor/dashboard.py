"""The live view of a Monitor: ipywidgets while training runs, a static matplotlib picture when it ends.

Widgets are created and displayed in the main thread (the notebook's). The monitor's sampler thread only
samples; the widgets' values are set from the thread that runs the training loop, between steps (each
`Monitor.record_step` or `timed_step`), at most `max_updates_per_s` times a second,
plus once when the run ends. Front ends that do not render widget messages sent from a background thread
(Google Colab: googlecolab/colabtools#3373) still see the view move. A step that blocks longer than the refresh
period freezes the view only until it returns: the next refresh shows the latest sample. When the run ends --
normally, by an exception or by the stop button -- the sampler is stopped and joined and a static figure of
the whole run is left in the notebook, so a saved notebook (and CI) shows what happened.

For a student who cannot see the bars: `announce` is a text line (an ARIA live region, role "status", polite)
that states the verdict, the wait share, the speed and each queue's fill, at most once every `announce_every_s`
seconds and only when it changed; each bar has the queue's name and "n / capacity" as text beside it (its colour,
the queue's in the fill trace, only repeats that); the final
figure carries a text alternative (`run_description`). The knob panel is number boxes with labels (a screen
reader names them; arrow keys step them) linked to sliders. Checked in Chromium's accessibility tree by
tests/test_browser.py.

    monitor = Monitor(probes)
    with LiveDashboard(monitor, title="input-bound run"):
        for step in range(steps):
            monitor.timed_step(get_batch, train_on, batch_size)
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display
from matplotlib.figure import Figure

from tutorial_lib.monitor import INPUT_BOUND, MODERATELY_INPUT_BOUND, Monitor, Snapshot, verdict
from tutorial_lib.plots import (
    COMPUTE,
    LINE_STYLES,
    SERIES,
    VERDICT_COLOURS,
    VERDICT_TEXT,
    WAITING,
    WAITING_HATCH,
    DescribedFigure,
    described,
    number,
)

_BADGE_COLOURS = VERDICT_COLOURS  # the course palette's verdict scale (plots.py); text colours in VERDICT_TEXT
_TRACE_COLOURS = list(SERIES)
_DASHES = ["", "6 3", "2 2", "6 2 2 2", "8 2 2 2 2 2"]  # the sparkline's second cue per queue (SVG dash arrays)
MUTED = "#595959"  # secondary text: 7:1 on white, 6.6:1 on the sparkline's #fafafa
TEXT_COLOURS = [(MUTED, "#ffffff"), (MUTED, "#fafafa"), ("#000000", "#fafafa")]  # (text, background) pairs shown


class LiveDashboard:
    """One bar per queue (count/capacity), a live fill trace, examples/s, step time, and a verdict badge."""

    def __init__(self, monitor: Monitor, title: str = "", max_updates_per_s: float = 5.0, show: bool = True,
                 announce_every_s: float = 5.0):
        self.monitor, self.title, self.show = monitor, title, show
        self._period = 1.0 / max_updates_per_s
        self._last_update = 0.0
        self._last_trace = 0.0
        self.announce_every_s = announce_every_s
        self._last_announce = -float("inf")
        self.announced: list[str] = []
        self.updates = 0
        self.figure: Figure | None = None
        # Each bar in its queue's colour in the fill trace (the course palette, not ipywidgets' bar styles); the
        # "n / capacity" label beside it carries the value, so the colour is never the only cue.
        self.bars = {p.name: widgets.FloatProgress(value=0.0, min=0.0, max=1.0, description=_short(p.name),
                                                   layout=widgets.Layout(width="420px"),
                                                   style={"description_width": "140px",
                                                          "bar_color": _TRACE_COLOURS[k % len(_TRACE_COLOURS)]})
                     for k, p in enumerate(monitor.probes)}
        self.counts = {p.name: widgets.Label(value=f"0 / {p.capacity}") for p in monitor.probes}
        self.trace = widgets.HTML(value=_sparkline({}, 0))
        self.stats = widgets.HTML(value="waiting for the first step...")
        self.badge = widgets.HTML(value="")
        self.gpu = widgets.HTML(value=gpu_text(monitor, None, 0.0))
        self.announce = widgets.HTML(value=_live_region(f"{title + ': ' if title else ''}waiting for the first step"))
        rows = [widgets.HBox([self.bars[name], self.counts[name]]) for name in self.bars]
        header = widgets.HTML(value=f"<b>{html.escape(title)}</b>") if title else widgets.HTML()
        self.view = widgets.VBox([header, self.announce, *rows, self.trace, widgets.HBox([self.badge, self.stats]),
                                  self.gpu])
        monitor.step_listeners.append(self._on_step)

    # Called from the training loop's thread after every step: set values only, batched, rate-limited.
    def _on_step(self) -> None:
        now = time.perf_counter()
        if now - self._last_update < self._period:
            return
        self._last_update = now
        self.refresh(self.monitor.snapshot())

    def refresh(self, snapshot: Snapshot) -> None:
        """Set every widget's value from a snapshot (values only; called from the training loop's thread)."""
        for name, bar in self.bars.items():
            capacity = max(1, snapshot.capacities.get(name, 1))
            size = snapshot.sizes.get(name, 0)
            bar.value = size / capacity
            self.counts[name].value = f"{size} / {capacity}"
        now = time.perf_counter()
        if now - self._last_trace >= 0.5:  # the trace is the biggest message: twice a second is enough
            self._last_trace = now
            _, fractions = self.monitor.fill_history(last=150)
            self.trace.value = _sparkline(fractions, len(self.monitor.samples), last=150)
        colour, text = _BADGE_COLOURS[snapshot.verdict], VERDICT_TEXT[snapshot.verdict]
        self.badge.value = (f"<span style='background:{colour};color:{text};padding:2px 8px;border-radius:4px;"
                            f"border:1px solid #000'>verdict: {snapshot.verdict}</span>&nbsp;")
        self.stats.value = (f"step {snapshot.steps} &middot; waiting for input {100 * snapshot.wait_fraction:.0f}% "
                            f"&middot; {snapshot.examples_per_s:,.0f} examples/s &middot; "
                            f"{snapshot.step_ms:.1f} ms/step")
        if snapshot.gpu is not None:
            self.gpu.value = gpu_text(self.monitor, snapshot.gpu, snapshot.wait_fraction)
        self._announce(snapshot)
        self.updates += 1

    def _announce(self, snapshot: Snapshot, final: bool = False) -> None:
        """Set the live region's line when it changed and `announce_every_s` has passed (always at the end)."""
        now = time.perf_counter()
        if not final and (snapshot.steps == 0 or now - self._last_announce < self.announce_every_s):
            return  # nothing measured yet (warm-up), or said too recently
        line = status_line(snapshot, self.title, final)
        if not self.announced or line != self.announced[-1]:
            self._last_announce = now
            self.announced.append(line)
            self.announce.value = _live_region(line)

    def __enter__(self) -> LiveDashboard:
        if self.show:
            display(self.view)
        self.monitor.start()
        return self

    def __exit__(self, exc_type: type | None, *exc: object) -> None:
        self.monitor.stop(raise_errors=exc_type is None)  # joins the sampler: nothing runs after the cell
        self.refresh(self.monitor.snapshot())
        self._announce(self.monitor.snapshot(), final=True)
        self.figure = run_figure(self.monitor, self.title)
        if self.show:
            display(self.figure)


def status_line(snapshot: Snapshot, title: str = "", final: bool = False) -> str:
    """Return the dashboard's line for assistive technology: verdict, wait share, speed and each queue's fill."""
    queues = "; ".join(f"{_short(name)} {snapshot.sizes.get(name, 0)} of {capacity}"
                       for name, capacity in snapshot.capacities.items())
    return (f"{title + ': ' if title else ''}{'finished, ' if final else ''}{snapshot.verdict} after "
            f"{snapshot.steps} measured step{'' if snapshot.steps == 1 else 's'}, waiting for input "
            f"{100 * snapshot.wait_fraction:.0f}% of step time, "
            f"{snapshot.examples_per_s:,.0f} examples/s, {snapshot.step_ms:.1f} ms per step"
            + (f". Queues: {queues}." if queues else "."))


def _live_region(text: str) -> str:
    return (f"<div role='status' aria-live='polite' aria-atomic='true' style='font-size:12px;color:{MUTED}'>"
            f"{html.escape(text)}</div>")


def gpu_text(monitor: Monitor, reading: Any, wait_fraction: float) -> str:
    """Return the GPU panel's line: utilisation, memory and the GPU's wait for input, or why there is no panel."""
    if monitor.gpu is None:
        return f"<span style='color:{MUTED}'>GPU panel: {html.escape(monitor.gpu_note)}</span>"
    if reading is None:
        return f"<b>{html.escape(monitor.gpu_note)}</b>: waiting for the first reading..."
    return (f"<b>{html.escape(monitor.gpu_note)}</b>: utilisation {100 * reading.utilization:.0f}% &middot; memory "
            f"{reading.memory_used_mib:,.0f} / {reading.memory_total_mib:,.0f} MiB &middot; "
            f"the GPU waits for input {100 * wait_fraction:.0f}% of step time")


def _short(name: str, width: int = 22) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def _sparkline(fractions: dict[str, Sequence[float]], count: int, width: int = 560, height: int = 90,
               last: int = 300) -> str:
    """Return an inline SVG with one polyline per queue: fill fraction over the last `last` samples."""
    lines = []
    for k, (name, values) in enumerate(fractions.items()):
        values = list(values)[-last:]
        if len(values) < 2:
            continue
        step = width / (len(values) - 1)
        points = " ".join(f"{i * step:.0f},{height - 4 - v * (height - 8):.0f}" for i, v in enumerate(values))
        colour, dash = _TRACE_COLOURS[k % len(_TRACE_COLOURS)], _DASHES[k % len(_DASHES)]
        lines.append(f"<polyline fill='none' stroke='{colour}' stroke-width='1.5' stroke-dasharray='{dash}' "
                     f"points='{points}'/><line x1='4' x2='22' y1='{9 + 12 * k}' y2='{9 + 12 * k}' stroke='{colour}' "
                     f"stroke-width='2' stroke-dasharray='{dash}'/><text x='26' y='{12 + 12 * k}' font-size='10' "
                     f"fill='#000'>{html.escape(name)}</text>")
    label = f"fill level of each queue, last {min(count, last)} samples" + "".join(
        f"; {name}: now {100 * list(values)[-1]:.0f}%" for name, values in fractions.items() if len(values))
    return (f"<svg role='img' aria-label='{html.escape(label, quote=True)}' width='{width}' height='{height}' "
            f"style='background:#fafafa;border:1px solid #ddd'>{''.join(lines)}</svg>"
            f"<div aria-hidden='true' style='font-size:10px;color:{MUTED}'>fill level, last {min(count, last)} "
            f"samples</div>")


def run_figure(monitor: Monitor, title: str = "") -> Figure:
    """Draw a whole run: each queue's fill level over time, and each step's wait vs compute time."""
    times, fractions = monitor.fill_history()
    step_times, waits, computes = monitor.step_history()
    snapshot = monitor.snapshot()
    gpu_times, utilization, _ = monitor.gpu_history()
    rows = 3 if gpu_times else 2
    fig, axes = plt.subplots(rows, 1, figsize=(8, 5 if rows == 2 else 7), layout="constrained",
                             FigureClass=DescribedFigure)
    plt.close(fig)
    top, bottom = axes[0], axes[1]
    if gpu_times:
        axes[2].plot(gpu_times, 100 * np.asarray(utilization), color=SERIES[0])
        axes[2].set(xlabel="seconds", ylabel="GPU utilisation %", ylim=(-5, 105),
                    title=f"{monitor.gpu_note}: the GPU waits for input {100 * snapshot.wait_fraction:.0f}% "
                          "of step time")
    for k, (name, values) in enumerate(fractions.items()):
        top.plot(times, values, label=_short(name, 40), color=SERIES[k % len(SERIES)],
                 ls=LINE_STYLES[k % len(LINE_STYLES)])
    top.set(ylabel="fill fraction", ylim=(-0.05, 1.05), xlabel="seconds")
    if fractions:
        top.legend(loc="upper right", fontsize=8)
    else:  # e.g. Keras fit straight from a tf.data pipeline: nothing to sample, the steps below tell the story
        top.text(0.5, 0.5, "no queue watched in this run", ha="center", va="center", transform=top.transAxes,
                 color="#666")
    steps = np.arange(1, len(waits) + 1)
    bottom.bar(steps, 1000 * np.asarray(computes), color=COMPUTE, label="computing", width=1.0)
    bottom.bar(steps, 1000 * np.asarray(waits), bottom=1000 * np.asarray(computes), color=WAITING,
               hatch=WAITING_HATCH, edgecolor="white", linewidth=0, label="waiting for input (hatched)", width=1.0)
    warmup = monitor.warmup_in_history()
    if warmup:
        bottom.axvline(warmup + 0.5, color="black", ls=":", lw=1.2,
                       label=f"end of the {warmup} warm-up step{'' if warmup == 1 else 's'} (not counted)")
    bottom.set(xlabel="training step", ylabel="ms per step")
    bottom.legend(loc="upper right", fontsize=8)
    fig.suptitle(f"{title}: {snapshot.verdict}, {100 * snapshot.wait_fraction:.0f}% of step time waiting for "
                 f"input (thresholds {100 * MODERATELY_INPUT_BOUND:.0f}% / {100 * INPUT_BOUND:.0f}%)",
                 fontsize=10)
    return described(fig, *run_description(monitor, title))


def swings(values: Sequence[float], low_q: float = 10, high_q: float = 90) -> tuple[float, float, int] | None:
    """Return (low, high, crossings) when a fill level oscillates: its 10th and 90th percentiles at least 0.1
    apart and at least 4 crossings of the level halfway between them; else None."""
    v = np.asarray(values, dtype=float)
    if len(v) < 5:
        return None
    low, high = np.percentile(v, [low_q, high_q])
    if high - low < 0.1:
        return None
    side = np.sign(v - (low + high) / 2)
    side = side[side != 0]
    crossings = int(np.sum(side[1:] != side[:-1]))
    return (float(low), float(high), crossings) if crossings >= 4 else None


def run_description(monitor: Monitor, title: str = "") -> tuple[str, str]:
    """Return the text alternative of a run's figure, as (summary, details): the verdict, then the step times after
    the warm-up steps, each queue's fill (and its swing, when it oscillates) and the GPU."""
    times, fractions = monitor.fill_history()
    _, waits, computes = monitor.step_history()
    snapshot = monitor.snapshot()
    waits, computes = 1000 * np.asarray(waits), 1000 * np.asarray(computes)
    warmup = monitor.warmup_in_history()
    summary = (f"{title + ': ' if title else ''}{snapshot.verdict}, {100 * snapshot.wait_fraction:.0f}% of step time "
               f"waiting for input (thresholds {100 * MODERATELY_INPUT_BOUND:.0f}% and {100 * INPUT_BOUND:.0f}%)")
    parts = []
    counted_waits, counted_computes = waits[warmup:], computes[warmup:]
    if len(counted_waits):
        after = (f" after the {warmup} warm-up step{'' if warmup == 1 else 's'} (steps 1 to {warmup}, which the "
                 f"verdict leaves out; they waited up to {number(waits[:warmup].max(), 2)} ms)") if warmup else ""
        parts.append(f"Step time, {len(counted_waits)} steps{after}: computing {number(counted_computes.min(), 2)} "
                     f"to {number(counted_computes.max(), 2)} ms each (median "
                     f"{number(np.median(counted_computes), 2)}); waiting for input median "
                     f"{number(np.median(counted_waits), 2)} ms, highest {number(counted_waits.max(), 2)} ms at step "
                     f"{warmup + int(counted_waits.argmax()) + 1}.")
    elif len(waits):
        parts.append(f"Only the {warmup} warm-up steps were recorded.")
    else:
        parts.append("No step was recorded.")
    if fractions:
        parts.append(f"Queue fill over {number(times[-1] - times[0], 2) if len(times) > 1 else 0} s: " + "; ".join(
            f"{name} median {100 * np.median(v):.0f}% full (lowest {100 * np.min(v):.0f}%, highest "
            f"{100 * np.max(v):.0f}%)" + _swing_text(v) for name, v in fractions.items()) + ".")
    else:
        parts.append("No queue watched in this run.")
    gpu_times, utilization, _ = monitor.gpu_history()
    if gpu_times:
        parts.append(f"{monitor.gpu_note}: utilisation median {100 * np.median(utilization):.0f}%, highest "
                     f"{100 * np.max(utilization):.0f}%.")
    return summary, " ".join(parts)


def _swing_text(values: Sequence[float]) -> str:
    found = swings(values)
    if found is None:
        return ""
    low, high, crossings = found
    return (f", swinging between {100 * low:.0f}% and {100 * high:.0f}% (10th and 90th percentiles; {crossings} "
            f"crossings of the level between them)")


def compare_figure(results: dict[str, float], title: str = "Share of step time waiting for input") -> Figure:
    """Draw the wait fraction of several runs side by side, with the verdict thresholds."""
    fig, ax = plt.subplots(figsize=(7, 3), layout="constrained", FigureClass=DescribedFigure)
    plt.close(fig)
    names = list(results)
    values = [100 * results[n] for n in names]
    verdicts = [verdict(v / 100) for v in values]
    bars = ax.barh(names, values, color=[_BADGE_COLOURS[v] for v in verdicts], edgecolor="black", linewidth=0.5)
    ax.bar_label(bars, labels=[f" {v:.0f}% {name}" for v, name in zip(values, verdicts, strict=True)], fontsize=8)
    for threshold in (MODERATELY_INPUT_BOUND, INPUT_BOUND):
        ax.axvline(100 * threshold, color="grey", linestyle="--", linewidth=1)
    ax.set(xlabel="% of step time waiting for input", title=title, xlim=(0, 100))
    ax.invert_yaxis()
    return described(fig, f"{title}, per run: " + "; ".join(
        f"{name} {v:.0f}%, {kind}" for name, v, kind in zip(names, values, verdicts, strict=True)),
        f"One bar per run, its length the share, with the verdict written beside it. Thresholds at "
        f"{100 * MODERATELY_INPUT_BOUND:.0f}% and {100 * INPUT_BOUND:.0f}%.")


def agreement_figure(pairs: dict[str, tuple[float, float]],
                     labels: tuple[str, str] = ("dashboard", "profiler"),
                     verdicts: dict[str, tuple[str | None, str | None]] | None = None) -> Figure:
    """Draw two readings of the input-wait share per run side by side (e.g. dashboard vs profiler).

    `verdicts` gives, per run, the verdict each reading itself reached (e.g. the profiler's analyzer saying
    "potentially input-bound" at 0% input); a missing one (or None) is the verdict of the share by the
    thresholds. Each bar has "share, verdict" written beside it, zero-length ones too."""
    fig, ax = plt.subplots(figsize=(8, 0.8 + 0.8 * len(pairs)), layout="constrained", FigureClass=DescribedFigure)
    plt.close(fig)
    rows = np.arange(len(pairs))
    said = {name: tuple((verdicts or {}).get(name, (None, None))[k] or verdict(pair[k]) for k in range(2))
            for name, pair in pairs.items()}
    for k, (label, hatch) in enumerate(zip(labels, ("", "//"), strict=True)):
        values = [100 * pair[k] for pair in pairs.values()]
        kinds = [said[name][k] for name in pairs]
        bars = ax.barh(rows + (k - 0.5) * 0.38, values, height=0.36, label=label, hatch=hatch,
                       color=[_BADGE_COLOURS.get(kind, _BADGE_COLOURS[verdict(v / 100)])
                              for kind, v in zip(kinds, values, strict=True)],
                       edgecolor="black", linewidth=0.5)
        ax.bar_label(bars, labels=[f" {label} {v:.0f}%, {kind}" for v, kind in zip(values, kinds, strict=True)],
                     fontsize=7)
    for threshold in (MODERATELY_INPUT_BOUND, INPUT_BOUND):
        ax.axvline(100 * threshold, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(rows, list(pairs))
    ax.set(xlabel="% of step time waiting for input (plain: first, hatched: second)", xlim=(0, 135),
           title=f"{labels[0]} vs {labels[1]}: share and verdict of each")
    ax.set_xticks(range(0, 101, 20))  # the room right of 100% is for the labels
    ax.invert_yaxis()
    ax.legend(loc="lower right")
    same = [name for name in pairs if said[name][0] == said[name][1]]
    differ = [name for name in pairs if name not in same]
    return described(fig, f"{labels[0]} and {labels[1]} reach the same verdict on {len(same)} of {len(pairs)} runs"
                          + (f" (not on {', '.join(differ)})" if differ else ""),
                     f"{labels[0]} vs {labels[1]}, % of step time waiting for input per run (first plain, second "
                          f"hatched), with the verdict each reached written beside its bar: " + "; ".join(
                              f"{name}: {labels[0]} {100 * a:.0f}%, {said[name][0]}; {labels[1]} {100 * b:.0f}%, "
                              f"{said[name][1]}" for name, (a, b) in pairs.items()) +
                     f". Thresholds at {100 * MODERATELY_INPUT_BOUND:.0f}% and {100 * INPUT_BOUND:.0f}%" +
                     (f" ({labels[1]}'s analyzer adds its own hedge, 'potentially input-bound', from time it cannot "
                      f"attribute)" if any(v[1] == "potentially input-bound" for v in said.values()) else "") + ".")


def knob_sliders(defaults: dict[str, int | float], ranges: dict[str, tuple[float, float, float]]) -> widgets.VBox:
    """Return a row per knob (name -> (min, max, step)): a labelled number box linked to a slider; read them with
    `knob_values(box)`. The number box is what a keyboard or a screen reader uses (a labelled spin button; the
    arrow keys step it): ipywidgets' sliders have no accessible name."""
    rows = []
    for name, value in defaults.items():
        low, high, step = ranges[name]
        whole = isinstance(value, int) and float(step).is_integer()
        box = (widgets.BoundedIntText if whole else widgets.BoundedFloatText)(
            value=value, min=low, max=high, step=step, description=name, style={"description_width": "150px"},
            layout=widgets.Layout(width="260px"))
        slider = (widgets.IntSlider if whole else widgets.FloatSlider)(
            value=value, min=low, max=high, step=step, readout=False, layout=widgets.Layout(width="220px"),
            tooltip=name)
        widgets.jslink((box, "value"), (slider, "value"))
        rows.append(widgets.HBox([box, slider]))
    return widgets.VBox(rows)


def knob_values(box: widgets.VBox) -> dict[str, int | float]:
    """Return the current value of every knob in a knob panel."""
    return {row.children[0].description: row.children[0].value for row in box.children}

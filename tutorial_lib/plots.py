"""Static pictures the notebooks show: digits, molecules (layout lives here, not in cells).

Each function returns a closed matplotlib Figure, so it is drawn exactly once: when it is the last
expression of a cell (or passed to `display`).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure


def show_digits(images: np.ndarray, labels: Sequence[int], columns: int = 8) -> Figure:
    """Draw images in a grid, each titled with its label."""
    rows = int(np.ceil(len(images) / columns))
    fig, axes = _figure(rows, columns, figsize=(columns * 1.1, rows * 1.25), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, image, label in zip(axes.flat, images, labels, strict=False):
        ax.imshow(np.squeeze(image), cmap="gray_r", vmin=0, vmax=255)
        ax.set_title(f"label {int(label)}", fontsize=9)
    return fig


def show_molecules(sizes: Sequence[int], energies: Sequence[float]) -> Figure:
    """Draw the spread of molecule sizes and energy against size."""
    fig, (left, right) = _figure(1, 2, figsize=(9, 3))
    left.hist(sizes, bins=np.arange(min(sizes), max(sizes) + 2) - 0.5, color="tab:blue")
    left.set(xlabel="atoms per molecule", ylabel="molecules", title="Sizes vary from molecule to molecule")
    right.scatter(sizes, energies, s=6, alpha=0.5, color="tab:orange")
    right.set(xlabel="atoms per molecule", ylabel="energy (eV)", title="Morse pair energy")
    return fig


def _figure(rows: int, columns: int, **options) -> tuple[Figure, np.ndarray]:
    """Create a figure through pyplot (which sets up notebook display) and close it at once."""
    fig, axes = plt.subplots(rows, columns, layout="constrained", **options)
    plt.close(fig)
    return fig, axes


def show_curves(curves: dict[str, Sequence[float]], xlabel: str = "step", ylabel: str = "loss",
                title: str = "", x: Sequence[float] | None = None, logx: bool = False, logy: bool = False,
                integer_x: bool = False) -> Figure:
    """Draw one line per named curve on shared axes (against `x` if given, else the index); `logy` for values
    spanning orders of magnitude, `integer_x` for whole-number ticks (epochs, steps)."""
    from matplotlib.ticker import MaxNLocator

    fig, ax = _figure(1, 1, figsize=(6, 3))
    for (name, values), style in zip(curves.items(), ["-", "--", ":", "-."] * 4, strict=False):
        ax.plot(np.arange(len(values)) if x is None else x, values, style, marker="o" if x is not None else None,
                label=name)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title, xscale="log" if logx else "linear",
           yscale="log" if logy else "linear")
    if integer_x:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()
    return fig


def show_feed_cost(bytes_per_feed: Sequence[int], ms_per_run: dict[str, Sequence[float]]) -> Figure:
    """Draw the time of a `run` that only feeds, against the bytes fed, one line per way of feeding."""
    fig, ax = _figure(1, 1, figsize=(6, 3.2))
    megabytes = np.asarray(bytes_per_feed) / 1e6
    for name, values in ms_per_run.items():
        ax.plot(megabytes, values, marker="o", label=name)
    ax.set(xscale="log", yscale="log", xlabel="MB fed per run", ylabel="ms per run (median)",
           title="What a feed costs: a copy, or nothing")
    ax.legend(fontsize="small")
    return fig


def show_pipeline(stages: Sequence[str], per_row: int = 4, title: str = "") -> Figure:
    """Draw pipeline stages as boxes joined by arrows, `per_row` boxes per row, read left to right."""
    rows = int(np.ceil(len(stages) / per_row))
    fig, ax = _figure(1, 1, figsize=(2.6 * per_row, 1.3 * rows + 0.3))
    ax.set(xlim=(0, per_row), ylim=(0, rows), title=title)
    ax.axis("off")
    centres = [(k % per_row + 0.5, rows - k // per_row - 0.5) for k in range(len(stages))]
    for (x, y), text in zip(centres, stages, strict=True):
        ax.text(x, y, text, ha="center", va="center", fontsize=9, wrap=True,
                bbox={"boxstyle": "round,pad=0.4", "facecolor": "#e8f0fe", "edgecolor": "#3366cc"})
    for (x0, y0), (x1, y1) in zip(centres, centres[1:], strict=False):
        if y0 == y1:
            ax.annotate("", (x1 - 0.42, y1), (x0 + 0.42, y0), arrowprops={"arrowstyle": "->"})
        else:
            ax.annotate("", (x1, y1 + 0.25), (x0, y0 - 0.25),
                        arrowprops={"arrowstyle": "->", "connectionstyle": "angle,angleA=0,angleB=90"})
    return fig


def show_bars(groups: dict[str, dict[str, float]], ylabel: str, title: str = "") -> Figure:
    """Draw one panel per group, one bar per named value (e.g. {'graph size (MB)': {'constant': 12.5, ...}})."""
    fig, axes = _figure(1, len(groups), figsize=(4 * len(groups), 3), squeeze=False)
    labels = list(dict.fromkeys(label for values in groups.values() for label in values))
    colour = dict(zip(labels, [f"C{i}" for i in range(len(labels))], strict=True))  # same label, same colour
    for ax, (name, values) in zip(axes.flat, groups.items(), strict=True):
        ax.bar(list(values), list(values.values()), color=[colour[label] for label in values])
        ax.set(title=name, ylabel=ylabel)
    fig.suptitle(title)
    return fig


def show_ptb_layout(stream: Sequence[int], batch_size: int, num_steps: int, step: int = 0) -> Figure:
    """Draw how a token stream is cut into rows and windows; outline window `step`'s x (solid) and y (dashed)."""
    from matplotlib.patches import Rectangle

    batch_len = len(stream) // batch_size
    epoch = (batch_len - 1) // num_steps
    data = np.asarray(stream[: batch_size * batch_len]).reshape(batch_size, batch_len)
    window = np.array([[c // num_steps if c // num_steps < epoch else -1 for c in range(batch_len)]] * batch_size)
    fig, ax = _figure(1, 1, figsize=(max(6.5, 0.6 * batch_len), 0.6 * batch_size + 1.2))
    ax.imshow(np.where(window < 0, np.nan, window), cmap="Pastel1", vmin=0, vmax=8, aspect="auto")
    for r in range(batch_size):
        for c in range(batch_len):
            ax.text(c, r, str(data[r, c]), ha="center", va="center", fontsize=9)
    x0 = step * num_steps
    ax.add_patch(Rectangle((x0 - 0.5, -0.5), num_steps, batch_size, fill=False, lw=2.5, edgecolor="tab:blue"))
    ax.add_patch(Rectangle((x0 + 0.5, -0.45), num_steps, batch_size - 0.1, fill=False, lw=2, ls="--",
                           edgecolor="tab:red"))
    ax.set(xticks=range(batch_len), yticks=range(batch_size), xlabel="position in row (batch_len columns)",
           ylabel="row (batch_size)", title=f"colour: window i · step {step}: x solid, y dashed")
    return fig


def show_pipeline_bench(results: dict) -> Figure:
    """Draw one panel per benchmark workload: each variant's speedup over naive, labelled with its efficiency."""
    names = [name for name in ("latency", "cpu", "copy") if name in results]
    fig, axes = _figure(1, len(names), figsize=(5 * len(names), 4.2), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=True):
        variants = results[name]["variants"]
        labels = list(variants)[::-1]
        speedups = [variants[v]["speedup_over_naive"] for v in labels]
        colours = ["tab:gray" if v in ("ceiling", "naive") else "tab:orange" if v in ("feed_dict", "autotune")
                   or v.startswith("queue") else "tab:blue" for v in labels]
        ax.barh(labels, speedups, color=colours)
        for y, v in enumerate(labels):
            f = variants[v]
            note = f"{100 * f['input_bound_fraction']:.0f}% waiting"
            if f["efficiency"]:
                note = f"{f['efficiency']:.2f} of {f['efficiency_vs']}, " + note
            ax.text(speedups[y], y, " " + note, va="center", fontsize=7)
        ax.axvline(1.0, color="black", lw=0.8)
        ax.set(title=f"{name} workload", xlabel="speedup over tf.data naive (median, same run)",
               xlim=(0, max(speedups) * 1.9))
    fig.suptitle("Input pipelines compared (grey: baselines, orange: TF1 and AUTOTUNE, blue: tf.data)")
    return fig


def show_drill(drills: dict[str, dict]) -> Figure:
    """Draw each fault drill as elements received over time, with the kill, the replacement and the end marked."""
    fig, axes = _figure(1, len(drills), figsize=(5.5 * len(drills), 3.4), squeeze=False)
    for ax, (name, drill) in zip(axes.flat, drills.items(), strict=True):
        zero = drill["times"][0]
        times = np.asarray(drill["times"]) - zero
        ax.plot(times, np.arange(1, len(times) + 1), color="tab:blue", lw=2, label="elements received")
        end = (drill["finished_s"] if drill["finished"] else drill["waited_s"]) - zero
        ax.plot([times[-1], end], [len(times)] * 2, color="tab:blue", ls=":", lw=2, label="waiting")
        ax.axvline(drill["killed_s"] - zero, color="tab:red", ls="--", label="worker 0 killed")
        if drill.get("restarted_s") is not None:
            ax.axvline(drill["restarted_s"] - zero, color="tab:green", ls="--", label="replacement ready")
        state = "finished" if drill["finished"] else "still waiting when stopped"
        ax.set(title=f"{name}: {len(drill['seen'])} received, {state}", ylabel="elements received",
               xlabel="seconds since the first element")
        ax.legend(loc="lower right", fontsize=8)
    return fig

"""Static pictures the notebooks show: digits, molecules (layout lives here, not in cells).

Each function returns a closed `DescribedFigure` (a matplotlib Figure), so it is drawn exactly once: when it is
the last expression of a cell (or passed to `display`). Its `description` is its text alternative, generated
from the data it plots; displayed, it becomes `<img alt="description">` (text/html, which JupyterLab and
Notebook 7 render with the alt that a screen reader reads; their own image/png renderer sets no alt) and the
description as text/plain. The site builder (classroom/site.py) turns it back into an image with that alt.

Colours come from one palette, Okabe & Ito's colour-blind-safe set (`OKABE_ITO`), in groups that are used
together (`SERIES`, `VERDICT_COLOURS`, `COMPUTE`/`WAITING`); tests/test_accessibility.py simulates
deuteranopia, protanopia and tritanopia on each group and on the colours each figure draws, and where two
series meet, line styles, markers, hatching or direct labels carry the difference too.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

# Okabe & Ito (2008), "Color Universal Design": eight colours distinguishable with every common CVD.
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish purple": "#CC79A7"}
GREY = "#999999"  # baselines and reference marks, always with a label or hatch beside it
# Series drawn together, in this order (curves, queues): the order that keeps them furthest apart under CVD.
SERIES = tuple(OKABE_ITO[n] for n in ("blue", "vermillion", "black", "sky blue", "reddish purple"))
LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)))  # a second cue for each series, beside its colour
MARKERS = ("o", "s", "^", "D", "v")
COMPUTE, WAITING = OKABE_ITO["blue"], OKABE_ITO["vermillion"]  # a step's two parts; waiting is also hatched
WAITING_HATCH = "////"
# The verdict scale, worst to best, and the text colour on each (WCAG 1.4.3: at least 4.5:1).
VERDICT_COLOURS = {"input-bound": OKABE_ITO["vermillion"], "moderately input-bound": OKABE_ITO["yellow"],
                   "compute-bound": OKABE_ITO["blue"]}
VERDICT_TEXT = {"input-bound": "#000000", "moderately input-bound": "#000000", "compute-bound": "#FFFFFF"}
FIGURE_HTML = re.compile(r'^<img alt="([^"]*)" src="data:image/png;base64,([A-Za-z0-9+/=\s]+)"')


class DescribedFigure(Figure):
    """A Figure with a text alternative (`description`), displayed as an image that carries it."""

    description: str = ""

    def _ipython_display_(self) -> None:
        """Display as <img alt> (text/html) with the description as text/plain."""
        from IPython.core.pylabtools import print_figure
        from IPython.display import display

        png = print_figure(self, "png", base64=True)
        alt = html.escape(self.description or "figure with no description", quote=True)
        display({"text/html": f'<img alt="{alt}" src="data:image/png;base64,{png}">',
                 "text/plain": f"[figure: {self.description}]"}, raw=True)


def figure_alt(data: dict) -> tuple[str, str] | None:
    """Return (alt text, base64 PNG) of a displayed DescribedFigure's output data, or None for other outputs."""
    match = FIGURE_HTML.match(data.get("text/html", "") if isinstance(data.get("text/html"), str)
                              else "".join(data.get("text/html", [])))
    return (html.unescape(match.group(1)), match.group(2)) if match else None


def number(value: float, digits: int = 3) -> str:
    """Format a value for a description: `digits` significant digits, thousands separated, tiny ones as 10^n."""
    value = float(value)
    if value == 0 or not np.isfinite(value):
        return f"{value:g}"
    if abs(value) < 1e-4:  # e.g. 5.68 × 10^-9, not a row of zeros
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')} × 10^{int(exponent)}"
    decimals = max(0, digits - 1 - int(np.floor(np.log10(abs(value)))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def described(fig: Figure, summary: str, details: str = "") -> Figure:
    """Set a figure's text alternative, one sentence saying what it shows and then the details; return the figure."""
    summary = " ".join(summary.split()).rstrip(".")
    if SENTENCE_END.search(summary) or len(summary.split()) > SUMMARY_WORDS:
        raise ValueError(f"a figure's summary is one sentence of at most {SUMMARY_WORDS} words: {summary!r}")
    first, _, rest = summary.partition(" ")
    if first.rstrip(",:;").isalpha() and first.islower():  # "dashboard and ..." -> "Dashboard and ...", never "Tf.data"
        summary = f"{first.capitalize()} {rest}".rstrip()
    text = f"{summary}." + (f" {details}" if details else "")
    fig.description = " ".join(text.split()).translate(str.maketrans("[]\"", "()'"))  # one line, no [ ] or "
    return fig


SENTENCE_END = re.compile(r"[.!?] ")  # what ends a sentence inside a description ("0.42" and "tf.data" do not)
SUMMARY_WORDS = 40  # the longest first sentence a description may open with


def summary_of(description: str) -> str:
    """The first sentence of a figure's description: what the figure shows."""
    end = SENTENCE_END.search(description + " ")
    return description[:end.start() + 1] if end else description


def _trend(values: np.ndarray) -> str:
    """How a curve goes from its first point to its last, in words."""
    if len(values) < 2:
        return f"is {number(values[0])}" if len(values) else "has no points"
    if values[-1] == values[0]:
        return f"ends where it started, at {number(values[0])}"
    return f"{'rises' if values[-1] > values[0] else 'falls'} from {number(values[0])} to {number(values[-1])}"


def show_digits(images: np.ndarray, labels: Sequence[int], columns: int = 8,
                row_titles: Sequence[str] | None = None) -> Figure:
    """Draw images in a grid, each titled with its label; `row_titles` names what each row shows (written at
    the row's left and in the description)."""
    rows = int(np.ceil(len(images) / columns))
    fig, axes = _figure(rows, columns, figsize=(columns * 1.1 + (1.6 if row_titles else 0), rows * 1.25),
                        squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, image, label in zip(axes.flat, images, labels, strict=False):
        ax.imshow(np.squeeze(image), cmap="gray_r", vmin=0, vmax=255)
        ax.set_title(f"label {int(label)}", fontsize=9)
    for r, text in enumerate(row_titles or []):
        axes[r, 0].text(-0.15, 0.5, text, transform=axes[r, 0].transAxes, ha="right", va="center", fontsize=9,
                        wrap=True)
    shape = "×".join(str(n) for n in np.squeeze(images[0]).shape) if len(images) else "no"
    shown = [str(int(label)) for label in labels[:len(images)]]
    if row_titles:
        order = "; ".join(f"row {r + 1}, {text}: labels {', '.join(shown[r * columns:(r + 1) * columns])}"
                          for r, text in enumerate(row_titles))
    else:
        order = f"the labels in order: {', '.join(shown)}"
    rows_said = f", in {rows} rows: {'; '.join(row_titles)}" if row_titles else ""
    return described(fig, f"{len(images)} grey-scale digit images, each titled with its label{rows_said}",
                     f"A grid of {columns} per row, {shape} pixels each; {order}.")


def show_molecules(sizes: Sequence[int], energies: Sequence[float]) -> Figure:
    """Draw the spread of molecule sizes and energy against size."""
    fig, (left, right) = _figure(1, 2, figsize=(9, 3))
    left.hist(sizes, bins=np.arange(min(sizes), max(sizes) + 2) - 0.5, color=SERIES[0], edgecolor="black")
    left.set(xlabel="atoms per molecule", ylabel="molecules", title="Sizes vary from molecule to molecule")
    right.scatter(sizes, energies, s=6, alpha=0.5, color=SERIES[1])
    right.set(xlabel="atoms per molecule", ylabel="energy (eV)", title="Morse pair energy")
    sizes_, energies_ = np.asarray(sizes, dtype=float), np.asarray(energies, dtype=float)
    low, high = int(sizes_.min()), int(sizes_.max())
    counts = np.bincount(np.asarray(sizes, dtype=int) - low, minlength=high - low + 1)
    trend = np.corrcoef(sizes_, energies_)[0, 1] if len(sizes_) > 1 and sizes_.std() and energies_.std() else 0.0
    spread = "almost evenly" if _spread_word(counts, low).startswith("an almost flat") else "unevenly"
    return described(fig, f"Molecule sizes spread {spread} from {low} to {high} atoms (left), and their Morse pair "
                          f"energy {'falls' if trend < 0 else 'rises'} with size (right)",
                     f"Left, sizes vary from molecule to molecule: a histogram of atoms per molecule for "
                          f"{len(sizes_)} molecules, from {low} to {high} atoms (median {number(np.median(sizes_))}); "
                          f"each of the {len(counts)} sizes holds between {int(counts.min())} and "
                          f"{int(counts.max())} molecules (median {number(np.median(counts))} per size), "
                          f"{_spread_word(counts, low)}. Right, Morse pair energy against size: energies from "
                          f"{number(energies_.min())} to {number(energies_.max())} eV, "
                          f"{'falling' if trend < 0 else 'rising'} with size (correlation {trend:.2f}).")


def _spread_word(counts: np.ndarray, low: int) -> str:
    """Say whether a histogram is about flat (every bar between half and 1.5 times the median bar)."""
    median = float(np.median(counts))
    if median > 0 and counts.min() >= 0.5 * median and counts.max() <= 1.5 * median:
        return "an almost flat spread: no size stands out"
    return f"an uneven spread, the most common size {low + int(np.argmax(counts))} atoms"


def _figure(rows: int, columns: int, **options) -> tuple[Figure, np.ndarray]:
    """Create a figure through pyplot (which sets up notebook display) and close it at once."""
    fig, axes = plt.subplots(rows, columns, layout="constrained", FigureClass=DescribedFigure, **options)
    plt.close(fig)
    return fig, axes


def show_curves(curves: dict[str, Sequence[float]], xlabel: str = "step", ylabel: str = "loss",
                title: str = "", x: Sequence[float] | None = None, logx: bool = False, logy: bool = False,
                integer_x: bool = False) -> Figure:
    """Draw one line per named curve on shared axes (against `x` if given, else the index); `logy` for values
    spanning orders of magnitude, `integer_x` for whole-number ticks (epochs, steps).

    The description names which axis is logarithmic, the x range, and per curve its direction and where it
    changes most (by factor on a log y axis, by amount on a linear one); a curve of at most `FEW_POINTS` points
    is given point by point (a lone curve on a linear y axis also with each point's change from its first), and
    two curves of the same length are said to agree closely when they stay within 5% of the plotted range of
    each other (their largest gap is given either way)."""
    from matplotlib.ticker import MaxNLocator

    fig, ax = _figure(1, 1, figsize=(6, 3))
    for k, (name, values) in enumerate(curves.items()):
        ax.plot(np.arange(len(values)) if x is None else x, values, ls=LINE_STYLES[k % len(LINE_STYLES)],
                marker=MARKERS[k % len(MARKERS)] if x is not None else None, color=SERIES[k % len(SERIES)],
                label=name)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title, xscale="log" if logx else "linear",
           yscale="log" if logy else "linear")
    if integer_x:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()
    longest = max((len(v) for v in curves.values()), default=0)
    xs = np.arange(longest) if x is None else np.asarray(x, dtype=float)
    scales = [f"{axis} axis" for axis, log in (("x", logx), ("y", logy)) if log]
    scale = f" ({' and '.join(scales)} logarithmic)" if scales else ""
    where = f", {xlabel} from {number(xs.min())} to {number(xs.max())}" if len(xs) else ""
    lines = "; ".join(_curve_text(name, np.asarray(v, dtype=float), xs[:len(v)], xlabel, logx, logy,
                                  len(curves) == 1) for name, v in curves.items())
    trends = "; ".join(f"{name} {_trend(np.asarray(v, dtype=float))}" for name, v in curves.items())
    return described(fig, f"{title + ', ' if title else ''}{ylabel} against {xlabel}: {trends}",
                     f"Plotted: {ylabel} against {xlabel}{scale}, {len(curves)} "
                     f"{'curve' if len(curves) == 1 else 'curves'}{where}. {lines}.{_agreement(curves, xs, xlabel)}")


FEW_POINTS = 8  # a curve with at most this many points is described point by point


def _curve_text(name: str, v: np.ndarray, xs: np.ndarray, xlabel: str, logx: bool, logy: bool, alone: bool) -> str:
    if len(v) == 0:
        return f"{name}: no points"
    text = f"{name}: {len(v)} {'point' if len(v) == 1 else 'points'}"
    if len(v) <= FEW_POINTS:
        text += ", " + ", ".join(f"{number(y)} at {number(at)}" for at, y in zip(xs, v, strict=True))
        if alone and not logy and len(v) > 1:
            text += " (" + ", ".join(f"{'+' if d >= 0 else ''}{number(d)}" for d in v[1:] - v[0]) + " over the first)"
    if len(v) < 2:
        return text
    direction = "rises" if v[-1] > v[0] else "falls" if v[-1] < v[0] else "ends where it started"
    text += f"; {direction} from {number(v[0])} to {number(v[-1])}"
    if len(v) > FEW_POINTS:
        text += f" (lowest {number(v.min())}, highest {number(v.max())})"
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.diff(np.log10(v)) if logy and (v > 0).all() else np.diff(v)
        run = np.diff(np.log10(xs)) if logx and (xs > 0).all() else np.diff(xs)  # "fastest": per unit of x as drawn
    if len(steps) > 1 and np.isfinite(steps).all() and np.abs(steps).max() > 0 and (run > 0).all():
        k = int(np.abs(steps / run).argmax())
        against = v[-1] != v[0] and np.sign(steps[k]) != np.sign(v[-1] - v[0])
        size = f"a factor of {number(10 ** abs(steps[k]), 2)}" if logy and (v > 0).all() else number(abs(steps[k]))
        text += (f", {'its largest single change' if against or v[-1] == v[0] else 'fastest'} between {xlabel} "
                 f"{number(xs[k])} and {number(xs[k + 1])} ({'down' if steps[k] < 0 else 'up'} {size}"
                 f"{', against the trend' if against else ''})")
    return text


def _agreement(curves: dict[str, Sequence[float]], xs: np.ndarray, xlabel: str) -> str:
    """Say how closely curves of the same length drawn against the same x agree (their largest gap)."""
    values = [np.asarray(v, dtype=float) for v in curves.values()]
    if len(values) != 2 or len(values[0]) != len(values[1]) or len(values[0]) == 0:
        return ""
    gap = np.abs(values[0] - values[1])
    k = int(gap.argmax())
    spread = max(v.max() for v in values) - min(v.min() for v in values)
    close = spread > 0 and gap[k] <= 0.05 * spread
    return (f" The two curves {'agree closely' if close else 'differ'}: at most {number(gap[k])} apart "
            f"(at {xlabel} {number(xs[k])}){', under 5% of the plotted range' if close else ''}.")


def show_feed_cost(bytes_per_feed: Sequence[int], ms_per_run: dict[str, Sequence[float]]) -> Figure:
    """Draw the time of a `run` that only feeds, against the bytes fed, one line per way of feeding."""
    fig, ax = _figure(1, 1, figsize=(6, 3.2))
    megabytes = np.asarray(bytes_per_feed) / 1e6
    for k, (name, values) in enumerate(ms_per_run.items()):
        ax.plot(megabytes, values, marker=MARKERS[k % len(MARKERS)], ls=LINE_STYLES[k % len(LINE_STYLES)],
                color=SERIES[k % len(SERIES)], label=name)
    ax.set(xscale="log", yscale="log", xlabel="float32 MB delivered per run", ylabel="ms per run (median)",
           title="What a feed costs: a copy, or nothing")
    ax.legend(fontsize="small")
    growth = {name: values[-1] / values[0] for name, values in ms_per_run.items()}
    lines = "; ".join(f"{name}: {number(values[0])} ms at {number(megabytes[0])} MB, {number(values[-1])} ms at "
                      f"{number(megabytes[-1])} MB ({number(growth[name], 2)} times)"
                      for name, values in ms_per_run.items())
    flat = [name for name, g in growth.items() if g < FLAT_GROWTH]
    grow = [name for name, g in growth.items() if g >= FLAT_GROWTH]
    more = number(megabytes[-1] / megabytes[0], 2)
    verdict = (f"Flat (under {FLAT_GROWTH:g} times over {more} times the bytes), "
               f"costing about nothing more per byte: {_names(flat)}; growing with the bytes, a copy: "
               f"{_names(grow)}.")
    return described(fig, f"What a feed costs, a copy or nothing: over {more} times the bytes, {_names(flat)} "
                          f"{'stays' if len(flat) == 1 else 'stay'} flat and {_names(grow)} "
                          f"{'grows' if len(grow) == 1 else 'grow'} with the bytes",
                     f"The median ms per run against the float32 MB delivered per run (an array converted from "
                     f"float64 is twice as many bytes before the conversion), log-log, {len(megabytes)} sizes from "
                     f"{number(megabytes[0])} to {number(megabytes[-1])} MB. {verdict} {lines}.")


FLAT_GROWTH = 2.0  # a feed's cost that grows less than this over the sizes drawn is called flat


def _names(names: Sequence[str]) -> str:
    quoted = [f"'{name}'" for name in names]
    return "none" if not quoted else quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def show_pipeline(stages: Sequence[str], per_row: int = 4, title: str = "") -> Figure:
    """Draw pipeline stages as boxes joined by arrows, `per_row` boxes per row, read left to right."""
    rows = int(np.ceil(len(stages) / per_row))
    fig, ax = _figure(1, 1, figsize=(2.6 * per_row, 1.3 * rows + 0.3))
    ax.set(xlim=(0, per_row), ylim=(0, rows), title=title)
    ax.axis("off")
    centres = [(k % per_row + 0.5, rows - k // per_row - 0.5) for k in range(len(stages))]
    for (x, y), text in zip(centres, stages, strict=True):
        ax.text(x, y, text, ha="center", va="center", fontsize=9, wrap=True,
                bbox={"boxstyle": "round,pad=0.4", "facecolor": "#e8f0fe", "edgecolor": OKABE_ITO["blue"]})
    for (x0, y0), (x1, y1) in zip(centres, centres[1:], strict=False):
        if y0 == y1:
            ax.annotate("", (x1 - 0.42, y1), (x0 + 0.42, y0), arrowprops={"arrowstyle": "->"})
        else:
            ax.annotate("", (x1, y1 + 0.25), (x0, y0 - 0.25),
                        arrowprops={"arrowstyle": "->", "connectionstyle": "angle,angleA=0,angleB=90"})
    said = [" ".join(str(stage).split()) for stage in stages]
    return described(fig, f"{title + ': ' if title else ''}a pipeline of {len(stages)} stages, each feeding the next, "
                          f"from {said[0]} to {said[-1]}", f"In order: {' → '.join(said)}.")


def show_bars(groups: dict[str, dict[str, float]], ylabel: str, title: str = "") -> Figure:
    """Draw one panel per group, one bar per named value (e.g. {'graph size (MB)': {'constant': 12.5, ...}})."""
    fig, axes = _figure(1, len(groups), figsize=(4 * len(groups), 3), squeeze=False)
    labels = list(dict.fromkeys(label for values in groups.values() for label in values))
    colour = {label: SERIES[i % len(SERIES)] for i, label in enumerate(labels)}  # same label, same colour
    for ax, (name, values) in zip(axes.flat, groups.items(), strict=True):
        bars = ax.bar(list(values), list(values.values()), color=[colour[label] for label in values],
                      edgecolor="black")
        ax.bar_label(bars, labels=[number(v) for v in values.values()], fontsize=8)  # the value, not only a height
        ax.set(title=name, ylabel=ylabel)
    fig.suptitle(title)
    panels = "; ".join(f"{name}: " + ", ".join(f"{label} {number(v)}" for label, v in values.items()) +
                       f" (highest: {max(values, key=values.get)})" for name, values in groups.items())
    tops = {name: max(values, key=values.get) for name, values in groups.items()}
    if len(groups) == 1:
        (name, values), = groups.items()
        low = min(values, key=values.get)
        summary = (f"{title or name}, {ylabel}: {tops[name]} highest at {number(values[tops[name]])}, {low} lowest "
                   f"at {number(values[low])}")
    elif len(set(tops.values())) == 1:
        every = "both" if len(groups) == 2 else f"all {len(groups)}"
        summary = f"{title + ', ' if title else ''}{ylabel}: {tops[next(iter(groups))]} is highest in {every} panels " \
                  f"({', '.join(groups)})"
    else:
        summary = f"{title + ', ' if title else ''}{ylabel}: " + "; ".join(
            f"{name}, {label} highest at {number(groups[name][label])}" for name, label in tops.items())
    return described(fig, summary,
                     f"A bar chart of {ylabel}, {len(groups)} {'panel' if len(groups) == 1 else 'panels'}. "
                     f"{panels}.")


def show_ptb_layout(stream: Sequence[int], batch_size: int, num_steps: int, step: int = 0) -> Figure:
    """Draw how a token stream is cut into rows and windows; outline window `step`'s x (solid) and y (dashed).

    Windows are told apart without colour: each has a hatched header above the grid, labelled w0, w1, ...,
    and a dotted line at each window's left edge; the description gives every window's x and y columns."""
    from matplotlib.patches import Rectangle

    batch_len = len(stream) // batch_size
    epoch = (batch_len - 1) // num_steps
    data = np.asarray(stream[: batch_size * batch_len]).reshape(batch_size, batch_len)
    fig, ax = _figure(1, 1, figsize=(max(6.5, 0.6 * batch_len), 0.6 * batch_size + 1.6))
    for r in range(batch_size):
        for c in range(batch_len):
            ax.text(c, r, str(data[r, c]), ha="center", va="center", fontsize=9)
    for i in range(epoch):
        left = i * num_steps - 0.5
        ax.add_patch(Rectangle((left, -1.15), num_steps, 0.55, fill=False, hatch=PTB_HATCHES[i % len(PTB_HATCHES)],
                               edgecolor=OKABE_ITO["black"], lw=0.8))
        ax.text(left + num_steps / 2, -0.875, f"w{i}", ha="center", va="center", fontsize=9,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})
        if i:
            ax.axvline(left, color=OKABE_ITO["black"], ls=":", lw=1)
    if epoch * num_steps < batch_len:  # the columns no window's x reaches: the last y, then any unused
        ax.text((epoch * num_steps + batch_len - 1) / 2, -0.875, "y only" if batch_len - epoch * num_steps == 1
                else "y only, unused", ha="center", va="center", fontsize=8)
        ax.axvline(epoch * num_steps - 0.5, color=OKABE_ITO["black"], ls=":", lw=1)
    x0 = step * num_steps
    ax.add_patch(Rectangle((x0 - 0.5, -0.5), num_steps, batch_size, fill=False, lw=2.5, edgecolor=SERIES[0]))
    ax.add_patch(Rectangle((x0 + 0.5, -0.45), num_steps, batch_size - 0.1, fill=False, lw=2, ls="--",
                           edgecolor=SERIES[1]))
    ax.set(xlim=(-0.5, batch_len - 0.5), ylim=(batch_size - 0.5, -1.25), xticks=range(batch_len),
           yticks=range(batch_size), xlabel="position in row (batch_len columns)", ylabel="row (batch_size)",
           title=f"windows w0–w{epoch - 1} (hatched headers) · step {step}: x solid, y dashed")
    rows = "; ".join(f"row {r}: {' '.join(str(t) for t in data[r])}" for r in range(batch_size))
    windows = "; ".join(f"w{i}: x columns {_columns(i * num_steps, num_steps)}, y columns "
                        f"{_columns(i * num_steps + 1, num_steps)}" for i in range(epoch))
    only_y = epoch * num_steps
    return described(fig, f"A stream of {len(stream)} tokens cut into {batch_size} rows of {batch_len}, then into "
                          f"{epoch} windows of {num_steps} columns, window {step}'s x and y outlined",
                     f"Each row is a contiguous run of the stream (batch_len {batch_len}); the {epoch} windows "
                     f"(the epoch) are each labelled above the grid (w0, w1, …) with its own hatching. {windows}. "
                     f"Column 0 is only ever an x; column {only_y} "
                     f"{'(the last of each row) ' if only_y == batch_len - 1 else ''}appears only as a y, in "
                     f"w{epoch - 1}{_unused(batch_len - 1 - epoch * num_steps)}. Window {step} is outlined: x "
                     f"solid, y dashed. {rows}.")


PTB_HATCHES = ("//", "\\\\", "xx", "..", "oo", "--", "++", "||")  # one per window, beside its w label


def _columns(first: int, count: int) -> str:
    return str(first) if count == 1 else f"{first} to {first + count - 1}"


def _unused(columns: int) -> str:
    return f"; the last {columns} {'column' if columns == 1 else 'columns'} of each row unused" if columns else ""


def show_pipeline_bench(results: dict) -> Figure:
    """Draw one panel per benchmark workload: each variant's speedup over naive, labelled with its efficiency."""
    names = [name for name in ("latency", "cpu", "copy") if name in results]
    fig, axes = _figure(1, len(names), figsize=(5 * len(names), 4.2), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=True):
        variants = results[name]["variants"]
        labels = list(variants)[::-1]
        speedups = [variants[v]["speedup_over_naive"] for v in labels]
        groups = [_bench_group(v) for v in labels]
        ax.barh(labels, speedups, color=[BENCH_GROUPS[g][0] for g in groups],
                hatch=[BENCH_GROUPS[g][1] for g in groups], edgecolor="black", linewidth=0.5)
        for y, v in enumerate(labels):
            f = variants[v]
            note = f"{100 * f['input_bound_fraction']:.0f}% waiting"
            if f["efficiency"]:
                note = f"{f['efficiency']:.2f} of {f['efficiency_vs']}, " + note
            ax.text(speedups[y], y, " " + note, va="center", fontsize=7)
        ax.axvline(1.0, color="black", lw=0.8)
        ax.set(title=f"{name} workload", xlabel="speedup over tf.data naive (median, same run)",
               xlim=(0, max(speedups) * 1.9))
    fig.suptitle("Input pipelines compared (grey, dotted: baselines; vermillion, hatched: TF1; blue: tf.data; "
                 "sky blue, cross-hatched: tf.data with AUTOTUNE)")
    panels = "; ".join(f"{name} workload, top to bottom: " + ", ".join(
        _bench_bar(v, f) for v, f in results[name]["variants"].items()) for name in names)
    ends = "; ".join(_bench_extremes(name, results[name]["variants"]) for name in names)
    return described(fig, f"Speedup over tf.data naive, the fastest and the slowest pipeline other than the baselines "
                          f"(naive, ceiling) per workload: {ends}",
                     f"Each variant's speedup over tf.data naive (median of the same "
                     f"run), one bar per variant in the table's order, its group told by colour and hatching "
                     f"(baseline: grey, dotted; TF1: vermillion, hatched; tf.data: blue, plain; tf.data with AUTOTUNE: "
                     f"sky blue, cross-hatched) "
                     f"and written beside it with its ratio to the workload's yardstick and its share of time "
                     f"waiting for input. {panels}.")


def _bench_extremes(workload: str, variants: dict) -> str:
    """A workload's fastest and slowest pipeline (the baselines left out) and their speedups."""
    speed = {v: f["speedup_over_naive"] for v, f in variants.items() if _bench_group(v) != "baseline"} or {
        v: f["speedup_over_naive"] for v, f in variants.items()}
    fast, slow = max(speed, key=speed.get), min(speed, key=speed.get)
    return f"{workload} {fast} {speed[fast]:.2f}× and {slow} {speed[slow]:.2f}×"


def _bench_bar(variant: str, f: dict) -> str:
    """One bar of the benchmark chart in words: speedup, group, yardstick ratio (where it has one), waiting."""
    yardstick = f"{f['efficiency']:.2f} of {f['efficiency_vs']}; " if f["efficiency"] else ""
    return (f"{variant} {f['speedup_over_naive']:.2f}× ({_bench_group(variant)}; {yardstick}"
            f"{100 * f['input_bound_fraction']:.0f}% waiting)")


BENCH_GROUPS = {"baseline": (GREY, ".."), "TF1": (OKABE_ITO["vermillion"], "//"), "tf.data": (OKABE_ITO["blue"], ""),
                "tf.data with AUTOTUNE": (OKABE_ITO["sky blue"], "xx")}  # colour and hatch of each group of variants


def _bench_group(variant: str) -> str:
    if variant in ("ceiling", "naive"):
        return "baseline"
    if variant == "autotune":
        return "tf.data with AUTOTUNE"
    return "TF1" if variant == "feed_dict" or variant.startswith("queue") else "tf.data"


def show_drill(drills: dict[str, dict]) -> Figure:
    """Draw each fault drill as elements received over time, with the kill, the replacement and the end marked."""
    fig, axes = _figure(1, len(drills), figsize=(5.5 * len(drills), 3.4), squeeze=False)
    for ax, (name, drill) in zip(axes.flat, drills.items(), strict=True):
        zero = drill["times"][0]
        times = np.asarray(drill["times"]) - zero
        ax.plot(times, np.arange(1, len(times) + 1), color=SERIES[0], lw=2, label="elements received")
        end = (drill["finished_s"] if drill["finished"] else drill["waited_s"]) - zero
        ax.plot([times[-1], end], [len(times)] * 2, color=SERIES[0], ls=":", lw=2, label="waiting")
        ax.axvline(drill["killed_s"] - zero, color=SERIES[1], ls="--", label="worker 0 killed")
        if drill.get("restarted_s") is not None:
            ax.axvline(drill["restarted_s"] - zero, color=SERIES[2], ls="-.", label="replacement ready")
        state = "finished" if drill["finished"] else "still waiting when stopped"
        ax.set(title=f"{name}: {len(drill['seen'])} received, {state}", ylabel="elements received",
               xlabel="seconds since the first element")
        ax.legend(loc="lower right", fontsize=8)
    outcomes = "; ".join(
        f"{name} {'finished' if d['finished'] else 'was still waiting when stopped'} after {len(d['seen'])} elements, "
        f"{'with a' if d.get('restarted_s') is not None else 'with no'} replacement worker"
        for name, d in drills.items())
    return described(fig, f"Fault drills, elements received over time: {outcomes}",
                     "Elements received against seconds since each drill's first element (0 s here is that "
                     "element's arrival; the drill's printed times count from the client's start). " + " ".join(
        _drill_text(name, drill) for name, drill in drills.items()))


def _drill_text(name: str, drill: dict) -> str:
    zero = drill["times"][0]
    times = np.asarray(drill["times"], dtype=float) - zero
    end = (drill["finished_s"] if drill["finished"] else drill["waited_s"]) - zero
    killed, restart = drill["killed_s"] - zero, drill.get("restarted_s")
    text = (f"{name}: the first element arrived {number(zero, 2)} s after the client started; "
            f"{len(drill['seen'])} elements received in {number(times[-1], 2)} s, "
            f"{int(np.sum(times <= killed))} of them by the time worker 0 was killed at {number(killed, 2)} s")
    edges = np.append(times, max(end, times[-1]))  # the last gap: from the last element to the end
    gaps = np.diff(edges)
    if len(gaps) and gaps.max() > 0:
        k = int(gaps.argmax())
        text += (f"; the longest pause, nothing received, from {number(edges[k], 2)} to {number(edges[k + 1], 2)} s "
                 f"({number(gaps[k], 2)} s{', until the end' if k == len(gaps) - 1 else ''})")
    if restart is not None:
        restart -= zero
        after = times[times > restart]
        text += f"; its replacement ready at {number(restart, 2)} s, " + (
            f"after which {len(after)} more elements arrived, from {number(after[0], 2)} to "
            f"{number(after[-1], 2)} s (a second ramp)" if len(after) else "after which nothing more arrived")
    return text + f"; {'finished' if drill['finished'] else 'still waiting when stopped'} at {number(end, 2)} s."

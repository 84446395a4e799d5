"""Access (WCAG 2.1 AA) of what the course shows, without a browser: the palette under colour-vision deficiency,
text contrast, every figure's text alternative (from the library and in the committed notebooks), and the
notebooks' own Markdown (headings in order, link text that says where it goes, tables with headers).

Colour-vision deficiency is simulated with Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for
Simulation of Color Vision Deficiency", IEEE TVCG 15(6), at severity 1.0 (dichromacy): their matrices, applied to
linear sRGB, as colorspacious 1.1.2 does. Colours used together must stay at least MIN_DELTA_E apart in CIELAB
(ΔE*ab, CIE 1976, D65) in normal vision and under each simulation. The just-noticeable difference is about 2.3
(Mahy, Van Eycken & Oosterlinck 1994, Color Research & Application 19(2)); thin lines and small marks need several
times more (Stone, Szafir & Setlur 2014, "An Engineering Model for Color Difference as a Function of Size").
MIN_DELTA_E = 20 asks for about nine JNDs; the old green/red step picture measured 15.8 under deuteranopia.
Contrast is WCAG 2.1's ratio of relative luminances (success criterion 1.4.3: 4.5:1 for text).
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_hex, to_rgb

from tutorial_lib import plots
from tutorial_lib.classroom.course import read, source, tags
from tutorial_lib.monitor import dashboard

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
MIN_DELTA_E = 20.0
MIN_TEXT_CONTRAST = 4.5
# Machado et al. (2009), Table 1 (severity 1.0), for linear RGB.
MACHADO_2009 = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]],
}
VISIONS = ("normal", *MACHADO_2009)
# Colours the course uses together: each group must stay apart under every simulation.
GROUPS = {
    "series (curves, queues, bars)": plots.SERIES,
    "verdict scale (badge, compare and agreement bars)": tuple(plots.VERDICT_COLOURS.values()),
    "a step: computing vs waiting": (plots.COMPUTE, plots.WAITING),
    "benchmark groups": tuple(colour for colour, _ in plots.BENCH_GROUPS.values()),
}
GENERIC_ALT = re.compile(r"^\s*(figure|fig\.?|plot|image|img|chart|graph|picture|output)\s*\d*\s*[.:]?\s*$|"
                         r"\.(png|jpe?g|svg|gif)\b|_images/|^[0-9a-f]{16,}", re.I)


def _linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _encode(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0, 1)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def simulate(colours: list[str], vision: str) -> np.ndarray:
    """Return the sRGB (0-1) colours as seen with `vision` (Machado 2009, severity 1.0; 'normal' unchanged)."""
    rgb = np.array([to_rgb(c) for c in colours])
    if vision == "normal":
        return rgb
    return _encode(_linear(rgb) @ np.asarray(MACHADO_2009[vision]).T)


def lab(rgb: np.ndarray) -> np.ndarray:
    """Return CIELAB (D65) of sRGB colours (0-1)."""
    xyz = _linear(rgb) @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def closest_pair(colours: list[str], vision: str) -> tuple[float, str, str]:
    """Return the smallest CIELAB distance between any two of the colours as seen with `vision`, and the pair."""
    points = lab(simulate(colours, vision))
    return min((float(np.linalg.norm(points[i] - points[j])), colours[i], colours[j])
               for i, j in itertools.combinations(range(len(colours)), 2))


def contrast(foreground: str, background: str) -> float:
    """Return the WCAG 2.1 contrast ratio of two colours."""
    y = [float(_linear(np.array(to_rgb(c))) @ [0.2126, 0.7152, 0.0722]) for c in (foreground, background)]
    return (max(y) + 0.05) / (min(y) + 0.05)


def test_the_simulation_matches_colorspacious_where_installed():
    cspace = pytest.importorskip("colorspacious").cspace_convert
    colours = [*plots.OKABE_ITO.values(), "#2e7d32", "#c62828"]
    for vision, name in (("protanopia", "protanomaly"), ("deuteranopia", "deuteranomaly"),
                         ("tritanopia", "tritanomaly")):
        theirs = np.clip(cspace(np.array([to_rgb(c) for c in colours]),
                                {"name": "sRGB1+CVD", "cvd_type": name, "severity": 100}, "sRGB1"), 0, 1)
        assert np.allclose(simulate(colours, vision), theirs, atol=2e-3), vision
    theirs = cspace(np.array([to_rgb(c) for c in colours]), "sRGB1", "CIELab")
    assert np.allclose(lab(simulate(colours, "normal")), theirs, atol=0.1)


def test_the_old_green_red_pair_fails_and_the_checks_would_see_it():
    old = ["#2e7d32", "#c62828"]
    assert closest_pair(old, "normal")[0] > 100 and closest_pair(old, "deuteranopia")[0] < MIN_DELTA_E


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_colours_used_together_stay_apart_under_every_colour_vision_deficiency(group):
    colours = list(GROUPS[group])
    for vision in VISIONS:
        distance, a, b = closest_pair(colours, vision)
        assert distance >= MIN_DELTA_E, f"{group}, {vision}: {a} and {b} only ΔE {distance:.1f} apart"


def test_verdict_badge_and_dashboard_text_meet_wcag_contrast():
    for kind, background in plots.VERDICT_COLOURS.items():
        assert contrast(plots.VERDICT_TEXT[kind], background) >= MIN_TEXT_CONTRAST, kind
    for foreground, background in dashboard.TEXT_COLOURS:
        assert contrast(foreground, background) >= MIN_TEXT_CONTRAST, (foreground, background)


def _sample_figures() -> dict[str, plots.Figure]:
    """One figure of every kind the course draws, from small made-up data."""
    variant = {"efficiency": None, "efficiency_vs": ""}
    return {
        "digits": plots.show_digits(np.zeros((4, 8, 8)), [1, 2, 3, 4], columns=2),
        "molecules": plots.show_molecules([3, 4, 4, 5], [1.0, 0.2, -0.5, -1.5]),
        "curves": plots.show_curves({f"curve {k}": list(np.linspace(k, 1, 6)) for k in range(5)}, title="five"),
        "feed cost": plots.show_feed_cost([1_000, 10_000], {"a": [0.1, 0.4], "b": [0.1, 0.1], "c": [0.2, 0.3]}),
        "pipeline": plots.show_pipeline(["read", "decode", "batch"]),
        "bars": plots.show_bars({"g1": {"a": 1.0, "b": 2.0, "c": 3.0}, "g2": {"a": 2.0, "d": 1.0}}, "MB"),
        "ptb": plots.show_ptb_layout(list(range(20)), 2, 3, 1),
        "bench": plots.show_pipeline_bench({"cpu": {"variants": {
            "naive": {"speedup_over_naive": 1.0, "input_bound_fraction": 0.8, **variant},
            "ceiling": {"speedup_over_naive": 3.0, "input_bound_fraction": 0.0, **variant},
            "queue": {"speedup_over_naive": 2.0, "input_bound_fraction": 0.3, **variant},
            "prefetch": {"speedup_over_naive": 2.5, "input_bound_fraction": 0.1, **variant}}}}),
        "drill": plots.show_drill({"d": {"times": [5.0, 5.5, 7.0], "finished": True, "finished_s": 7.2,
                                         "killed_s": 5.6, "restarted_s": 6.5, "seen": [0, 1, 2]}}),
        "compare": dashboard.compare_figure({"a": 0.6, "b": 0.1, "c": 0.01}),
        "agreement": dashboard.agreement_figure({"a": (0.6, 0.5), "b": (0.1, 0.02)}),
    }


def _drawn_colours(ax) -> set[str]:
    """The colours of an axes' lines, bars and markers (white and fully transparent ones left out)."""
    colours = [line.get_color() for line in ax.get_lines()]
    colours += [p.get_facecolor() for p in ax.patches if p.get_fill()]
    colours += [p.get_edgecolor() for p in ax.patches if not p.get_fill()]
    colours += [tuple(c) for coll in ax.collections for c in coll.get_facecolors()]
    found = set()
    for colour in colours:
        rgba = np.asarray(to_rgb(colour) if isinstance(colour, str) else colour, dtype=float)
        if rgba.size == 4 and rgba[3] == 0:
            continue
        hex_colour = to_hex(rgba[:3])
        if hex_colour != "#ffffff":
            found.add(hex_colour)
    return found


def test_every_figure_draws_course_colours_that_stay_apart():
    allowed = {c.lower() for c in (*plots.OKABE_ITO.values(), plots.GREY, "#808080", "#e8f0fe")}
    for name, fig in _sample_figures().items():
        for ax in fig.axes:
            colours = _drawn_colours(ax)
            assert colours <= allowed, f"{name}: colours outside the course palette {colours - allowed}"
            if len(colours) > 1:
                for vision in VISIONS:
                    distance, a, b = closest_pair(sorted(colours), vision)
                    assert distance >= MIN_DELTA_E, f"{name}, {vision}: {a} and {b} only ΔE {distance:.1f} apart"


def good_alt(text: str) -> bool:
    """Whether a text alternative carries content: not empty, not a file name or hash, not generic, with data."""
    return len(text) >= 40 and not GENERIC_ALT.search(text) and bool(re.search(r"\d", text))


def test_good_alt_rejects_file_names_and_generic_text():
    for bad in ("", "Figure 1", "plot", "_images/dc16a4e0b1.png", "dc16a4e0b1c2d3e4f5a6b7c8", "Image",
                "A chart with some lines and bars in it, nothing more."):
        assert not good_alt(bad), bad
    assert good_alt("Step time, 50 steps: computing 85 to 95 ms each; waiting under 2 ms after step 1.")


def test_every_library_figure_describes_its_data():
    figures = _sample_figures()
    for name, fig in figures.items():
        assert isinstance(fig, plots.DescribedFigure) and good_alt(fig.description), (name, fig.description)
    assert "curve 4: 6 points, 4 at 0, 3.4 at 1," in figures["curves"].description
    assert "naive 1.00× (baseline; 80% waiting), ceiling 3.00× (baseline; 0% waiting), queue 2.00× (TF1; 30% " \
           "waiting), prefetch 2.50× (tf.data; 10% waiting)" in figures["bench"].description  # as drawn
    assert [plots._bench_group(v) for v in ("autotune", "feed_dict", "parallel_map")] == [
        "tf.data with AUTOTUNE", "TF1", "tf.data"]  # AUTOTUNE is tf.data, drawn apart (never asserted)
    assert "a 60%, input-bound; b 10%, moderately input-bound; c 1%, compute-bound" in figures["compare"].description
    assert "b: dashboard 10%, moderately input-bound; profiler 2%, compute-bound" in figures["agreement"].description


def test_every_description_opens_with_one_sentence_saying_what_the_figure_shows():
    figures = _sample_figures()
    summaries = {name: plots.summary_of(fig.description) for name, fig in figures.items()}
    for name, fig in figures.items():
        assert summaries[name].endswith(".") and len(summaries[name].split()) <= plots.SUMMARY_WORDS, (name, fig)
        assert len(fig.description) > len(summaries[name]) + 20, f"{name}: the details follow the summary"
    assert summaries["curves"] == ("Five, loss against step: curve 0 rises from 0 to 1; curve 1 ends where it "
                                   "started, at 1; curve 2 falls from 2 to 1; curve 3 falls from 3 to 1; curve 4 falls "
                                   "from 4 to 1.")
    assert summaries["bench"] == ("Speedup over tf.data naive, the fastest and the slowest pipeline other than the "
                                  "baselines (naive, ceiling) per workload: cpu prefetch 2.50× and queue 2.00×.")
    assert summaries["bars"] == "MB: g1, c highest at 3; g2, a highest at 2."
    one = plots.summary_of(plots.show_bars({"throughput": {"a": 1.0, "b": 3.0}}, "elements per second").description)
    assert one == "Throughput, elements per second: b highest at 3, a lowest at 1."
    both = plots.summary_of(plots.show_bars({"g1": {"a": 2.0, "b": 1.0}, "g2": {"a": 3.0}}, "MB", "t").description)
    assert both == "T, MB: a is highest in both panels (g1, g2)."
    assert plots.summary_of(plots.show_pipeline(["a", "b"], title="tf.data, two").description).startswith("tf.data")
    assert summaries["agreement"] == "Dashboard and profiler reach the same verdict on 1 of 2 runs (not on b)."
    assert summaries["drill"] == "Fault drills, elements received over time: d finished after 3 elements, with a " \
                                 "replacement worker."
    assert summaries["molecules"].startswith("Molecule sizes spread") and "falls with size" in summaries["molecules"]
    with pytest.raises(ValueError, match="one sentence"):
        plots.described(figures["pipeline"], "Two sentences. Here", "details")


def test_descriptions_carry_what_the_prose_reads_from_the_figures():
    loss = plots.show_curves({"loss": [4.76, 2.82, 9.6e-3, 8.8e-5]}, xlabel="step", logy=True).description
    assert "(y axis logarithmic)" in loss and "x axis" not in loss
    assert "falls from 4.76 to 8.8 × 10^-5, fastest between step 1 and 2 (down a factor of 294)" in loss
    pair = plots.show_curves({"a": [0.0, 0.1, 0.3], "b": [0.001, 0.1, 0.31]}, x=[1, 10, 100], logx=True).description
    assert "(x axis logarithmic)" in pair and "agree closely: at most 0.01 apart" in pair
    delays = plots.show_curves({"t": [0.28, 0.668, 1.25]}, x=[100, 1500, 3000]).description
    assert "0.28 at 100, 0.668 at 1,500, 1.25 at 3,000 (+0.388, +0.97 over the first)" in delays
    ptb = plots.show_ptb_layout(list(range(15)), 3, 2, 0).description
    assert "w0: x columns 0 to 1, y columns 1 to 2; w1: x columns 2 to 3, y columns 3 to 4" in ptb
    assert "column 4 (the last of each row) appears only as a y" in ptb
    flat = plots.show_molecules([3, 4, 5, 3, 4, 5], [0.0, -1.0, -2.0, 0.1, -1.1, -2.1]).description
    assert "between 2 and 2 molecules" in flat and "almost flat" in flat and "most common" not in flat
    feed = plots.show_feed_cost([1, 64], {"a": [1.0, 1.3], "b": [1.0, 100.0]}).description
    assert "over 64 times the bytes, 'a' stays flat and 'b' grows with the bytes." in feed
    assert "Flat (under 2 times" in feed and "a copy: 'b'" in feed
    digits = plots.show_digits(np.zeros((4, 8, 8)), [1, 2, 1, 2], columns=2, row_titles=["before", "after"])
    assert "row 1, before: labels 1, 2; row 2, after: labels 1, 2" in digits.description
    drill = plots.show_drill({"d": {"times": [5.0, 5.5, 6.0, 9.0, 9.5], "finished": True, "finished_s": 9.6,
                                    "killed_s": 5.6, "restarted_s": 8.5, "seen": [0, 1, 2, 3, 4]}}).description
    assert "first element arrived 5 s after the client started" in drill
    assert "the longest pause, nothing received, from 1 to 4 s (3 s)" in drill
    assert "after which 2 more elements arrived, from 4 to 4.5 s (a second ramp)" in drill
    agreement = dashboard.agreement_figure({"buffer": (0.53, 0.0)},
                                           verdicts={"buffer": (None, "potentially input-bound")})
    assert "buffer: dashboard 53%, input-bound; profiler 0%, potentially input-bound" in agreement.description
    assert dashboard.swings([0.1, 0.9] * 10) == (0.1, 0.9, 19) and dashboard.swings([0.0, 0.01] * 10) is None


def test_run_descriptions_leave_the_warm_up_steps_out_as_the_verdict_does():
    from tutorial_lib import monitor

    m = monitor.Monitor([], warmup_steps=2, gpu=None)
    for wait in (0.5, 0.4, 0.001, 0.002, 0.003):
        m.record_step(wait, 0.01, 8)
    summary, text = dashboard.run_description(m, "r")
    assert summary.startswith("r: ") and "% of step time waiting for input" in summary
    assert "Step time, 3 steps after the 2 warm-up steps (steps 1 to 2, which the verdict leaves out; they " \
           "waited up to 500 ms)" in text and "highest 3 ms at step 5" in text


def test_a_described_figure_displays_as_an_image_with_its_alt(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    fig = plots.show_pipeline(["read", "batch"], title='a "quoted" title')
    shell = InteractiveShell.instance()
    shown = []
    monkeypatch.setattr(shell.display_pub, "publish", lambda data, metadata=None, **_: shown.append(data))
    fig._ipython_display_()
    (data,) = shown
    assert set(data) == {"text/html", "text/plain"}
    alt, png = plots.figure_alt(data)
    assert alt == fig.description == ("A 'quoted' title: a pipeline of 2 stages, each feeding the next, from read to "
                                      "batch. In order: read → batch.")
    assert "&#x27;quoted&#x27;" in data["text/html"] and len(png) > 1000
    assert data["text/plain"] == f"[figure: {fig.description}]"


def test_the_dashboard_says_what_it_shows_in_a_polite_live_region_at_most_every_few_seconds():
    import queue
    import time

    from tutorial_lib import monitor

    q = queue.Queue(maxsize=10)
    m = monitor.Monitor([monitor.python_probe("batch queue", q)], rate_hz=100, warmup_steps=2)
    start = time.perf_counter()
    with dashboard.LiveDashboard(m, title="drill", show=False, max_updates_per_s=50, announce_every_s=0.3) as live:
        for i in range(40):
            q.put(i) if not q.full() else None
            m.record_step(0.001, 0.02, 8)
    elapsed = time.perf_counter() - start
    assert 2 <= len(live.announced) <= elapsed / 0.3 + 2, live.announced  # rate-limited, plus the final line
    assert not any("after 0 measured steps" in line for line in live.announced), "nothing said during warm-up"
    assert re.fullmatch(r"drill: finished, [a-z -]+ after 38 measured steps, waiting for input \d+% of step "
                        r"time, [\d,]+ examples/s, [\d.]+ ms per step\. Queues: batch queue \d+ of 10\.",
                        live.announced[-1]), live.announced[-1]
    region = live.announce.value
    assert "role='status'" in region and "aria-live='polite'" in region and live.announced[-1] in region


def _figure_outputs(path: Path) -> list[dict]:
    return [o.get("data", {}) for c in read(path).cells for o in c.get("outputs", []) if "data" in o]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_in_the_notebooks_has_a_text_alternative(path):
    for data in _figure_outputs(path):
        assert not {"image/png", "image/jpeg", "image/svg+xml"} & set(data), \
            f"{path.name}: a figure stored without its text alternative (display it through plots)"
        found = plots.figure_alt(data)
        if found:
            assert good_alt(found[0]), f"{path.name}: alt {found[0]!r}"
            summary = plots.summary_of(found[0])
            assert len(summary.split()) <= plots.SUMMARY_WORDS and summary.endswith("."), \
                f"{path.name}: the alt opens with no one-sentence summary (re-execute it): {found[0][:300]!r}"


# --- the notebooks' own Markdown -------------------------------------------------------------------------------

VAGUE_LINK = re.compile(r"^\s*(here|click here|this|link|this link|more|read more|see here|page)\s*$", re.I)
MD_LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")


def _markdown(path: Path) -> list[str]:
    return [re.sub(r"```.*?```", "", source(c), flags=re.S) for c in read(path).cells
            if c.cell_type == "markdown"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_markdown_headings_links_and_tables(path):
    levels = [len(h) for text in _markdown(path) for h in re.findall(r"^(#{1,6}) \S", text, re.M)]
    assert levels and levels[0] == 1 and levels.count(1) == 1, f"{path.name}: one '# ' title, first: {levels}"
    for before, after in itertools.pairwise(levels):
        assert after <= before + 1, f"{path.name}: a heading jumps from level {before} to {after}"
    for text in _markdown(path):
        for label, target in MD_LINK.findall(text):
            plain = re.sub(r"[`*_]", "", label).strip()
            assert plain and not VAGUE_LINK.match(plain), f"{path.name}: link text {label!r} -> {target}"
            assert plain != target, f"{path.name}: a bare address as link text: {target}"
        for table in re.findall(r"(?:^\|.*\|\s*$\n?){2,}", text, re.M):
            header, rule = table.splitlines()[:2]
            assert re.fullmatch(r"\|(\s*:?-{3,}:?\s*\|)+", rule.strip()), f"{path.name}: a table without headers"
            assert all(cell.strip() for cell in header.strip().strip("|").split("|")), f"{path.name}: empty header"


def test_navigation_cells_are_checked_too():
    assert any("navigation" in tags(c) for p in NOTEBOOKS for c in read(p).cells)
    assert json.loads(NOTEBOOKS[0].read_text())["nbformat"] == 4

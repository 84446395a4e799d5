"""How long a notebook takes: a careful first read of its prose and code, its run, and its exercises.

An estimate from the notebook's contents at the rates below, not a timing of students: the rates are stated
so that an instructor can redo the sum for their class. `make navigation` writes the result into each
notebook's Overview ("**Time:** about N minutes"), into INSTRUCTORS.md's table and into the heading of each
notebook's page of the instructor guide (docs/instructors/NN_name.md); a test keeps them in sync.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from tutorial_lib.classroom.course import GUIDE_DIR, NOTEBOOK_DIR, NOTEBOOK_GLOB, read, source, tags, write

# The course's rates (compared with published figures in notebooks/INSTRUCTORS.md, "How long each notebook
# takes"). An instructor overrides any of them for a class in one place: the file RATES_FILE (see load_rates).
DEFAULT_RATES = {
    "prose_words_per_minute": 120,  # careful reading of technical prose, to learn it
    "code_lines_per_minute": 10,  # reading a code cell and its output closely enough to predict it
    "run_minutes": 1.5,  # the course's budget per notebook, 90 s on 2 cores; a notebook's longer recorded run counts
    "exercise_minutes": 3,  # reading a checker's feedback, trying again: per exercise
    "exercise_minutes_per_line": 1.5,  # writing the answer: per line of the reference solution
}
RATES_FILE = NOTEBOOK_DIR.parent / "study_rates.toml"


def load_rates(path: Path = RATES_FILE) -> dict[str, float]:
    """The default rates, with those a `[rates]` table in `path` overrides (when the file exists)."""
    rates = dict(DEFAULT_RATES)
    if not path.exists():
        return rates
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        table = tomllib.loads(path.read_text()).get("rates", {})
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path.name}: not valid TOML ({error}); fix it or delete it to use the defaults") from None
    for key, value in table.items():
        if key not in rates:
            raise ValueError(f"{path.name}: unknown rate {key!r} in [rates]; known: {', '.join(rates)}")
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise ValueError(f"{path.name}: [rates] {key} = {value!r} must be a positive number")
        rates[key] = float(value)
    return rates


_RATES = load_rates()
PROSE_WORDS_PER_MINUTE = _RATES["prose_words_per_minute"]
CODE_LINES_PER_MINUTE = _RATES["code_lines_per_minute"]
RUN_MINUTES = _RATES["run_minutes"]
EXERCISE_MINUTES = _RATES["exercise_minutes"]
EXERCISE_MINUTES_PER_LINE = _RATES["exercise_minutes_per_line"]
ROUND_TO = 5  # minutes
RUN_SECONDS_KEY = "run_seconds"  # notebook.metadata["tutorial"][...]: the run that made the committed outputs
TIME_LINE = re.compile(r"\*\*Time:\*\* about \d+ minutes[^\n]*")
INSTRUCTORS = NOTEBOOK_DIR / "INSTRUCTORS.md"


@dataclass(frozen=True)
class StudyTime:
    """What a notebook asks a student to read and write, and the minutes that takes at the module's rates."""

    prose_words: int
    code_lines: int
    exercises: int
    solution_lines: int
    run_minutes: float = RUN_MINUTES  # the budget, or the recorded run of the committed outputs where that was longer

    @property
    def reading_minutes(self) -> float:
        """Minutes to read the prose and the demonstration code (solutions excluded)."""
        return self.prose_words / PROSE_WORDS_PER_MINUTE + self.code_lines / CODE_LINES_PER_MINUTE

    @property
    def exercise_minutes(self) -> float:
        """Minutes to solve the exercises."""
        return self.exercises * EXERCISE_MINUTES + self.solution_lines * EXERCISE_MINUTES_PER_LINE

    @property
    def total_minutes(self) -> float:
        """Reading, running and exercises, each to a tenth of a minute as the Overview prints them, added up."""
        return round(round(self.reading_minutes, 1) + self.run_minutes + round(self.exercise_minutes, 1), 1)

    @property
    def minutes(self) -> int:
        """The whole notebook, rounded up to ROUND_TO minutes."""
        return ROUND_TO * math.ceil(self.total_minutes / ROUND_TO)


def _lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def recorded_run_minutes(notebook) -> float:
    """The run time: the budget, or the recorded run of its committed outputs (`execute` writes it) if longer.

    In tenths of a minute, rounded up: 101 s is 1.7 minutes.
    """
    seconds = notebook.metadata.get("tutorial", {}).get(RUN_SECONDS_KEY)
    if not isinstance(seconds, int | float) or isinstance(seconds, bool):
        return RUN_MINUTES
    return max(RUN_MINUTES, math.ceil(round(seconds / 6, 6)) / 10)


def study_time(path: Path) -> StudyTime:
    """Count a notebook's prose words, demonstration code lines, exercises and solution lines; read its run time."""
    words = code = exercises = solution = 0
    notebook = read(path)
    for cell in notebook.cells:
        if "navigation" in tags(cell) or "course-install" in tags(cell):  # generated: run, not studied
            continue
        text = source(cell)
        if cell.cell_type == "markdown":
            text = TIME_LINE.sub("", text)  # the estimate's own line does not count
            words += len(re.sub(r"\(([^)]*\.ipynb|https?://[^)]*)[^)]*\)", "", text).split())
        elif "solution" in tags(cell):
            exercises += 1
            solution += _lines(text)
        else:
            code += _lines(text)
    return StudyTime(words, code, exercises, solution, recorded_run_minutes(notebook))


def time_line(estimate: StudyTime) -> str:
    """The Overview's line: the total and how it splits."""
    return (f"**Time:** about {estimate.minutes} minutes: reading {estimate.reading_minutes:.1f}, "
            f"the {estimate.exercises} exercises {estimate.exercise_minutes:.1f}, running "
            f"{estimate.run_minutes:g}, together {estimate.total_minutes:.1f}, rounded up to a multiple of {ROUND_TO} "
            "(how this is estimated: `notebooks/INSTRUCTORS.md`).")


def instructors_table(paths: list[Path]) -> str:
    """A Markdown table of every notebook's counts and minutes."""
    rows = ["| notebook | prose words | code lines | exercises (solution lines) | reading | exercises | total |",
            "|---|---|---|---|---|---|---|"]
    for path in paths:
        t = study_time(path)
        rows.append(f"| `{path.stem}` | {t.prose_words} | {t.code_lines} | {t.exercises} ({t.solution_lines}) | "
                    f"{round(t.reading_minutes)} min | {round(t.exercise_minutes)} min | about {t.minutes} min |")
    return "\n".join(rows)


TABLE_START, TABLE_END = "<!-- study-time:start (generated by `make navigation`) -->", "<!-- study-time:end -->"


def _rewritten_instructors(text: str, paths: list[Path]) -> str:
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    text = text[:start] + "\n" + instructors_table(paths) + "\n" + text[end:]
    for path in paths:
        text = _with_heading_time(text, path)
    return text


def _with_heading_time(text: str, path: Path) -> str:
    """`text` with its heading "NN_name — N minutes" (any level) giving the notebook's estimate."""
    minutes = study_time(path).minutes
    return re.sub(rf"^(#+) {re.escape(path.stem)} — \d+ minutes", rf"\1 {path.stem} — {minutes} minutes", text,
                  flags=re.M)


def _guide_pages(notebook_dir: Path, paths: list[Path]) -> list[tuple[Path, Path]]:
    """(notebook, its page of the instructor guide) for the notebooks that have one."""
    guide = notebook_dir.parent / GUIDE_DIR.relative_to(NOTEBOOK_DIR.parent)
    return [(path, guide / f"{path.stem}.md") for path in paths if (guide / f"{path.stem}.md").is_file()]


def study_time_problems(notebook_dir: Path = NOTEBOOK_DIR) -> list[str]:
    """Say where a stored time differs from the estimate (empty when all agree)."""
    paths = sorted(notebook_dir.glob(NOTEBOOK_GLOB))
    problems = []
    for path in paths:
        expected = time_line(study_time(path))
        found = [m.group(0) for c in read(path).cells if c.cell_type == "markdown"
                 for m in TIME_LINE.finditer(source(c))]
        if found != [expected]:
            problems.append(f"{path.name}: Overview says {found or 'nothing'}, the estimate is {expected!r}")
    instructors = notebook_dir / INSTRUCTORS.name
    if instructors.read_text() != _rewritten_instructors(instructors.read_text(), paths):
        problems.append(f"{instructors.name}: its times differ from the estimates")
    for path, page in _guide_pages(notebook_dir, paths):
        if page.read_text() != _with_heading_time(page.read_text(), path):
            problems.append(f"{page.name}: its heading's time differs from the estimate")
    return problems


def write_study_times(notebook_dir: Path = NOTEBOOK_DIR) -> list[Path]:
    """Rewrite every notebook's time line and INSTRUCTORS.md's times; return the files changed."""
    paths = sorted(notebook_dir.glob(NOTEBOOK_GLOB))
    changed = []
    for path in paths:
        notebook = read(path)
        line = time_line(study_time(path))
        edited = False
        for cell in notebook.cells:
            if cell.cell_type == "markdown" and TIME_LINE.search(source(cell)):
                new = TIME_LINE.sub(line, source(cell))
                if new != source(cell):
                    cell.source, edited = new, True
        if edited:
            write(path, notebook)
            changed.append(path)
    instructors = notebook_dir / INSTRUCTORS.name
    text = instructors.read_text()
    if text != (new_text := _rewritten_instructors(text, paths)):
        instructors.write_text(new_text)
        changed.append(instructors)
    for path, page in _guide_pages(notebook_dir, paths):
        if page.read_text() != (new_text := _with_heading_time(page.read_text(), path)):
            page.write_text(new_text)
            changed.append(page)
    return changed

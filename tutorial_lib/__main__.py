"""Command line: `python -m tutorial_lib data build|verify`, `notebooks [NAME...] [--repeat N] [--machine SETTINGS]`,
`navigation`, `student-edition OUT_DIR`, `nbgrader OUT_DIR [ASSIGNMENT...]`, `nbgrader-check OUT_DIR [ASSIGNMENT...]`,
`grade COURSE_DIR ASSIGNMENT [--jobs N] [--time-limit S] [--memory-mb M]`,
`bench [pipelines|monitor|migrate]`, `check-checkers [--cases DIR] [EXERCISE...]`, `serve dispatcher|worker`,
`site [OUT_DIR]`, `doctor`, `migrate PATH... [--format text|json|markdown] [--brief]`, `start [DIR]`,
`test-times` (a checkout's: keep the last `make test`'s time as the record the README states).
Installed, the same commands are `data-into-tensorflow ...`."""

from __future__ import annotations

import argparse
import sys


def _data(args: argparse.Namespace) -> int:
    from tutorial_lib import datasets

    if args.action == "build":
        files = datasets.build(args.dir)
        total = sum(p.stat().st_size for p in files)
        print(f"wrote {len(files)} files ({total / 1e6:.1f} MB) and {datasets.MANIFEST}")
        return 0
    problems = datasets.verify(args.dir)
    for line in problems:
        print(line, file=sys.stderr)
    if not problems:
        print("all data files match MANIFEST")
    return 1 if problems else 0


def _notebooks(args: argparse.Namespace) -> int:
    from tutorial_lib.classroom import execute

    if args.machine:
        return _machines(args)
    return execute.main(args.names, args.repeat, args.report)


def _machines(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tutorial_lib.classroom import machines

    try:
        settings = machines.parse(args.machine)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    for setting in settings:
        print(f"{setting}: {machines.SETTINGS[setting]}")
    spreads: dict = {}
    results = machines.run(args.names, settings, max(1, args.repeat), spreads=spreads)
    text = machines.table(results)
    print(text)
    details = "\n\n".join(r.report() for r in spreads.values())
    text += "\n\n# What each notebook printed, per setting (varying numbers as min–max)\n\n" + details
    report = Path(args.report if args.report != DEFAULT_REPEAT_REPORT else "out/machines/report.md")
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(text + "\n")
    print(f"wrote {report}")
    return 1 if any(r.raised for r in results) else 0


def _check_checkers(args: argparse.Namespace) -> int:
    from tutorial_lib.classroom.course import CHECKERS_PAGE
    from tutorial_lib.exercises import mutation

    return mutation.main(args.cases, args.exercises, CHECKERS_PAGE if args.write_counts else None)


def _bench(args: argparse.Namespace) -> int:
    if args.which == "pipelines":
        return _bench_pipelines(args)
    if args.which == "grading":
        from tutorial_lib.grading import bench

        bench.measure(args.assignments or ["00_start_here", "03a_queues_and_threads"], size=args.class_size,
                      jobs=args.jobs, autograde=args.autograde, progress=lambda text: print(text, flush=True))
        return 0
    if args.which == "migrate":
        from tutorial_lib.benchmarks import migrate_scan

        result = migrate_scan.measure(files=args.files)
        print(f"migrate: {result['files']} files ({result['lines']} lines, {result['calls']} TF1 input calls, "
              f"{result['pipelines']} pipelines) scanned in {result['seconds']:.2f} s: "
              f"{result['files_per_s']:.0f} files/s (one process)")
        return 0
    from tutorial_lib.benchmarks import monitor_overhead

    result = monitor_overhead.measure(steps=args.steps, repeats=args.repeats)
    print(f"monitor + live dashboard at {result['rate_hz']:g} Hz, {result['steps']} steps per run, runs interleaved:")
    print(f"  throughput ratio monitored/plain: {result['throughput_ratio']:.3f} "
          f"(median {result['monitored_s']:.3f} s vs {result['plain_s']:.3f} s)")
    print(f"  sampler thread's CPU time per second of training: {100 * result['sampling_share']:.2f}% "
          f"({result['view_updates_per_s']:.1f} widget updates/s)")
    return 0


def _bench_pipelines(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tutorial_lib.benchmarks import pipelines as pipebench

    pipebench.configure()  # before TensorFlow runs anything in this process
    results = pipebench.run_all(scale=args.scale, repeats=args.repeats, progress=print)
    print(pipebench.table(results))
    data, chart = pipebench.save(results, Path(args.out))
    print(f"\nwrote {data} and {chart}")
    if not results["all_required_hold"]:
        print("self-check: a required direction did not show on this machine (see above)", file=sys.stderr)
        return 1
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from tutorial_lib.migration import report

    return report.main(args.paths, args.format, args.brief)


def _serve(args: argparse.Namespace) -> int:
    from tutorial_lib.pipelines.service import server

    server.serve(args.kind, args.dispatcher, args.worker_timeout_ms, args.port, args.host)
    return 0


def _student_edition(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tutorial_lib import classroom

    written = classroom.student_edition(Path(args.out_dir))
    print(f"wrote {len(written)} student notebooks to {args.out_dir} (solutions replaced by stubs)")
    return 0


def _nbgrader(args: argparse.Namespace) -> int:
    """Write the nbgrader course directory."""
    from pathlib import Path

    from tutorial_lib.classroom import nbgrader_course

    written = nbgrader_course.write_course(Path(args.out_dir), args.assignments or None,
                                           Path(args.notebooks) if args.notebooks else None)
    notebooks = [p for p in written if p.suffix == ".ipynb"]
    print(f"wrote {len(notebooks)} assignment(s) and nbgrader_config.py to {args.out_dir}: "
          f"{', '.join(p.stem for p in notebooks)}")
    print(f"next: cd {args.out_dir} && nbgrader generate_assignment ASSIGNMENT (see notebooks/INSTRUCTORS.md)")
    return 0


def _grade(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tutorial_lib.grading import classroom

    try:
        outcomes = classroom.grade_assignment(Path(args.course), args.assignment, jobs=args.jobs,
                                              time_limit=args.time_limit, memory_mb=args.memory_mb,
                                              cell_timeout=args.cell_timeout, students=args.student or None,
                                              unsealed=args.unsealed)
    except (classroom.Unsealable, FileNotFoundError, RuntimeError) as error:
        print(f"grade: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 -- one line, never a traceback, for the instructor
        print(f"grade: stopped by {type(error).__name__}: {error}; nothing was recorded", file=sys.stderr)
        return 2
    points = sum(classroom.test_cells(classroom.release_path(Path(args.course), args.assignment)).values())
    print(classroom.summary(outcomes, args.assignment, points))
    print(f"scores recorded in {Path(args.course) / 'gradebook.db'}")
    return 0


def _nbgrader_check(args: argparse.Namespace) -> int:
    """Run the nbgrader round trip on each assignment and print the scores; 1 when one is not as expected."""
    from pathlib import Path

    from tutorial_lib.classroom import nbgrader_course

    how = ("the course's grader, the three in parallel (one submission's own time, kernel start included)"
           if args.grader == "trusted" else "nbgrader autograde (the whole command)")
    print("per assignment: scores of the reference solutions, the untouched release and the typical mistakes; "
          f"time of one full submission, graded by {how}", flush=True)
    results = nbgrader_course.check(Path(args.out_dir), args.assignments or None,
                                    progress=lambda line: print(line, flush=True), trusted=args.grader == "trusted")
    failed = [r.assignment for r in results if r.problems()]
    print(f"{len(results) - len(failed)} of {len(results)} assignments round-trip as expected"
          + (f"; problems in {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def _site(args: argparse.Namespace) -> int:
    """Build the course website and check its links; 1 when the check finds a problem."""
    from pathlib import Path

    from tutorial_lib.classroom import site

    problems = site.build(Path(args.out_dir), progress=lambda line: print(line, flush=True))
    for line in problems:
        print(line, file=sys.stderr)
    if not problems:
        print(f"open {args.out_dir}/index.html, or serve it: python -m http.server -d {args.out_dir} -b 127.0.0.1")
    return 1 if problems else 0


def _navigation(args: argparse.Namespace) -> int:
    from tutorial_lib import classroom
    from tutorial_lib.classroom import stored_runs, suite_times

    changed = classroom.write_navigation()
    tables = classroom.write_course_tables()
    times = classroom.write_study_times()
    runs = stored_runs.write_stored_runs()
    suite = suite_times.write_times()
    print(f"navigation regenerated; {len(changed)} notebook(s) changed; course tables rewritten in "
          f"{[p.name for p in tables] or 'nothing (already current)'}; study times rewritten in "
          f"{[p.name for p in times] or 'nothing (already current)'}; stored runs' passages rewritten in "
          f"{[p.name for p in runs] or 'nothing (already current)'}; `make test`'s time rewritten in "
          f"{[p.name for p in suite] or 'nothing (already current)'}")
    return 0


def _test_times(args: argparse.Namespace) -> int:
    from tutorial_lib.classroom import suite_times

    try:
        run = suite_times.keep_record()
    except ValueError as error:
        print(f"test-times: {error}", file=sys.stderr)
        return 1
    changed = suite_times.write_times()
    print(f"kept: {suite_times.total_sentence(run)} Rewritten: {[p.name for p in changed] or 'nothing'}")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from tutorial_lib import __version__, datasets, env, locations

    for key, value in env.describe().items():
        print(f"{key:>12}: {value}")
    where = "installed package" if locations.is_installed() else "checkout"
    print(f"{'course':>12}: data-into-tensorflow {__version__}, from the {where}")
    problems = datasets.verify()
    print(f"{'data':>12}: " + ("ok (all files match MANIFEST)" if not problems else "; ".join(problems)))
    return 1 if problems else 0


def _start(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tutorial_lib.classroom import workspace

    report = workspace.start(Path(args.dir or workspace.DEFAULT_DIR))
    print("\n".join(report.lines()))
    print(workspace.how_to_open(report.folder))
    return 0


DEFAULT_REPEAT_REPORT = "out/repeat/report.md"


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen command."""
    from tutorial_lib import __version__

    parser = argparse.ArgumentParser(prog="python -m tutorial_lib", description=__doc__)
    parser.add_argument("--version", action="version", version=f"data-into-tensorflow {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    data = commands.add_parser("data", help="build or verify the shipped data files")
    data.add_argument("action", choices=["build", "verify"])
    data.add_argument("--dir", default=None, help="data directory (default: the repository's data/)")
    data.set_defaults(run=_data)
    run = commands.add_parser("notebooks", help="re-execute notebooks in place (default: all), or --repeat N "
                              "times each without saving and report failures and the spread of varying numbers")
    run.add_argument("names", nargs="*")
    run.add_argument("--repeat", type=int, default=0, metavar="N", help="execute each notebook N times, fresh kernels")
    run.add_argument("--report", default=DEFAULT_REPEAT_REPORT, help="with --repeat or --machine: where to write "
                     "the report")
    run.add_argument("--machine", default="", metavar="SETTINGS", help="run each notebook (fresh kernel, not saved) "
                     "under machine settings: all, or a comma list of normal, one-core, loaded, slow-step, fast-step; "
                     "report cells raised and wall time per notebook and setting")
    run.set_defaults(run=_notebooks)
    bench = commands.add_parser("bench", help="measure: 'pipelines' (default) = feed_dict vs queues vs tf.data; "
                                "'monitor' = the dashboard's sampling overhead; 'migrate' = the migration "
                                "scanner's speed on generated files")
    bench.add_argument("which", nargs="?", default="pipelines", choices=["pipelines", "monitor", "migrate", "grading"])
    bench.add_argument("assignments", nargs="*", help="grading: assignments (default: 00_start_here and 03a)")
    bench.add_argument("--class-size", type=int, default=30, help="grading: submissions per assignment")
    bench.add_argument("--jobs", type=int, default=None, help="grading: submissions at once (default: one per core)")
    bench.add_argument("--autograde", action="store_true",
                       help="grading: also grade the class with nbgrader autograde, one submission after another")
    bench.add_argument("--files", type=int, default=1000, help="migrate: how many files to scan")
    bench.add_argument("--steps", type=int, default=200, help="monitor: training steps per run")
    bench.add_argument("--repeats", type=int, default=5, help="timed rounds per variant (after one warm-up)")
    bench.add_argument("--scale", type=float, default=1.0, help="pipelines: shrink the workloads (e.g. 0.25)")
    bench.add_argument("--out", default="out/bench", help="pipelines: where to write pipelines.json/.png")
    bench.set_defaults(run=_bench)
    checkers = commands.add_parser("check-checkers", help="the mutation report: every exercise checker against "
                                   "its right answers and its mutants (wrong answers, one per requirement)")
    checkers.add_argument("exercises", nargs="*", help="checker names (default: all), e.g. capacity")
    checkers.add_argument("--cases", default="tests", help="the folder of exercise_cases_*.py (default: tests)")
    checkers.add_argument("--write-counts", action="store_true", help="only rewrite the counts of requirements, "
                          "mutants and right answers in docs/instructors/checkers.md (runs nothing)")
    checkers.set_defaults(run=_check_checkers)
    serve = commands.add_parser("serve", help="run a tf.data service dispatcher or worker here (notebook 11)")
    serve.add_argument("kind", choices=["dispatcher", "worker"])
    serve.add_argument("--port", type=int, default=0, help="port to listen on (0: any free port)")
    serve.add_argument("--dispatcher", default="", help="worker: the dispatcher's host:port")
    serve.add_argument("--host", default="127.0.0.1", help="worker: the name clients reach this machine by")
    serve.add_argument("--worker-timeout-ms", type=int, default=2000)
    serve.set_defaults(run=_serve)
    student = commands.add_parser("student-edition", help="write the notebooks without solutions to OUT_DIR")
    student.add_argument("out_dir")
    student.set_defaults(run=_student_edition)
    grader = commands.add_parser("nbgrader", help="write the course as an nbgrader course directory to OUT_DIR "
                                 "(one assignment per notebook with exercises)")
    grader.add_argument("out_dir")
    grader.add_argument("assignments", nargs="*", help="notebook stems (default: every notebook with exercises)")
    grader.add_argument("--notebooks", help="the notebooks/ folder of a clone (an installed course carries no "
                        "solutions; default: this course's own notebooks)")
    grader.set_defaults(run=_nbgrader)
    grader_check = commands.add_parser("nbgrader-check", help="in a fresh OUT_DIR: release, autograde three "
                                       "submissions per assignment (reference, untouched, typical mistakes), "
                                       "print the scores")
    grader_check.add_argument("out_dir")
    grader_check.add_argument("assignments", nargs="*", help="notebook stems (default: all)")
    grader_check.add_argument("--grader", choices=["autograde", "trusted"], default="autograde",
                              help="autograde: `nbgrader autograde`, one submission after another (the scores the "
                                   "students' own kernels wrote); trusted: the course's grader (`grade`)")
    grader_check.set_defaults(run=_nbgrader_check)
    grade = commands.add_parser("grade", help="grade every submission of an assignment of an nbgrader course, in "
                                "parallel, each within a time and memory limit, into the gradebook (the score "
                                "decided outside the student's kernel)")
    grade.add_argument("course", help="the nbgrader course directory")
    grade.add_argument("assignment")
    grade.add_argument("--jobs", type=int, default=None, help="submissions at once (default: one per core)")
    grade.add_argument("--time-limit", type=float, default=600.0, help="seconds per submission (default 600)")
    grade.add_argument("--memory-mb", type=int, default=8192, help="address space per process (default 8192)")
    grade.add_argument("--cell-timeout", type=int, default=300, help="seconds per cell (default 300)")
    grade.add_argument("--student", action="append", help="grade only this student (repeatable)")
    grade.add_argument("--unsealed", action="store_true",
                       help="where submissions cannot be sealed (no bubblewrap or no namespaces): run their kernels "
                            "as this user, with no sandbox; every feedback says so")
    grade.set_defaults(run=_grade)
    website = commands.add_parser("site", help="build the course as a static website (the committed notebooks "
                                  "with their outputs, README, INSTRUCTORS.md, the migration map) and check its links")
    website.add_argument("out_dir", nargs="?", default="out/site")
    website.set_defaults(run=_site)
    migrate = commands.add_parser("migrate", help="report the TF1 input calls in .py files and notebooks (no "
                                  "execution) with their tf.data forms, pitfalls, pipelines and a tf.data sketch; "
                                  "exit 0: none found, 1: found, 2: a file or cell that cannot be parsed")
    migrate.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (.py and .ipynb)")
    migrate.add_argument("--format", default="text", choices=["text", "json", "markdown"])
    migrate.add_argument("--brief", action="store_true", help="text: the calls and pipelines only")
    migrate.set_defaults(run=_migrate)
    navigation = commands.add_parser("navigation", help="regenerate every notebook's navigation cells")
    navigation.set_defaults(run=_navigation)
    test_times = commands.add_parser("test-times", help="keep the last complete `make test` run's time "
                                     "(out/make-test-times.jsonl) as docs/make-test-times.json and write it into "
                                     "README.md and CONTRIBUTING.md")
    test_times.set_defaults(run=_test_times)
    doctor = commands.add_parser("doctor", help="print versions, devices and the data check")
    doctor.set_defaults(run=_doctor)
    start = commands.add_parser("start", help="write the course's notebooks into DIR (default: ./data-into-tensorflow) "
                                "and say how to open them; a notebook you edited is replaced only if you say yes")
    start.add_argument("dir", nargs="?", default=None)
    start.set_defaults(run=_start)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())

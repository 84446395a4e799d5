"""Command line: `python -m tutorial_lib data build|verify`, `notebooks [NAME...]`, `doctor`."""

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
    from tutorial_lib import notebooks

    return notebooks.main(args.names)


def _doctor(args: argparse.Namespace) -> int:
    from tutorial_lib import datasets, env

    for key, value in env.describe().items():
        print(f"{key:>12}: {value}")
    problems = datasets.verify()
    print(f"{'data':>12}: " + ("ok (all files match MANIFEST)" if not problems else "; ".join(problems)))
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen command."""
    parser = argparse.ArgumentParser(prog="python -m tutorial_lib", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    data = commands.add_parser("data", help="build or verify the shipped data files")
    data.add_argument("action", choices=["build", "verify"])
    data.add_argument("--dir", default=None, help="data directory (default: the repository's data/)")
    data.set_defaults(run=_data)
    run = commands.add_parser("notebooks", help="re-execute notebooks in place (default: all)")
    run.add_argument("names", nargs="*")
    run.set_defaults(run=_notebooks)
    doctor = commands.add_parser("doctor", help="print versions, devices and the data check")
    doctor.set_defaults(run=_doctor)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())

"""The migration report: what `migration/scanner.py` found, as text (default), JSON (for tools) or Markdown (for a
pull request), and the exit status of `python -m tutorial_lib migrate` (0 nothing found, 1 TF1 input calls found,
2 a file or cell that cannot be parsed). Notebook 10 prints the text form.
"""

from __future__ import annotations

import json
import sys

from tutorial_lib.migration import api_map, scanner, table

SKETCH_NOTE = "sketch to review: built from the calls' arguments as written, not run"
EQUIVALENT_NOTE = ("equivalent: yields the TF1 pipeline's examples; its per-record function is your own lines, and "
                   "every other call and argument is one the course's tests run both ways and compare")


def sketch_note(pipeline: list[scanner.Call]) -> str:
    """Return what a pipeline's sketch is: equivalent to the TF1 pipeline, or a sketch to review."""
    return SKETCH_NOTE if scanner.not_equivalent(pipeline) else EQUIVALENT_NOTE


where = scanner.where_in_file  # a call's place: "line 12", or "cell 3, line 2" in a notebook


def error_place(error: dict) -> str:
    """Return an error's place in its file."""
    return (f"cell {error['cell']}, line {error['line']}" if "cell" in error else f"line {error['line']}")


def call_dict(call: scanner.Call) -> dict:
    """Return one call as plain data."""
    found = {"line": call.line, "api": call.api, "written": call.written, "known": call.known, "kind": call.kind,
             "args": call.shown,
             "tf_data": scanner.form(call), "pitfalls": scanner.pitfalls(call),
             "proved_in": [{"tf1": row.tf1, "where": row.where, "href": table.href(row.where)}
                           for row in scanner.rows(call)]}
    if call.cell >= 0:
        found["cell"] = call.cell
    return found


def step_dict(call: scanner.Call) -> dict:
    """Return one pipeline step as plain data."""
    return {"line": call.line, "api": call.api, "kind": call.kind, **({"cell": call.cell} if call.cell >= 0 else {})}


def python2_note(scan: scanner.Scan) -> str:
    """Return the note on the lines read as Python 2 ("" when none were): where, and by what."""
    if not scan.python2:
        return ""
    places = "; ".join((f"cell {cell}, " if cell >= 0 else "") + "line" + ("s" if len(lines) > 1 else "") + " "
                       + ", ".join(map(str, lines)) for cell, lines in sorted(scan.python2.items()))
    return f"read as Python 2 (fissix, the lib2to3 fork, rewrote the syntax Python 3 cannot parse): {places}"


def file_dict(scan: scanner.Scan) -> dict:
    """Return one file's report as plain data."""
    return {"path": scan.path, "python2": {str(k): v for k, v in sorted(scan.python2.items())},
            "calls": [call_dict(c) for c in scan.calls],
            "pipelines": [{"steps": [step_dict(c) for c in p], "sketch": scanner.sketch(p), "note": sketch_note(p),
                           "equivalent": not scanner.not_equivalent(p),
                           "not_equivalent_because": scanner.not_equivalent(p)} for p in scanner.pipelines(scan)],
            "errors": scan.errors}


def counts(scans: list[scanner.Scan]) -> dict:
    """Return the totals: files, files with TF1 input calls, calls listed (TF1 input calls, and the ops that keep
    their form), unknown calls, pipelines, errors, files read as Python 2."""
    return {"files": len(scans), "files_with_calls": sum(1 for s in scans if input_calls(s)),
            "listed": sum(len(s.calls) for s in scans), "calls": sum(len(input_calls(s)) for s in scans),
            "python2": sum(1 for s in scans if s.python2),
            "unknown": sum(1 for s in scans for c in s.calls if not c.known),
            "pipelines": sum(len(scanner.pipelines(s)) for s in scans),
            "errors": sum(len(s.errors) for s in scans)}


def input_calls(scan: scanner.Scan) -> list[scanner.Call]:
    """Return the TF1 input calls of a file: known ones with a map row, and unknown ones (not the ops that keep
    their form, such as `decode_jpeg`)."""
    return [c for c in scan.calls if not c.known or c.api not in table.SAME_OPS]


def exit_status(scans: list[scanner.Scan]) -> int:
    """Return 2 when a file (or a notebook cell) could not be read or parsed, else 1 when TF1 input calls were
    found, else 0."""
    if any(s.errors for s in scans):
        return 2
    return 1 if any(input_calls(s) for s in scans) else 0


def summary_line(scans: list[scanner.Scan]) -> str:
    """Return the one-line summary."""
    n = counts(scans)
    same = n["listed"] - n["calls"]
    python2 = f" ({n['python2']} read as Python 2)" if n["python2"] else ""
    return (f"{n['files']} file(s) scanned{python2}: "
            f"{n['listed']} call(s) listed, {n['calls']} TF1 input call(s) in {n['files_with_calls']} file(s) "
            f"({n['unknown']} unknown) and {same} op(s) that keep their form, {n['pipelines']} pipeline(s), "
            f"{n['errors']} error(s)")


def proved_text(call: scanner.Call) -> list[str]:
    """Return the "proved in" lines of a call."""
    shown = [f"{link['where'].replace('#', ' · ')} ({link['href']})" for link in call_dict(call)["proved_in"]]
    return list(dict.fromkeys(shown))  # two rows proved in one section: said once


def text(scans: list[scanner.Scan], verbose: bool = True) -> str:
    """Return the report as readable text."""
    lines = []
    for scan in scans:
        if not scan.calls and not scan.errors:
            continue
        lines.append(f"== {scan.path}")
        if scan.python2:
            lines.append(f"  note: {python2_note(scan)}")
        for error in scan.errors:
            lines.append(f"  ERROR {scan.path}, {error_place(error)}: {error['message']}")
        for call in scan.calls:
            args = ", ".join(call_dict(call)["args"])
            if not call.known:
                lines.append(f"  {where(call)}: {call.written}({args})  -- unknown: not in the migration map")
                continue
            lines.append(f"  {where(call)}: {call.written}({args})  [{call.kind}]")
            if verbose:
                lines += [f"      tf.data: {step}" for step in scanner.form(call)]
                lines += [f"      pitfall: {p}" for p in scanner.pitfalls(call)]
                lines += [f"      proved in: {p}" for p in proved_text(call)]
        for i, pipeline in enumerate(scanner.pipelines(scan), 1):
            lines.append(f"  pipeline {i}: " + " -> ".join(f"{c.api} ({where(c)})" for c in pipeline))
            lines.append(f"    tf.data ({sketch_note(pipeline)}):")
            lines += ["      " + line for line in scanner.sketch(pipeline).splitlines()]
            lines += [f"    may differ from TF1: {reason}" for reason in scanner.not_equivalent(pipeline)]
    lines.append(summary_line(scans))
    return "\n".join(lines)


def markdown(scans: list[scanner.Scan]) -> str:
    """Return the report as Markdown, for a pull request."""
    out = ["## TF1 input pipeline migration report", "", summary_line(scans), ""]
    for scan in scans:
        if not scan.calls and not scan.errors:
            continue
        out += [f"### `{scan.path}`", ""]
        out += [f"*{python2_note(scan)}*", ""] if scan.python2 else []
        out += [f"- **cannot parse** {error_place(e)}: {e['message']}" for e in scan.errors]
        if scan.calls:
            out += ["| where | TF1 call | tf.data | pitfalls | proved in |", "|---|---|---|---|---|"]
            for call in scan.calls:
                data = call_dict(call)
                cells = [where(call), f"`{call.written}({', '.join(data['args'])})`".replace("|", "\\|"),
                         "<br>".join(f"`{s}`" if s.startswith((".", "tf.")) else s for s in data["tf_data"])
                         or "**unknown**: not in the migration map",
                         "<br>".join(data["pitfalls"]),
                         "<br>".join(api_map.link(link["where"]).replace("](", "](notebooks/")
                                     if not link["where"].startswith("tests/") else link["href"]
                                     for link in data["proved_in"])]
                out.append("| " + " | ".join(c.replace("|", "\\|") if i > 1 else c for i, c in enumerate(cells))
                           + " |")
            out.append("")
        for i, pipeline in enumerate(scanner.pipelines(scan), 1):
            out += [f"**Pipeline {i}:** " + " → ".join(f"`{c.api}` ({where(c)})" for c in pipeline), "",
                    f"*{sketch_note(pipeline)}:*", "", "```python", scanner.sketch(pipeline), "```", ""]
            out += [*(f"- may differ from TF1: {reason}" for reason in scanner.not_equivalent(pipeline)), ""]
    return "\n".join(out)


def as_json(scans: list[scanner.Scan]) -> str:
    """Return the report as JSON: the files, the totals and the exit status."""
    return json.dumps({"files": [file_dict(s) for s in scans], "counts": counts(scans),
                       "exit_status": exit_status(scans)}, indent=1, ensure_ascii=False)


def main(paths: list[str], fmt: str = "text", brief: bool = False) -> int:
    """Scan the paths, print the report in the chosen format, return the exit status."""
    scans = scanner.scan_paths(paths)
    for path in scanner.not_python(paths):
        print(f"warning: {path} is not a .py or .ipynb file: read as Python", file=sys.stderr)
    if not scans:
        print(f"no .py or .ipynb files under {' '.join(paths)}", file=sys.stderr)
    if fmt == "json":
        print(as_json(scans))
    elif fmt == "markdown":
        print(markdown(scans))
    else:
        print(text(scans, verbose=not brief))
    return exit_status(scans)

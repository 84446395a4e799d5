"""Where the shipped data lives, the errors every reader raises, and a TFRecord reader that names bad records.

Every reader names the file (and row or record) that is wrong and what to do about it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tutorial_lib import locations
from tutorial_lib.env import error_summary, import_tensorflow

# How to get the shipped files back: a checkout rebuilds them; an installed course reinstalls its package.
REBUILD_HINT = ("Reinstall the course (`pip install --force-reinstall --no-deps data-into-tensorflow`) to get the "
                "shipped files back." if locations.is_installed() else
                "Run `make data` (or `python -m tutorial_lib data build`) to rebuild the shipped files.")


class DataFileError(ValueError):
    """A data file is malformed; the message names the file, the row or record, and what to do."""

    def __init__(self, path: str | os.PathLike, problem: str, *, row: int | None = None,
                 record: int | None = None, hint: str = ""):
        where = str(path)
        if row is not None:
            where += f", row {row}"
        if record is not None:
            where += f", record {record}"
        self.path, self.row, self.record, self.problem = Path(path), row, record, problem
        super().__init__(f"{where}: {problem}" + (f". {hint}" if hint else ""))


def empty_file_error(path: str | os.PathLike, layout: str) -> DataFileError:
    """Return the error for a data file that holds no examples at all, naming the layout it should have."""
    return DataFileError(path, "holds no examples", hint=f"Expected {layout}; the file is empty or was not "
                         f"written completely. {fix_hint(Path(path))}")


class MissingDataError(FileNotFoundError):
    """A shipped data file is missing; the message says how to rebuild it."""


def data_dir() -> Path:
    """Return the data directory: $TUTORIAL_DATA_DIR if set, else the shipped data (package or checkout)."""
    override = os.environ.get("TUTORIAL_DATA_DIR")
    return Path(override) if override else locations.data_root()


def data_path(*parts: str) -> Path:
    """Return the path of a shipped data file, raising MissingDataError if it is not there."""
    path = data_dir().joinpath(*parts)
    if not path.exists():
        raise MissingDataError(f"{path}: shipped data file is missing. {REBUILD_HINT}")
    return path


def fix_hint(path: Path, missing: bool = False) -> str:
    """Say how to get a good copy: rebuild for the shipped data, re-create a user's own file (or, when it is missing,
    check its path); the text ends with a full stop."""
    inside = data_dir().resolve() in path.resolve().parents
    if inside:
        return REBUILD_HINT
    return "Re-create the file from its source" + (", or check the path." if missing else ".")


def check_exists(path: Path) -> Path:
    """Return the path if it exists, else raise MissingDataError saying how to get the file."""
    if not path.exists():
        raise MissingDataError(f"{path}: no such file. {fix_hint(path, missing=True)}")
    return path


def read_records(path: str | os.PathLike, skip_bad: bool = False) -> tuple[list[bytes], list[DataFileError]]:
    """Read the raw records of a TFRecord file; a corrupt record raises (naming it) or ends the file, reported."""
    tf = import_tensorflow()
    path = check_exists(Path(path))
    records, iterator = [], iter(tf.data.TFRecordDataset(str(path)))
    while True:
        try:
            records.append(next(iterator).numpy())
        except StopIteration:
            return records, []
        except tf.errors.DataLossError as err:
            said = error_summary(err)
            cause = ("the file ends inside this record (it was cut short)" if "truncated record" in said else
                     "this record failed TFRecord's length or CRC check (the file was damaged, or is not a TFRecord "
                     "file)")
            error = DataFileError(path, f"is corrupted ({said})", record=len(records),
                                  hint=f"TensorFlow says {cause}; TFRecord has no markers to resume from, so reading "
                                  "stops at this record (records count from 0) and the ones after it are not read. "
                                  f"{fix_hint(path)}")
            if not skip_bad:
                raise error from None
            return records, [error]

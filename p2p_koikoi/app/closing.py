"""The lines that close a match: where its record is, and the exact command to use it next.

The command is the one that works from here: ``koikoi`` when that is on the PATH and is this
program, else the path this program was started by (``.venv/bin/koikoi``), else
``python -m p2p_koikoi``. Paths are printed whole, never wrapped, so a mouse can copy them.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from p2p_koikoi.record.format import secret_path

__all__ = ["koikoi_command", "record_lines"]


def koikoi_command() -> str:
    """How to run this program again from the current folder."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is None or started.name != "koikoi":  # python -m p2p_koikoi, or inside another program
        return f"{shlex.quote(sys.executable)} -m p2p_koikoi"
    on_path = shutil.which("koikoi")
    if on_path is not None and started.exists() and Path(on_path).resolve() == started.resolve():
        return "koikoi"
    return shlex.quote(str(started)) if "/" in str(started) else shlex.quote(str(started.resolve()))


def record_lines(record: Path | None, *, finished: bool) -> list[str]:
    """Where the record is and how to check it; for a match that did not finish and can be taken up
    again (our secret is still beside the record), the exact ``resume`` command too."""
    if record is None:
        return []
    command, path = koikoi_command(), shlex.quote(str(record))
    lines = [f"Record saved: {record}", f"Check it with: {command} verify {path}"]
    if not finished and secret_path(record).exists():
        lines.append(f"Take the match up again with: {command} resume {path}")
    return lines

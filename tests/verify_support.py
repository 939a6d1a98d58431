"""The checks of played matches' records that several test files make alike; this module holds no test itself.

- :func:`each_record_verifies`: ``koikoi verify FILE`` of every record in a folder, one process each;
- :func:`folder_verifies`: ``koikoi verify FOLDER`` once, as a user checks a folder of records;
- :func:`all_verify`: the folder's records verified in this process (``verify_paths``), no ``koikoi`` run;
- :func:`verify_json`: ``koikoi verify FILE --json``, its exit code and its one report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.record.verify import Verdict as RecordVerdict
from p2p_koikoi.testing import KOIKOI, koikoi_env

__all__ = ["all_verify", "each_record_verifies", "folder_verifies", "verify_json"]


def each_record_verifies(replays: Path, count: int = 2) -> None:
    """``replays`` holds ``count`` records, and ``koikoi verify`` of each exits 0."""
    records = sorted(replays.glob("*.koikoi"))
    assert len(records) == count
    for record in records:
        verified = subprocess.run([*KOIKOI, "verify", str(record)], capture_output=True, text=True, check=False)
        assert verified.returncode == 0, verified.stdout + verified.stderr


def folder_verifies(replays: Path, count: int) -> None:
    """``replays`` holds ``count`` records, and ``koikoi verify`` of the folder says each is verified."""
    records = sorted(replays.glob("*.koikoi"))
    assert len(records) == count, records
    out = subprocess.run(
        [*KOIKOI, "verify", str(replays)], env=koikoi_env(replays.parent / "checker"), capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{count} of {count} verified." in out.stderr and out.stdout.count("OK: ") == count, out.stdout


def all_verify(replays: Path, count: int) -> None:
    """``replays`` holds ``count`` records, and every one is verified (in this process, one at a time)."""
    records = sorted(replays.glob("*.koikoi"))
    assert len(records) == count, records
    reports = verify_paths(records, jobs=1)
    assert [r.verdict for r in reports] == [RecordVerdict.VERIFIED] * count, reports


def verify_json(path: Path) -> tuple[int, dict[str, Any]]:
    """``koikoi verify FILE --json`` as a user runs it: its exit code and its one report (it never
    writes a traceback)."""
    done = subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", "verify", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    (report,) = json.loads(done.stdout)  # always a list, one report per file
    return done.returncode, report

"""The record's header is unsigned metadata (issue 28, item 17; protocol/RECORD.md section 2): a bit flipped
in its timestamp still verifies, and ``koikoi verify`` says so, showing the header apart from what it
checked, marked unsigned, in words and in ``--json``. Through the real program, on a sample record."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import msgpack

from p2p_koikoi.testing import KOIKOI, koikoi_env

SAMPLE = Path(__file__).resolve().parent.parent / "replays" / "nintendo.koikoi"
FLIP = 1 << 20  # about 12 days


def _with_created_flipped(path: Path) -> tuple[int, int]:
    """Flip one bit of the header's ``created`` in place; the times before and after."""
    data = path.read_bytes()
    length = int.from_bytes(data[:4], "big")
    header = msgpack.unpackb(data[4 : 4 + length])
    before = header[4]
    header[4] = before ^ FLIP
    body = msgpack.packb(header)
    assert len(body) == length, "one bit flipped, not a field re-sized"
    path.write_bytes(data[:4] + body + data[4 + length :])
    return before, header[4]


def _verify(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOIKOI, "verify", *args], env=koikoi_env(home), capture_output=True, text=True, timeout=120)


def _utc(seconds: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


def test_a_flipped_header_time_verifies_and_is_shown_as_unsigned(tmp_path: Path) -> None:
    record = tmp_path / SAMPLE.name
    shutil.copyfile(SAMPLE, record)
    before, after = _with_created_flipped(record)
    said = _verify(tmp_path, str(record))
    assert said.returncode == 0 and said.stdout.startswith("OK: "), said.stdout + said.stderr
    (line,) = [line for line in said.stdout.splitlines() if "unsigned header" in line]
    assert line.startswith("  unsigned header (its writer's say-so: no signature covers it"), line
    assert f"begun {_utc(after)} by p2p-koikoi/" in line and _utc(before) not in line
    (report,) = json.loads(_verify(tmp_path, "--json", str(record)).stdout)
    assert report["verdict"] == "verified"
    assert report["header"] == {
        "signed": False,
        "writer_seat": 0,
        "peer_address": report["header"]["peer_address"],
        "created": after,
        "software": report["header"]["software"],
    }


def test_the_untouched_sample_shows_its_own_time() -> None:
    said = _verify(SAMPLE.parent, str(SAMPLE))
    length = int.from_bytes(SAMPLE.read_bytes()[:4], "big")
    created = msgpack.unpackb(SAMPLE.read_bytes()[4 : 4 + length])[4]
    assert f"begun {_utc(created)} by " in said.stdout and "the host's copy" in said.stdout

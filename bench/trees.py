"""Another commit's tree beside this one, for the benches' side-by-side runs (``--vs REF``)."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def unpacked(ref: str) -> Iterator[Path]:
    """The tree of commit ``ref``, unpacked into a temporary folder (removed afterwards)."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref], capture_output=True, check=False)
    if tar.returncode != 0:
        raise SystemExit(f"bench: cannot read commit {ref}: {tar.stderr.decode().strip()}")
    folder = Path(tempfile.mkdtemp(prefix="koikoi-vs-"))
    try:
        with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
            archive.extractall(folder, filter="data")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)

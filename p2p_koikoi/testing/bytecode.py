"""The suite's bytecode cache (``PYTHONPYCACHEPREFIX``) kept to the sources that still exist.

The cache mirrors each source file's absolute path, so every clone or worktree the suite ever ran from
leaves a tree of its own there, and a worktree removed long ago keeps its bytecode for ever. Before a run,
:func:`prune_orphans` removes every cached directory whose source directory is gone. A directory whose
source still exists is left whole: its files are checked against their sources by Python itself.

Only ever call it on a prefix the suite chose itself: on any other directory it would remove whatever
there has no namesake at the root of the file system.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["prune_orphans"]


def prune_orphans(prefix: Path) -> int:
    """Remove each directory under ``prefix`` whose mirrored source directory no longer exists; return how
    many were removed. Descends only where the source exists, so the walk is as deep as the live trees."""
    if not prefix.is_dir():
        return 0
    removed = 0
    for top, dirs, _files in os.walk(prefix):
        source = Path("/") / Path(top).relative_to(prefix)
        kept = []
        for name in dirs:
            if (source / name).is_dir():
                kept.append(name)
            else:
                shutil.rmtree(Path(top) / name, ignore_errors=True)
                removed += 1
        dirs[:] = kept
    return removed

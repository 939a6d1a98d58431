"""The suite's bytecode cache loses the trees of sources that are gone, and keeps the rest."""

from __future__ import annotations

from pathlib import Path

from p2p_koikoi.testing.bytecode import prune_orphans


def _cached(prefix: Path, source_dir: Path) -> Path:
    """A cached module for a source directory, where PYTHONPYCACHEPREFIX would put it."""
    mirror = prefix / source_dir.relative_to("/")
    mirror.mkdir(parents=True, exist_ok=True)
    (mirror / "module.cpython-311.pyc").write_bytes(b"cached")
    return mirror


def test_a_removed_worktree_loses_its_bytecode_and_a_live_one_keeps_it(tmp_path: Path) -> None:
    prefix = tmp_path / "cache"
    live = tmp_path / "live" / "pkg"
    live.mkdir(parents=True)
    gone = tmp_path / "gone" / "pkg"
    live_cache = _cached(prefix, live)
    gone_cache = _cached(prefix, gone)
    stale_inside_live = _cached(prefix, live / "removed_subpackage")

    assert prune_orphans(prefix) == 2

    assert (live_cache / "module.cpython-311.pyc").read_bytes() == b"cached"
    assert not gone_cache.exists()
    assert not gone_cache.parent.exists()  # the whole removed tree, from its first missing directory
    assert not stale_inside_live.exists()
    assert prune_orphans(prefix) == 0


def test_no_cache_yet_is_nothing_to_prune(tmp_path: Path) -> None:
    assert prune_orphans(tmp_path / "nowhere") == 0

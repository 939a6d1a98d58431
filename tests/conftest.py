"""What every test file shares: the process the suite runs in, and the presets and strategies the files use
alike (``from conftest import SHORT_LEMME``: one definition, not a copy in each file).

Ctrl-C tests send SIGINT to a child ``koikoi`` process and expect what a terminal's Ctrl-C gets. A child
inherits an *ignored* SIGINT (a suite started from ``nohup``, a CI runner, or a shell's background job
ignores it), and Python then installs no KeyboardInterrupt handler in it, so the test would wait forever.
A Python-level handler is reset to the default at ``exec``, so installing the default one here gives
every child the default disposition, as a terminal's foreground program has.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import platformdirs
import pytest
from hypothesis import strategies as st

from p2p_koikoi.engine import PRESETS, preset
from p2p_koikoi.testing.bytecode import prune_orphans

SHORT_LEMME = preset("lemme").with_option("rounds", "3")
"""The two-peer tests' usual match: Lemme's rules over three rounds (no Hiki, few hand yaku)."""

SHORT_NINTENDO = preset("nintendo").with_option("rounds", "3")
"""Nintendo's rules over three rounds: hand yaku and the exchange, for the tests that need them."""

presets = st.sampled_from(sorted(PRESETS))
"""A preset's name, for property tests over every rule set."""


# pytest-xdist's workers set COLUMNS and LINES to 80x24, and a child process inherits them: a `koikoi`
# table in a 40x12 tmux pane would then draw itself at 80x24. Every child measures its own terminal.
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

# The suite starts some hundreds of `koikoi` processes. Where the environment says not to write bytecode
# (PYTHONDONTWRITEBYTECODE, which keeps `__pycache__` out of the tree), each of them compiled every module
# it imports from source again, about a quarter of a second of CPU apiece. Bytecode is written instead to a
# cache outside the tree (PYTHONPYCACHEPREFIX), shared by the workers and their children and checked
# against each source file's time and size as always, so the tree stays as clean as that setting asked.
# The cache is in the user's own cache directory, not under a shared temp dir, where another user could
# plant bytecode for our processes to run.
# The controller prunes what removed clones and worktrees left there (:mod:`p2p_koikoi.testing.bytecode`).
_BYTECODE = Path(platformdirs.user_cache_dir("p2p-koikoi")) / "test-bytecode"
if os.environ.pop("PYTHONDONTWRITEBYTECODE", ""):
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(_BYTECODE))
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False
    if "PYTEST_XDIST_WORKER" not in os.environ and os.environ["PYTHONPYCACHEPREFIX"] == str(_BYTECODE):
        prune_orphans(_BYTECODE)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per core and one more. A third of the suite's time, on two cores, is spent
    waiting (for ``koikoi`` processes, tmux panes, namespaces and real-clock deadlines) rather than
    computing, and the extra worker fills those waits: 381 s with two workers, 329 s with three, measured
    one after the other on the same two-core machine."""
    return len(os.sched_getaffinity(0)) + 1


def pytest_configure(config: pytest.Config) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)

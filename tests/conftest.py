"""What every test file shares: the process the suite runs in.

Ctrl-C tests send SIGINT to a child ``koikoi`` process and expect what a terminal's Ctrl-C gets. A child
inherits an *ignored* SIGINT (a suite started from ``nohup``, a CI runner, or a shell's background job
ignores it), and Python then installs no KeyboardInterrupt handler in it, so the test would wait forever.
A Python-level handler is reset to the default at ``exec``, so installing the default one here gives
every child the default disposition, as a terminal's foreground program has.
"""

from __future__ import annotations

import signal

import pytest


def pytest_configure(config: pytest.Config) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)

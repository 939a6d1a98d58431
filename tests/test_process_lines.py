"""The process helpers the real-process tests wait with are bounded: a child that goes quiet fails the
test within its deadline instead of hanging the suite (a host whose words changed once held a test for
300 s at a blocked read)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from p2p_koikoi.testing.processes import stderr_lines_until


def _child(script: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)


def test_lines_up_to_the_awaited_words_are_returned() -> None:
    child = _child("import sys; print('first', file=sys.stderr); print('the words', file=sys.stderr)")
    assert stderr_lines_until(child, "words") == ["first", "the words"]
    child.wait(timeout=10)


def test_a_child_that_goes_quiet_fails_at_the_deadline_and_is_stopped() -> None:
    child = _child("import sys, time; print('one line', file=sys.stderr, flush=True); time.sleep(60)")
    started = time.monotonic()
    with pytest.raises(AssertionError, match=r"within 1 s.*one line"):
        stderr_lines_until(child, "never written", seconds=1)
    assert time.monotonic() - started < 10
    assert child.wait(timeout=10) != 0


def test_a_child_that_ends_without_the_words_fails_at_once() -> None:
    child = _child("import sys; print('only this', file=sys.stderr)")
    with pytest.raises(AssertionError, match="only this"):
        stderr_lines_until(child, "never written", seconds=30)
    child.wait(timeout=10)

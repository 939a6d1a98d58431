"""Tests that build network namespaces: where namespaces cannot be made, they say why and skip, except
under CI, which runs as root and must run them (as the tmux test fails there rather than skip)."""

from __future__ import annotations

import os

import pytest


def no_namespaces(reason: str = "network namespaces are not allowed here") -> None:
    """Skip the test with ``reason``; under CI, fail it instead."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the network namespace tests: {reason}")
    pytest.skip(reason)

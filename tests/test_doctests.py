"""Every docstring example in the package runs, and says what it shows (issue 27: ten modules had examples
and only two ran, so one had gone stale). Modules are found by their ``>>>``, so a new example is run
from the day it is written."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "p2p_koikoi"
WITH_EXAMPLES = sorted(
    ".".join(("p2p_koikoi", *path.relative_to(PACKAGE).with_suffix("").parts))
    for path in PACKAGE.rglob("*.py")
    if ">>> " in path.read_text()
)


def test_the_examples_are_found() -> None:
    assert "p2p_koikoi.fairness.session" in WITH_EXAMPLES and len(WITH_EXAMPLES) >= 10


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result.failed} of {result.attempted} failed"

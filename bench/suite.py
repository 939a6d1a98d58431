"""The suite's time at two revisions, side by side, in one sitting (issue 27's "at most half of today's time").

Each revision is checked out in a temporary git worktree and its checks run there with this checkout's
virtual environment, as ``.ci/run`` runs them once the environment is set up: ``ruff check``, ``mypy`` and
``pytest -q`` (the setup itself, the same for both, is left out). The revisions take turns (before, after,
before, after...) so that a machine that grows busier weighs on both alike. Prints one line per run and, per
revision, the median wall-clock time and the ratio of the two.

    .venv/bin/python bench/suite.py                        # before issue 27 against HEAD, once each
    .venv/bin/python bench/suite.py --runs 2 --before eeed2e1^ --after HEAD
    .venv/bin/python bench/suite.py --pytest-only -- tests/test_session.py   # a part of the suite only

A figure, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv" / "bin"
BEFORE = "eeed2e1^"  # the tree before issue 27's first commit (the Hiki seed pinned)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def _steps(pytest_args: list[str], pytest_only: bool) -> list[tuple[str, list[str]]]:
    pytest = ("pytest", [str(VENV / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args])
    if pytest_only:
        return [pytest]
    return [
        ("ruff", [str(VENV / "ruff"), "check", "p2p_koikoi", "tests", "bench"]),
        ("mypy", [str(VENV / "mypy")]),
        pytest,
    ]


def _run(tree: Path, steps: list[tuple[str, list[str]]]) -> tuple[float, dict[str, float], str]:
    """Run the steps in ``tree``: the total seconds, each step's, and pytest's summary line.

    Bytecode is not written into the tree; a suite that caches it elsewhere (``PYTHONPYCACHEPREFIX``,
    from ``tests/conftest.py`` on) gets an empty cache of its own for every run, as a clean clone in CI
    does, so that no run is faster for the runs before it."""
    times: dict[str, float] = {}
    summary = ""
    for name, command in steps:
        cache = tempfile.mkdtemp(prefix="koikoi-suite-bytecode-")
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": cache}
        began = time.perf_counter()
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
        times[name] = time.perf_counter() - began
        shutil.rmtree(cache, ignore_errors=True)
        if name == "pytest":
            lines = [line for line in done.stdout.splitlines() if re.search(r"\d+ (passed|failed|error)", line)]
            summary = lines[-1].strip("= ") if lines else f"exit {done.returncode}"
        elif done.returncode != 0:
            summary = f"{name} failed (exit {done.returncode}); "
    return sum(times.values()), times, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"the earlier revision (default {BEFORE})")
    parser.add_argument("--after", default="HEAD", help="the later revision (default HEAD)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each revision, taking turns (default 1)")
    parser.add_argument("--pytest-only", action="store_true", help="time pytest alone, not ruff and mypy")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest after --")
    options = parser.parse_args()
    revisions = {
        "before": _git("rev-parse", "--short", options.before),
        "after": _git("rev-parse", "--short", options.after),
    }
    steps = _steps(options.pytest_args, options.pytest_only)
    scratch = Path(tempfile.mkdtemp(prefix="koikoi-suite-bench-"))
    trees = {label: scratch / label for label in revisions}
    totals: dict[str, list[float]] = {label: [] for label in revisions}
    print(f"cores: {os.cpu_count()}, load: {os.getloadavg()[0]:.2f}; steps: {', '.join(n for n, _ in steps)}")
    try:
        for label, revision in revisions.items():
            _git("worktree", "add", "--detach", str(trees[label]), revision)
        for run in range(1, options.runs + 1):
            for label, revision in revisions.items():
                total, times, summary = _run(trees[label], steps)
                totals[label].append(total)
                each = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in times.items())
                print(f"run {run} {label:6} {revision}: {total:7.1f} s ({each}); {summary}", flush=True)
    finally:
        for tree in trees.values():
            if tree.exists():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)
    before, after = (statistics.median(totals[label]) for label in ("before", "after"))
    print(f"median: before {revisions['before']} {before:.1f} s, after {revisions['after']} {after:.1f} s")
    print(f"after / before: {after / before:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

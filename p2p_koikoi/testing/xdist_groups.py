"""A pytest plugin that makes ``pytest.mark.xdist_group`` work again under pytest 9.2 (``-p`` it, or name it in
the root conftest's ``pytest_plugins``).

``--dist loadgroup`` sends the tests of one group to one worker by reading the group from a suffix of each
test's node id (``tests/test_history.py::test_x@history``), which pytest-xdist 3.8 adds on each worker by
setting ``item._nodeid``. pytest 9.2 keeps the node id elsewhere (``item._id``, a ``NodeId``), so that
assignment changes nothing: every group is silently ignored, and a module fixture meant to be made once
(``test_history``'s folder of records, ``test_record_samples``' verification) is made on both workers, and
the ``netns`` tests meant to run one at a time may run two at once. This hook adds the suffix where pytest
9.2 reads the node id, after xdist's own hook, and only where xdist's did not take.
"""

from __future__ import annotations

import pytest
from _pytest.nodeid import NodeId

__all__ = ["pytest_collection_modifyitems"]


def _grouped(nodeid: str) -> bool:
    """Whether the id already ends in a group suffix (an ``@`` after the parameters' ``]``, as xdist reads it)."""
    return nodeid.rfind("@") > nodeid.rfind("]")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not getattr(config.option, "loadgroup", False):  # set by xdist on a worker of --dist loadgroup
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) for mark in marks}
        if names and not _grouped(item.nodeid):
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(sorted(names))}")

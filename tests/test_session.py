"""The match session: restoring from a record, and the rulebook's Hiki answer to a Gaji play."""

from __future__ import annotations

import pytest

from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import PRESETS, preset
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing import deterministic_entropy, pipe_sessions, session_pair


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_session_restored_from_any_prefix_of_its_record_writes_the_same_entries(name: str) -> None:
    pair = session_pair(preset(name).with_option("rounds", "3"), deterministic_entropy(name.encode()))
    assert pipe_sessions(pair, (RandomAgent(1), RandomAgent(2))) is None
    entries = pair.host.chain.entries
    for seat, original in enumerate(pair.sessions):
        for cut in sorted({1, 2, 7, 16, len(entries) // 3, len(entries) // 2, len(entries) - 2, len(entries)}):
            restored = MatchSession.restore(seat, pair.keys[seat], entries[:cut], original.master_secret)
            # Whatever it writes next on its own is what the original wrote at that point.
            produced = restored.chain.entries
            assert [e.data for e in produced] == [e.data for e in entries[: len(produced)]]
            assert len(produced) >= cut


HIKI_SEED = 23
"""The first seed of ``hiki%d`` whose match holds a Hiki declaration (found once by searching from 0;
the deal and the random bots are reproducible from it, so it is pinned rather than searched each run)."""


def test_the_gaji_blocked_by_a_hiki_is_declared_not_blamed() -> None:
    """A Gaji wildcard aimed at a month of three while the other holds the fourth: the other answers
    ``hiki CARD``, the play is void, the player plays again, and the match goes on to its end."""
    seed = HIKI_SEED
    pair = session_pair(preset("rulebook").with_option("rounds", "3"), deterministic_entropy(b"hiki%d" % seed))
    error = pipe_sessions(pair, (RandomAgent(seed), RandomAgent(seed + 1)))
    assert error is None, (seed, error)
    moves = [e.entry.body[1] for e in pair.host.chain.entries if e.entry.kind == "move"]
    declared = sum(1 for m in moves if m.startswith("hiki "))
    assert declared, "the pinned seed no longer makes a Hiki declaration: search again from 0"

"""Copies of one match that part ways, for tests and samples of ``koikoi verify A B`` (RECORD.md 4.5).

The shapes every such test needs: the place where a seat owed the next entry while the other wrote on
after it, a goodbye chained after a prefix as the referee has a seat write it, and the loser's cut copy
(its copy cut where the winner owed an entry, ended with its own signed claim of the winner's silence).
"""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.record.audits import audit_deals
from p2p_koikoi.referee import Claim, Referee, SpectatorKnowledge
from p2p_koikoi.wire import SignedEntry
from p2p_koikoi.wire.bodies import EntryKind, GoodbyeBody

__all__ = ["cut_copy", "goodbye_after", "owed_by"]


def owed_by(entries: Sequence[SignedEntry], seat: int, *, then: int | None = None) -> int:
    """The last entry of ``seat`` (a move or a deal message, not the match entry nor a goodbye) that is
    followed by an entry of seat ``then``: a point where ``seat`` owed the next entry and the other wrote
    more after it. ``then=None``: the last such entry of ``seat``."""
    for index in range(len(entries) - 1, 0, -1):
        entry = entries[index].entry
        later = {e.entry.author for e in entries[index + 1 :]}
        if entry.author == seat and entry.kind in (EntryKind.MOVE, EntryKind.DEAL) and (then is None or then in later):
            return index
    raise LookupError(f"seat {seat} owes nothing in this chain")


def goodbye_after(prefix: Sequence[SignedEntry], key: Ed25519PrivateKey, author: int, body: GoodbyeBody) -> SignedEntry:
    """``author``'s goodbye chained after ``prefix``, prepared by a referee that has judged the prefix."""
    referee = Referee(SpectatorKnowledge(audit_deals(list(prefix))))
    for signed in prefix:
        referee.feed(signed)
    return SignedEntry.sign(referee.prepare(author, body.KIND, body.to_list()), key)


def cut_copy(entries: Sequence[SignedEntry], winner: int, loser_key: Ed25519PrivateKey) -> list[SignedEntry]:
    """The loser's copy of a match ``winner`` won: cut where the winner owed an entry (one the winner's
    copy holds) and ended with the loser's own genuinely signed claim of the winner's silence."""
    loser = 1 - winner
    cut = owed_by(entries, winner, then=loser)
    claim = GoodbyeBody(Claim.PEER_GONE.value, "the opponent vanished")
    return [*entries[:cut], goodbye_after(entries[:cut], loser_key, loser, claim)]

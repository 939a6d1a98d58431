"""Shared checks of the cheating-peer suites (``test_cheat_*.py``); this module holds no test itself.

Every attack ends with the same questions about the honest side, asked by :func:`assert_caught`:
did it catch the cheat at the entry where it became knowable (not later), name it in one line with
the seat to blame, end the match with its signed goodbye, keep the evidence in its record (the
offending entry in the chain when it was validly signed and linked, its raw bytes in a note
otherwise), and does ``koikoi verify`` on that record say the same?
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2p_koikoi.record.reader import Note, Record
from p2p_koikoi.referee import Ending
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession, Stage
from p2p_koikoi.testing.adversary import Duel, Tamper, forge, signing_key
from p2p_koikoi.wire import SignedEntry
from p2p_koikoi.wire.frames import Frame
from tests.verify_support import verify_json

__all__ = ["Liar", "Verdict", "assert_caught", "at_move", "fork", "last_own_entry", "note_entry", "verify_record"]


class Liar(MatchSession):
    """An honest session that, once, writes something other than what it should.

    Subclasses override :meth:`lie`: given the kind and body the honest session is about to sign, it
    returns the body to sign instead, or None to write the truth. The lie is signed with the liar's
    own key and linked in its own chain: a validly signed lie. :attr:`lie_entry` is what was sent.
    """

    lie_entry: SignedEntry | None = None
    sends_what_it_breaks = True  # its own referee would refuse the lie: a cheat sends it all the same

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        return None

    def _write(self, kind: str, body: list[Any]) -> SignedEntry:
        if self.lie_entry is None and self.stage is not Stage.OVER:
            altered = self.lie(kind, body)
            if altered is not None:
                self.lie_entry = super()._write(kind, altered)
                return self.lie_entry
        return super()._write(kind, body)


def at_move(
    number: int, act: Callable[[MatchSession, SignedEntry], Sequence[Frame]]
) -> Callable[[MatchSession], Tamper]:
    """A tamper that sends the cheater's entries untouched except its ``number``-th ``move``, which
    ``act(cheater's session, that entry)`` replaces."""

    def build(session: MatchSession) -> Tamper:
        moves = 0

        def tamper(signed: SignedEntry) -> Sequence[Frame]:
            nonlocal moves
            if signed.entry.kind == "move":
                moves += 1
                if moves == number:
                    return act(session, signed)
            return [signed]

        return tamper

    return build


def last_own_entry(session: MatchSession, before: int) -> SignedEntry:
    """The cheater's own newest entry with a seq below ``before``."""
    return next(e for e in reversed(session.chain.entries[:before]) if e.entry.author == session.seat)


def fork(forked: list[SignedEntry]) -> Callable[[MatchSession, SignedEntry], Sequence[Frame]]:
    """For :func:`at_move`: send the move, then a second, different entry with the seq of the cheater's
    previous entry, validly signed by the cheater (it is appended to ``forked``)."""

    def act(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        earlier = last_own_entry(session, signed.entry.seq)
        forked.append(earlier)
        other = forge(earlier, signing_key(session), state=hashlib.sha256(b"another view").digest()[:16])
        return [signed, other]

    return act


def note_entry(note: Note) -> SignedEntry:
    """The entry a note keeps as evidence: its exact bytes, then its 64-byte signature."""
    return SignedEntry.parse(note.evidence[:-64], note.evidence[-64:])


@dataclass(frozen=True)
class Verdict:
    """What ``koikoi verify FILE --json`` said: its exit code, verdict and finding (``failure``)."""

    code: int
    verdict: str
    reason: str | None
    blame: int | None
    entry: int | None
    output: dict[str, Any]


def verify_record(path: Path) -> Verdict:
    """Run ``koikoi verify FILE --json`` as a user would, and read its finding."""
    code, output = verify_json(path)
    finding = output.get("failure") or {}
    return Verdict(code, output["verdict"], finding.get("reason"), finding.get("blame"), finding.get("entry"), output)


def assert_caught(
    duel: Duel,
    reason: str,
    *,
    blame: int,
    offending: SignedEntry | None = None,
    stage: Stage | None = None,
    evidence: str = "chain",
    verified: tuple[str, str, int | None] | None = None,
) -> Record:
    """The honest side caught ``reason`` by seat ``blame``, at once, and kept the proof.

    ``evidence`` says where the proof is kept:

    - ``"chain"``: the offending entry was validly signed and linked, so it is the last entry the
      honest side took before its goodbye (nothing after it was accepted); ``offending``, if given,
      must be that very entry;
    - ``"note"``: it could not join the chain; its exact bytes and signature are in the note;
    - ``"copy"``: it is a byte-for-byte copy of an entry of the chain (a replay): the note names it,
      and keeps its bytes unless that entry is among the newest (the chain holds them already).

    ``stage``: where the honest side stood when the offending entry arrived.

    ``verified``: what ``koikoi verify`` must say (verdict, reason, blame), when a third party holding
    only the record cannot say what the live side said; by default it says the same: ``failed``, same
    reason, same seat, found at the same entry, and it reports the honest side's note as agreeing.
    """
    failure = duel.failure
    assert (failure.reason, failure.blame) == (reason, blame), (failure.reason, failure.blame, str(failure))
    # One line, naming who is to blame.
    honest = duel.honest
    assert duel.failed_lines == [f"{failure} (the peer to blame)"]
    assert "\n" not in duel.report.text and duel.report.text == str(failure)
    assert blame == honest.peer
    # The match is over, and our signed goodbye says why.
    assert honest.stage is Stage.OVER and duel.report.ended_by is SessionEnd.VIOLATION
    record = duel.record
    goodbye = record.entries[-1].entry
    assert (goodbye.kind, goodbye.author) == ("goodbye", honest.seat)
    assert goodbye.body[0] == f"violation:{reason}"
    # The evidence.
    assert record.complete, record.problem
    assert [(n.reason, n.blame) for n in record.notes] == [(reason, blame)]
    (note,) = record.notes
    if evidence == "chain":
        last = record.entries[-2]
        assert last.entry.author == blame, "the entry before our goodbye is not the cheater's"
        if offending is not None:
            assert last.data == offending.data, (last.entry.seq, offending.entry.seq)
        assert note.evidence == b""
    elif evidence == "note":
        kept = note_entry(note)
        assert all(kept.data != e.data for e in record.entries), "the note keeps an entry of the chain"
    else:
        assert evidence == "copy", evidence
        assert note.evidence == b"" or any(note_entry(note).data == e.data for e in record.entries)
    if stage is not None:
        assert duel.caught_in[0] is stage, duel.caught_in
    expected = verified if verified is not None else ("failed", reason, blame)
    verdict = verify_record(duel.path)
    assert verdict.code == 1, verdict.output
    assert (verdict.verdict, verdict.reason, verdict.blame) == expected, verdict.output["failure"]
    found = verdict.output["failure"]
    if verdict.verdict == "failed":  # located where the live side caught it (or proved wrong there)
        caught_at = record.entries[-2].entry.seq if evidence == "chain" else record.entries[-1].entry.seq
        assert caught_at in (found["entry"], found["found_at"]), (caught_at, found)
    (checked,) = verdict.output["notes"]
    assert checked["agrees"] is (expected == ("failed", reason, blame)), checked
    return record


def assert_dropped(duel: Duel, reason: str, *, stage: Stage | None = None) -> Record:
    """Bytes the honest side could not take into its chain (a bad signature, another match's entry, a
    replay, a fork, a wrong link): a broken connection, never an ending of their own (SPEC.md section 7),
    since nobody but the receiver ever saw them. The honest side notes them, signature and all, and drops
    the connection; the cheater is then gone for good (nothing reconnects in a duel), so once it owes the
    next entry the honest side claims the match by its silence. The honest record verifies as the honest
    seat's win, marked as claimed, and shows no violation, disputed or abandoned ending."""
    honest = duel.honest
    assert duel.report.failure is None, duel.report.failure
    assert duel.report.ended_by is SessionEnd.PEER_VANISHED, duel.report.ended_by
    end = honest.ending
    assert end is not None and end.how is Ending.SILENCE and end.claimed and end.winner == honest.seat, end
    record = duel.record
    assert record.complete, record.problem
    assert [n.reason for n in record.notes][:1] == [reason], record.notes
    goodbye = record.entries[-1].entry
    assert (goodbye.kind, goodbye.author) == ("goodbye", honest.seat)
    assert goodbye.body[0] in ("peer-gone", "stalled"), goodbye.body
    if stage is not None:
        assert duel.caught_in[0] is stage, duel.caught_in
    verdict = verify_record(duel.path)
    assert verdict.code == 0, verdict.output
    ending = verdict.output["ending"]
    assert (ending["how"], ending["winner"], ending["claimed"]) == ("silence", honest.seat, True), ending
    return record

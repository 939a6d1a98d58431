"""Endings nobody can escape (issue 24): a seat about to lose tries every way out, and the honest one wins.

Each cheater is our own session with one step altered, playing the honest program (``run_match``) over
trio memory streams, with the deadlines scaled down (the figures' meaning is unchanged). For each way out:

- the honest seat's record verifies as a win for the honest seat (played out, forfeit, violation, or by
  the other's silence), never as abandoned, disputed or unfinished;
- both copies verified together never name two winners;
- what the honest player was told says the same as the record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from conftest import SHORT_NINTENDO
from test_cheat_support import at_move

from p2p_koikoi.fairness import Commit, Deck, Keys, Reveal, parse_message
from p2p_koikoi.net.timing import Timing
from p2p_koikoi.record.copies import Copy, Ruling, compare_copies
from p2p_koikoi.referee import Ending
from p2p_koikoi.session.events import MatchOver
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing.adversary import Duel, Tamper, duel, forge, signing_key
from p2p_koikoi.wire import Entry, SignedEntry
from p2p_koikoi.wire.frames import Frame
from tests.record_support import verify_entries

RULES = SHORT_NINTENDO
FAST = Timing(
    keepalive=0.2,
    quiet_after=0.5,
    dead_after=5.0,
    step_deadline=1.0,
    turn_grace=0.5,
    reconnect_grace=1.0,
    claim_countdown=0.1,
    claim_linger=0.3,
    linger=0.2,
)
TURN_LIMIT = 1  # seconds a decision; the honest seat claims a silent decider 1.5 s after it fell due
PATIENT = replace(FAST, step_deadline=30.0, turn_grace=10.0)
"""For a test whose cheater acts before it falls silent, on a connection the act breaks: under a loaded
machine the cheater's own deal steps can take longer than FAST's 1 s, and the honest side would then claim
its silence before the act. The claim after the break comes from the reconnect grace, as fast as ever."""


# -- where a cheater falls silent --------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """The ``nth`` entry of the cheater's (counting from 1) that ``matches``: from it on, nothing is sent."""

    name: str
    matches: Callable[[SignedEntry], bool]
    nth: int = 1


def _deal(round_number: int, message: type) -> Callable[[SignedEntry], bool]:
    def matches(signed: SignedEntry) -> bool:
        entry = signed.entry
        if entry.kind != "deal" or entry.body[0] != round_number:
            return False
        return isinstance(parse_message(entry.body[2]), message)

    return matches


def _kind(kind: str, *, text: str = "") -> Callable[[SignedEntry], bool]:
    return lambda signed: signed.entry.kind == kind and (not text or str(signed.entry.body[1]).startswith(text))


def _round(kind: str, round_number: int) -> Callable[[SignedEntry], bool]:
    return lambda signed: signed.entry.kind == kind and signed.entry.body[0] == round_number


POINTS = (
    Point("dealer-draw commit", _deal(0, Commit)),
    Point("dealer-draw deck pass", _deal(0, Deck)),
    Point("dealer-draw second deck pass", _deal(0, Deck), 2),
    Point("dealer-draw keys", _deal(0, Keys)),
    Point("dealer-draw reveal", _deal(0, Reveal)),
    Point("round 1 commit", _deal(1, Commit)),
    Point("round 1 deck pass", _deal(1, Deck)),
    Point("round 1 second deck pass", _deal(1, Deck), 2),
    Point("round 1 table keys", _deal(1, Keys)),
    Point("round 1 hand keys", _deal(1, Keys), 2),
    Point("round 1 first stock key", _deal(1, Keys), 3),
    Point("round 1 first move", _round("move", 1)),
    Point("round 1 third move", _round("move", 1), 3),
    Point("round 1 later stock key", _deal(1, Keys), 6),
    Point("round 1 reveal at the audit", _deal(1, Reveal)),
    Point("round 1 result", _round("result", 1)),
    Point("round 2 commit", _deal(2, Commit)),
    Point("round 2 hand keys", _deal(2, Keys), 2),
    Point("round 2 first move", _round("move", 2)),
    Point("round 2 reveal at the audit", _deal(2, Reveal)),
    Point("last result", _round("result", 3)),
)


def silent_from(point: Point) -> Callable[[MatchSession], Tamper]:
    """The cheater plays honestly until ``point``; from that entry on it sends nothing, though its
    connection stays up and it answers every keepalive (the worst kind of silence: no drop to see)."""

    def build(_session: MatchSession) -> Tamper:
        seen = 0
        silent = False

        def tamper(signed: SignedEntry) -> Sequence[Frame]:
            nonlocal seen, silent
            if not silent and point.matches(signed):
                seen += 1
                silent = seen >= point.nth
            return [] if silent else [signed]

        return tamper

    return build


async def fight(tmp_path: Path, cheater_seat: int = 1, timing: Timing = FAST, **kwargs: object) -> Duel:
    return await duel(
        RULES, tmp_path, cheater_seat=cheater_seat, timing=timing, turn_limit=TURN_LIMIT, timeout=120, **kwargs
    )  # type: ignore[arg-type]


def assert_honest_won(d: Duel, how: Ending) -> None:
    """The honest record verifies as the honest seat's win, ended as ``how``; the two copies verified
    together name no other winner; and the honest player was told it won."""
    honest = d.honest
    record = verify_entries(d.record.entries)
    assert record.verdict in ("verified", "failed"), record.finding
    assert record.ending is not None and record.ending.how is how, (record.ending, record.finding)
    assert record.ending.winner == honest.seat, record.ending
    if how is Ending.SILENCE:
        assert record.verdict == "verified" and record.ending.claimed
    assert honest.ending is not None and honest.ending.how is how and honest.ending.winner == honest.seat
    # Both copies together: never two winners, and the honest copy is never the one that falls.
    theirs = verify_entries(d.cheater.chain.entries)
    found = compare_copies(
        Copy(record.chain, Ruling.of(record.ending), "honest"),
        Copy(theirs.chain, Ruling.of(theirs.ending), "cheater"),
    )
    assert 0 in found.stands or found.kind.value == "disputed", found.text
    winners = {r.winner for i, r in enumerate((record.ending, theirs.ending)) if i in found.stands and r is not None}
    assert winners <= {honest.seat}, found.text
    # The live screen: the match's end as the honest player was told it.
    overs = [e for e in d.player.events if isinstance(e, MatchOver) and e.outcome is not None]
    assert overs and overs[-1].outcome is not None and overs[-1].outcome.winner == honest.seat


@pytest.mark.parametrize("point", POINTS, ids=[p.name.replace(" ", "-") for p in POINTS])
async def test_a_cheater_that_falls_silent_loses_by_its_silence(tmp_path: Path, point: Point) -> None:
    d = await fight(tmp_path, tamper=silent_from(point))
    if point.name == "last result":
        # Silence after the last count changes nothing: the count decided, and the record says so.
        assert_honest_or_count(d)
        return
    assert_honest_won(d, Ending.SILENCE)
    goodbye = d.record.entries[-1].entry
    assert (goodbye.kind, goodbye.author, goodbye.body[0]) in {
        ("goodbye", d.honest.seat, "peer-gone"),
        ("goodbye", d.honest.seat, "stalled"),
    }


def assert_honest_or_count(d: Duel) -> None:
    """After the last result, the count decides whoever is silent: a finished match, both copies agree."""
    record = verify_entries(d.record.entries)
    assert record.ending is not None and record.ending.how in (Ending.FINISHED, Ending.SILENCE), record.ending
    assert record.verdict == "verified", record.finding


async def test_the_host_falls_silent_too(tmp_path: Path) -> None:
    """The same from the other chair: the guest is honest and the host goes quiet mid-round."""
    d = await fight(tmp_path, cheater_seat=0, tamper=silent_from(Point("round 1 move", _round("move", 1), 2)))
    assert_honest_won(d, Ending.SILENCE)


# -- a lie instead of a move ---------------------------------------------------------------------------


Act = Callable[[MatchSession, SignedEntry], Sequence[Frame | bytes]]


def goodbye_instead(reason: str, evidence: bytes | None = None) -> Act:
    """Instead of its move, the cheater signs a ``goodbye`` with ``reason`` at the move's place, then is silent."""

    def act(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        entry = signed.entry
        body = [reason, "made up", evidence]
        lie = Entry(entry.match_id, entry.seq, entry.prev, entry.author, "goodbye", body, entry.state)
        return [SignedEntry.sign(lie, signing_key(session))]

    return act


def silent_after(act: Act) -> Callable[[MatchSession], Tamper]:
    """``act`` replaces the cheater's 2nd move; nothing the cheater writes after it is sent."""
    inner = at_move(2, act)

    def build(session: MatchSession) -> Tamper:
        tamper = inner(session)
        done = False

        def wrapped(signed: SignedEntry) -> Sequence[Frame | bytes]:
            nonlocal done
            if done:
                return []
            out = tamper(signed)
            done = list(out) != [signed]
            return out

        return wrapped

    return build


@pytest.mark.parametrize("reason", ["bad-signature", "desync", "out-of-turn", "bad-link"])
async def test_an_accusation_no_evidence_can_back_is_the_accusers_forfeit(tmp_path: Path, reason: str) -> None:
    """A ``violation:`` about bytes that never joined the chain cannot carry evidence: it is the liar's own
    forfeit, at once (it used to leave the match disputed, at no cost)."""
    d = await fight(tmp_path, tamper=silent_after(goodbye_instead(f"violation:{reason}")))
    assert_honest_won(d, Ending.FORFEIT)
    verified = verify_entries(d.record.entries)
    assert (verified.finding.reason, verified.finding.blame) == ("baseless-accusation", 1)


@pytest.mark.parametrize("claim", ["peer-gone", "stalled"])
async def test_a_claim_of_silence_by_the_seat_that_owes_is_its_forfeit(tmp_path: Path, claim: str) -> None:
    """Saying the other vanished while one owes the next entry oneself: the writer's forfeit."""
    d = await fight(tmp_path, tamper=silent_after(goodbye_instead(claim)))
    assert_honest_won(d, Ending.FORFEIT)


def claim_after(claim: str) -> Act:
    """After its move (which gives the honest seat the floor), the cheater at once claims the honest seat
    went silent, chained after its move: the claim crosses the honest seat's automatic answer in flight."""

    def act(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        entry = signed.entry
        body = [claim, "gone", None]
        lie = Entry(entry.match_id, entry.seq + 1, signed.digest, entry.author, "goodbye", body, entry.state)
        return [signed, SignedEntry.sign(lie, signing_key(session))]

    return act


@pytest.mark.parametrize("claim", ["peer-gone", "stalled"])
async def test_a_false_claim_while_the_honest_seat_holds_the_floor_is_refuted(tmp_path: Path, claim: str) -> None:
    """The honest seat holds the floor and is there: the false claim crosses its automatic entry, takes its
    place, and the honest seat writes its entry again after it, which refutes it. The claim is in the
    honest record (its withdrawn entry kept, with the note), and the silent liar then loses by silence."""
    d = await fight(tmp_path, tamper=silent_after(claim_after(claim)))
    assert_honest_won(d, Ending.SILENCE)
    kinds = [e.entry.kind for e in d.record.entries]
    claims = [i for i, e in enumerate(d.record.entries) if e.entry.kind == "goodbye" and e.entry.author == 1]
    assert claims, kinds
    after = d.record.entries[claims[0] + 1].entry
    assert after.author == d.honest.seat, "the honest seat's entry is chained after the claim, refuting it"


async def test_one_badly_signed_entry_is_a_connection_fault_and_the_gone_cheater_loses(tmp_path: Path) -> None:
    """A badly signed entry ends nothing: the honest side notes it, drops the connection, and the cheater,
    gone for good, loses by its silence."""

    def resign(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        from p2p_koikoi.testing.adversary import seeded_key

        return [forge(signed, seeded_key("someone else"))]

    d = await fight(tmp_path, tamper=silent_after(resign))
    assert_honest_won(d, Ending.SILENCE)
    assert [n.reason for n in d.record.notes][:1] == ["bad-signature"]


async def test_one_garbage_frame_is_a_connection_fault_and_the_gone_cheater_loses(tmp_path: Path) -> None:
    """A frame that is not msgpack at all, sent in place of an entry, ends nothing either: the honest side
    drops the connection and waits out the grace, and the cheater, gone for good, loses by its silence."""
    from p2p_koikoi.wire import encode_frame

    def garbage(session: MatchSession, signed: SignedEntry) -> Sequence[Frame | bytes]:
        return [encode_frame(b"\xc1 not an entry")]

    d = await fight(tmp_path, tamper=silent_after(garbage), timing=PATIENT)
    assert_honest_won(d, Ending.SILENCE)
    assert [(n.reason, n.blame) for n in d.record.notes] == [("bad-msgpack", None)], "noted, never a finding"

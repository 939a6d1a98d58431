"""What the one referee rules when a seat quits, claims the other vanished, accuses it, or loses the link:
as whole matches between two sessions, each ruling checked in both seats' records and in ``koikoi verify``.

Silence loses: a ``peer-gone`` or ``stalled`` by the seat that waited wins it the match, marked as claimed,
until the accused's next entry voids the claim and the match goes on (a lost link makes each seat a claimed
winner until it heals); one by the seat that owes the next entry (in place of its move, or of its secret)
is its own forfeit, and so is a quit, even during the first dealer draw. An accusation carries the
accuser's deal secret, and one that shows nothing is the accuser's forfeit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conftest import SHORT_NINTENDO

from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import MatchContext, Phase
from p2p_koikoi.record.verify import VerifyReport
from p2p_koikoi.referee import Claim, Ending, Stage
from p2p_koikoi.session.match_session import MatchSession, SessionEnd, Waiting
from p2p_koikoi.testing import SessionPair, deterministic_entropy, pipe_sessions, session_pair
from p2p_koikoi.wire import SignedEntry
from tests import stepping
from tests.record_support import verify_entries

RULES = SHORT_NINTENDO
AGENTS = (RandomAgent(1), RandomAgent(2))


def play_until(
    pair: SessionPair, stop: Callable[[SessionPair], bool], limit: int = 5_000, *, settled: bool = True
) -> None:
    """Play with this file's agents until ``stop`` holds (when ``settled``, only at a moment with nothing in
    flight)."""
    stepping.play_until(pair, stop, AGENTS, limit, settled=settled)


def new_pair(label: bytes) -> SessionPair:
    return session_pair(RULES, deterministic_entropy(label))


def guest_owes_its_second_move(pair: SessionPair) -> bool:
    guest = pair.guest
    moves = sum(1 for e in guest.chain.entries if e.entry.kind == "move" and e.entry.author == 1)
    rnd = guest.round
    return moves >= 1 and guest.waiting is Waiting.MOVE and rnd is not None and rnd.phase is Phase.PLAY


def send_raw_goodbye(session: MatchSession, reason: str, text: str, evidence: bytes | None = None) -> SignedEntry:
    """A goodbye the session's own rules would not write (a cheat): signed and sent all the same."""
    session.sends_what_it_breaks = True
    return session._write("goodbye", [reason, text, evidence])


def deliver(pair: SessionPair) -> None:
    """Everything in flight reaches the other side (a side that has ended takes no more)."""
    for seat, session in enumerate(pair.sessions):
        for signed in session.take_outgoing():
            if pair.sessions[1 - seat].takes_entries:
                pair.sessions[1 - seat].receive(signed)


def both_records(pair: SessionPair) -> tuple[VerifyReport, VerifyReport]:
    return verify_entries(pair.host.chain.entries), verify_entries(pair.guest.chain.entries)


def test_a_forged_forfeit_in_place_of_a_move_is_the_forgers_own() -> None:
    """The guest owes its 2nd move and says "the host vanished" instead: it loses by forfeit, in the host's
    record, in its own, and in ``koikoi verify`` of both."""
    pair = new_pair(b"forged forfeit")
    play_until(pair, guest_owes_its_second_move)
    send_raw_goodbye(pair.guest, Claim.PEER_GONE.value, "the host vanished")
    deliver(pair)
    for session in pair.sessions:
        assert session.ending is not None
        assert (session.ending.how, session.ending.seat, session.ending.owed) == (Ending.FORFEIT, 1, 1)
        assert session.ending.winner == 0
    assert pair.host.ended_by is SessionEnd.PEER_QUIT
    for report in both_records(pair):
        assert report.verdict == "verified", report.finding
        assert report.ending is not None and (report.ending.how, report.ending.winner) == (Ending.FORFEIT, 0)


class ClaimsInsteadOfRevealing(MatchSession):
    """At the round's end, says "the host vanished" where its secret is due (a deck cheat would stay hidden)."""

    sends_what_it_breaks = True

    def _write(self, kind: str, body: list[Any]) -> SignedEntry:
        if kind == "deal" and self.referee.stage is Stage.AUDIT:
            return super()._write("goodbye", [Claim.PEER_GONE.value, "the host vanished", None])
        return super()._write(kind, body)


def test_a_forged_forfeit_in_place_of_the_audits_reveal_is_the_forgers_own() -> None:
    """The same claim where the guest owes its secret at the round's end: it cannot hide its deal that way."""
    entropy = deterministic_entropy(b"forged forfeit at the audit")
    honest = session_pair(RULES, entropy)
    host = honest.host
    guest = ClaimsInsteadOfRevealing(
        1, honest.keys[1], host.keys[0], host.nonces, master_secret=honest.guest.master_secret
    )
    pair = SessionPair(host, guest, honest.keys)
    play_until(pair, lambda p: p.host.waiting is Waiting.DONE)
    assert host.ending is not None and (host.ending.how, host.ending.owed, host.ending.winner) == (
        Ending.FORFEIT,
        1,
        0,
    )
    last = host.chain.entries[-1].entry
    assert (last.kind, last.author, last.body[0]) == ("goodbye", 1, "peer-gone")
    report = verify_entries(host.chain.entries)
    assert report.verdict == "verified", report.finding
    assert report.ending is not None and (report.ending.how, report.ending.winner) == (Ending.FORFEIT, 0)


def test_an_accusation_the_evidence_does_not_bear_out_is_the_accusers_forfeit() -> None:
    """The guest, losing, accuses the host of a deal cheat with its real deal secret as evidence: the host's
    referee and ``koikoi verify`` re-derive everything, find nothing, and the guest forfeits."""
    pair = new_pair(b"baseless")
    play_until(pair, guest_owes_its_second_move)
    guest = pair.guest
    context = guest.referee.deal_context()
    assert context is not None
    evidence = guest.knowledge.secret_for(context)
    send_raw_goodbye(guest, "violation:not-a-card", "position 3 does not unlock to a card", evidence)
    deliver(pair)
    host = pair.host
    assert host.ending is not None and (host.ending.how, host.ending.seat, host.ending.winner) == (
        Ending.FORFEIT,
        1,
        0,
    )
    assert host.failure is not None and (host.failure.reason, host.failure.blame) == ("baseless-accusation", 1)
    report = verify_entries(host.chain.entries)
    assert report.verdict == "failed"
    assert (report.finding.reason, report.finding.blame) == ("baseless-accusation", 1)
    assert report.ending is not None and report.ending.winner == 0


def test_an_accusation_with_false_evidence_blames_the_accuser() -> None:
    """Evidence that is not the accuser's secret does not open its commitment: the accuser is the cheat."""
    pair = new_pair(b"false evidence")
    play_until(pair, guest_owes_its_second_move)
    send_raw_goodbye(pair.guest, "violation:not-a-card", "a made-up claim", bytes(range(32)))
    deliver(pair)
    report = verify_entries(pair.host.chain.entries)
    assert (report.finding.reason, report.finding.blame) == ("commitment-mismatch", 1)
    assert report.ending is not None and (report.ending.how, report.ending.winner) == (Ending.FORFEIT, 0)


def test_a_quit_during_the_first_dealer_draw_is_a_forfeit() -> None:
    """A guest that dislikes the coin or the draw cannot drop out for free once it accepted the rules."""
    pair = new_pair(b"free abort")
    play_until(pair, lambda p: p.guest.referee.stage is Stage.FIRST_DEALER and p.guest.referee.step >= 2, settled=False)
    pair.guest.quit("I do not like this draw")
    deliver(pair)
    host = pair.host
    assert host.ending is not None and (host.ending.how, host.ending.seat, host.ending.winner) == (
        Ending.FORFEIT,
        1,
        0,
    )
    report = verify_entries(pair.guest.chain.entries)  # the quit is in the quitter's own chain
    assert report.verdict == "verified", report.finding
    assert report.ending is not None and (report.ending.how, report.ending.winner) == (Ending.FORFEIT, 0)


def test_a_lost_link_makes_each_a_claimed_winner_until_the_link_heals_and_the_match_goes_on() -> None:
    """The guest's move is lost in flight and neither hears from the other again: each thinks the other owes
    the next entry, so each claims the other's silence, and each record alone shows its writer's win, marked
    as claimed (a claim about time, which one copy cannot prove). When the link heals, the host's claim
    reaches the guest, whose move crossed it: the claim takes its place, the guest withdraws its move and
    its own claim, writes the move again after the claim, which refutes it, and the match plays to its end
    with one chain on both sides."""
    pair = new_pair(b"outage")
    play_until(pair, guest_owes_its_second_move)
    view = pair.guest.view()
    assert view is not None and pair.guest.rules is not None and pair.guest.match is not None
    context = MatchContext(pair.guest.rules, 1, tuple(pair.guest.match.points), pair.guest.round_number)
    pair.guest.submit(AGENTS[1].choose(view, pair.guest.legal_actions(), context))
    pair.guest.take_outgoing()  # lost in flight: the guest moved, the host never hears of it
    for session in pair.sessions:
        assert session.peer_vanished("no word from the opponent for 90 s")
    for seat, session in enumerate(pair.sessions):
        assert session.ending is not None and session.ending.how is Ending.SILENCE and session.ending.claimed
        assert session.ending.winner == seat and session.ended_by is SessionEnd.PEER_VANISHED
    for seat, report in enumerate(both_records(pair)):
        assert report.verdict == "verified"
        assert report.ending is not None and (report.ending.how, report.ending.winner) == (Ending.SILENCE, seat)
        assert report.ending.claimed

    claim = pair.host.take_outgoing()
    assert [signed.entry.kind for signed in claim] == ["goodbye"]
    pair.guest.take_outgoing()  # the guest's own claim is lost too
    pair.guest.receive(claim[0])
    assert pair.guest.take_withdrawals() == [claim[0].entry.seq]
    assert pair.guest.chain.entries[-2].data == claim[0].data  # the claim is in the guest's chain
    assert pipe_sessions(pair, AGENTS) is None
    for session in pair.sessions:
        assert session.ended_by is SessionEnd.MATCH_OVER
    assert [e.data for e in pair.host.chain.entries] == [e.data for e in pair.guest.chain.entries]
    report = verify_entries(pair.host.chain.entries)
    assert report.verdict == "verified" and report.ending is not None and report.ending.how is Ending.FINISHED

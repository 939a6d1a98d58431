"""One player's side of a whole match: the one referee, plus what a seat does.

The rules of the match (who writes what when, what every entry means, how a
match ends) live in :class:`~p2p_koikoi.referee.Referee`, which judges every
entry, ours and the peer's, exactly as ``koikoi verify`` judges them later.
This module adds only what a seat has and does:

- our identity and the match's master secret (``referee.sides.SeatKnowledge``);
- when we write: every entry that needs no decision is written as soon as we
  hold the floor (deal messages, stock keys, Hiki answers, results, goodbyes);
  the player's decisions come through :meth:`MatchSession.submit`,
  :meth:`MatchSession.accept` and :meth:`MatchSession.decline`;
- the outbox (:meth:`MatchSession.take_outgoing`) and the events for the
  player (:meth:`MatchSession.take_events`).

Receiving is :meth:`MatchSession.receive` (the referee's ``feed``); writing is
the referee's ``prepare``, then sign, then ``append``, so our own entries pass
the same checks as the peer's. A violation by the peer raises
:class:`~p2p_koikoi.referee.findings.Violation`; the session then writes a
``goodbye`` accusing the peer, with our secret for the deal in progress as
evidence, and is over. It does no I/O.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.engine import (
    Action,
    AnyAction,
    Card,
    ClaimHandYaku,
    Event,
    Exchange,
    MatchOutcome,
    Phase,
    Play,
    Round,
    RuleSet,
    parse_rules,
)
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.fairness import DealContext, FairDeal, Message, Step
from p2p_koikoi.referee import (
    Claim,
    Ending,
    FirstDealerChoice,
    MatchEnd,
    MatchInfo,
    MatchVisitor,
    PlayedRound,
    Referee,
    SeatCoin,
    SeatDeal,
    SeatKnowledge,
    Stage,
    Violation,
    result_body,
)
from p2p_koikoi.referee.findings import BadBytes
from p2p_koikoi.session.events import (
    ClaimedAgainst,
    Failed,
    FirstDealer,
    MatchOver,
    Moves,
    PeerLeft,
    Players,
    RoundBegins,
    RoundScored,
    RulesOffered,
    SessionEnd,
    SessionEvent,
)
from p2p_koikoi.wire import LocalProtocolError, RemoteProtocolError, SignedEntry, public_bytes
from p2p_koikoi.wire.bodies import (
    AcceptBody,
    Body,
    DealBody,
    DeclineBody,
    EntryKind,
    GoodbyeBody,
    HereBody,
    HikiReply,
    MatchBody,
    MoveBody,
    ResultBody,
    parse_body,
)
from p2p_koikoi.wire.reasons import ReasonId
from p2p_koikoi.wire.sent_names import sent_names

__all__ = ["SOFTWARE", "MatchSession", "SessionEnd", "SessionEvent", "Stage", "Waiting"]

SOFTWARE = "p2p-koikoi/0.3"


class Waiting(enum.Enum):
    PEER = "peer"  # the peer holds the floor
    ACCEPT = "accept"  # the guest must accept or decline the host's rules
    MOVE = "move"  # our seat must choose an action
    DONE = "done"  # the match is over (or adjourned: ``koikoi resume`` may take it up again)


# The peer's goodbye, as the referee ruled it, from our seat (a ``PeerLeft`` event's ``ended``).
_PEER_LEFT = {
    Ending.FORFEIT: SessionEnd.PEER_QUIT,
    Ending.DECLINED: SessionEnd.PEER_DECLINED,
    Ending.ADJOURNED: SessionEnd.ADJOURNED,
    Ending.SILENCE: SessionEnd.PEER_CLAIMED,
    Ending.FINISHED: SessionEnd.MATCH_OVER,
}


class _Teller(MatchVisitor):
    """The referee's account of the match, as events for our player."""

    def __init__(self, session: MatchSession) -> None:
        self.session = session

    def _say(self, event: SessionEvent) -> None:
        self.session.events.append(event)

    def begin_match(self, info: MatchInfo) -> None:
        if self.session.seat == 1:
            self._say(RulesOffered(info.rules))

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        self._say(FirstDealer(choice.seat))

    def begin_round(self, number: int, redeal: int, dealer: int) -> None:
        self._say(RoundBegins(number, redeal, dealer))

    def moves(self, seat: int | None, events: tuple[Event, ...], text: str) -> None:
        if events or text:
            self._say(Moves(seat, events, text))

    def round_played(self, played: PlayedRound) -> None:
        if played.result is not None:
            self._say(RoundScored(played.result))

    def match_decided(self, outcome: MatchOutcome | None) -> None:
        self._say(MatchOver(outcome))

    def match_paused(self, end: MatchEnd) -> None:
        self.session.ended(end)

    def end_match(self, end: MatchEnd) -> None:
        self.session.ended(end)


class MatchSession:
    """One seat's side of a match (see the module docstring)."""

    # A test's cheating seat sets this: its own entries that break a rule are sent all the same.
    sends_what_it_breaks = False

    def __init__(
        self,
        seat: int,
        identity: Ed25519PrivateKey,
        peer_key: bytes,
        nonces: tuple[bytes, bytes],
        *,
        rules: RuleSet | None = None,
        turn_limit: int = 0,
        master_secret: bytes | None = None,
        name: str | None = None,
    ) -> None:
        if seat == 0 and rules is None:
            raise LocalProtocolError("no-rules", "the host offers the rules")
        mine = public_bytes(identity)
        self.seat = seat
        self.peer = 1 - seat
        self.identity = identity
        self.keys: tuple[bytes, bytes] = (mine, peer_key) if seat == 0 else (peer_key, mine)
        self.nonces = nonces
        # Every secret of ours (the coin value, each deal's secret) is derived from this one, by its
        # deal context, so a match restored from its record regenerates the very same entries. It lives
        # only in a private sidecar file next to our record while the match can be resumed.
        self.master_secret = master_secret if master_secret is not None else secrets.token_bytes(32)
        self.knowledge = SeatKnowledge(seat, self.master_secret)
        self.knowledge.make_deal = self.new_deal
        self.referee = Referee(self.knowledge, _Teller(self), keys=self.keys, nonces=nonces)
        self.match_id = self.referee.match_id
        self._offered = rules
        self._turn_limit = turn_limit
        self.name = name  # the name our seat sends (the host's in the match entry, the guest's in its accept)
        self.outgoing: list[SignedEntry] = []
        self.events: list[SessionEvent] = []
        self.failure: RemoteProtocolError | None = None
        self.ended_by: SessionEnd | None = None
        self.end_text = ""
        self.ending: MatchEnd | None = None
        self.withdrawals: list[int] = []  # places from which a crossing goodbye withdrew our entries
        self._hold_at: int | None = None  # while rebuilding: write nothing of our own at this chain length
        self._replaying = False  # taking entries from a record: our answers are in it already
        self._broke_rule = False  # a cheating seat sent an entry its own referee refused
        self._accusing = False
        self._told_players = False
        if seat == 0:
            self._pump()

    # ------------------------------------------------------------------ queries

    @property
    def chain(self) -> Referee:
        """The chain of entries so far (``entries``, ``head``): the referee keeps it."""
        return self.referee

    @property
    def rules(self) -> RuleSet | None:
        return self.referee.rules or self._offered

    @property
    def turn_limit(self) -> int:
        return self.referee.turn_limit if self.referee.rules is not None else self._turn_limit

    @property
    def stage(self) -> Stage:
        return Stage.OVER if self.ended_by is not None else self.referee.stage

    @property
    def match(self) -> Any:
        return self.referee.match

    @property
    def round(self) -> Round | None:
        return self.referee.round

    @property
    def round_number(self) -> int:
        return self.referee.round_number

    @property
    def redeal(self) -> int:
        return self.referee.redeal

    @property
    def _deal(self) -> Any:
        """Our seat's deal in progress (its :class:`~p2p_koikoi.fairness.FairDeal`), for tests' cheats."""
        deal = self.referee.deal
        return deal.fair if isinstance(deal, SeatDeal) else None

    @property
    def waiting(self) -> Waiting:
        if self.ended_by is not None:
            return Waiting.DONE
        if self.referee.floor() != self.seat:
            return Waiting.PEER
        if self.referee.stage is Stage.ACCEPT:
            return Waiting.ACCEPT
        return Waiting.MOVE

    @property
    def takes_entries(self) -> bool:
        """Whether an entry of the peer can still come: the match goes on, or its ending may be voided."""
        return self.waiting is not Waiting.DONE or self.ending_refutable

    @property
    def ending_refutable(self) -> bool:
        """The match stopped on an ending the next entry may void (an adjournment, a claim of silence)."""
        return self.ending is not None and self.ending.refutable and not self.referee.over

    @property
    def resumable(self) -> bool:
        """The match stopped adjourned: either player may take it up again later (``koikoi resume``)."""
        return self.ending is not None and self.ending.resumable

    def view(self) -> Round | None:
        """Our seat's view of the round in play (a copy), or None between rounds."""
        return self.round.copy() if self.round is not None else None

    def legal_actions(self) -> list[AnyAction]:
        """The actions :meth:`submit` accepts now."""
        if self.waiting is not Waiting.MOVE or self.round is None:
            return []
        return self.round.legal_actions()

    def take_outgoing(self) -> list[SignedEntry]:
        out, self.outgoing = self.outgoing, []
        return out

    def take_events(self) -> list[SessionEvent]:
        out, self.events = self.events, []
        return out

    @property
    def names(self) -> tuple[str | None, str | None]:
        """The names both seats sent in the match setup (by seat), None where none has come."""
        return sent_names(self.referee.entries)

    @property
    def peer_decides(self) -> bool:
        """The peer holds the floor for a decision of its player (not an automatic protocol step)."""
        return self.waiting is Waiting.PEER and self.referee.floor_decides()

    # ------------------------------------------------------------------ local input

    def accept(self) -> None:
        """The guest accepts the host's rules."""
        if self.waiting is not Waiting.ACCEPT or self.rules is None:
            raise LocalProtocolError("not-now", "there are no rules to accept now")
        self._write_body(AcceptBody(bytes.fromhex(self.rules.fingerprint), self.name))
        self._pump()

    def decline(self, reason: str = "declined the rules") -> None:
        if self.waiting is not Waiting.ACCEPT:
            raise LocalProtocolError("not-now", "there are no rules to decline now")
        self._write_body(DeclineBody(reason[:300]))

    def submit(self, action: AnyAction) -> None:
        """Our seat's move; checked by the referee like any entry."""
        if self.waiting is not Waiting.MOVE or self.round is None:
            raise LocalProtocolError("not-your-move", "it is not our move")
        if self.referee.stage is Stage.EXCHANGE:
            if not isinstance(action, Exchange):
                raise LocalProtocolError("not-now", "the non-dealer chooses to exchange hands or keep them")
            self._write_body(MoveBody(self.round_number, str(action)))
        else:
            self._submit_move(action)
        self._pump()

    def quit(self, text: str = "the player left") -> None:
        """Leave the match now: a goodbye, which forfeits it once the rules were accepted."""
        if self.ended_by is None:
            self._goodbye(Claim.QUIT, text)

    def peer_vanished(self, text: str) -> bool:
        """The peer is gone (closed, silent past the patience, or past a deadline). While it owes the next
        entry, our signed claim of its silence wins the match, marked as claimed: the peer may still refute
        it with an entry chained after it. While we owe it, a claim would be our own forfeit, so nothing is
        written (the caller first writes what we owe). True when the claim was written."""
        return self._claim(Claim.PEER_GONE, text)

    def peer_stalled(self, text: str) -> bool:
        """The peer held the floor for a decision past the match's time limit: a claim of its silence."""
        return self._claim(Claim.STALLED, text)

    def adjourn(self, text: str = "adjourned: the other player was gone") -> None:
        """Leave the match to be taken up again later, while the peer owes the next entry: nobody wins. (While
        we owe it, leaving is a forfeit: use :meth:`quit`.)"""
        if self.ended_by is not None:
            return
        if self.referee.floor() != self.peer:
            raise LocalProtocolError("not-now", "we owe the next entry: leaving now forfeits the match")
        self._goodbye(Claim.ADJOURN, text)

    def _claim(self, claim: Claim, text: str) -> bool:
        if self.ended_by is not None or self.referee.floor() != self.peer:
            return False
        self.events.append(PeerLeft(SessionEnd.PEER_VANISHED, text))
        self._goodbye(claim, text)
        return True

    def new_deal(
        self, context: DealContext, seat: int, keys: tuple[bytes, bytes], secret: bytes, **layout: Any
    ) -> FairDeal:
        """Our side of a new deal (``layout``: its deal pattern and dealer). A seam: a test's cheating seat
        deals otherwise here (another permutation, a stacked deck) rather than reaching into the session."""
        return FairDeal(context, seat, keys, secret, **layout)

    # ------------------------------------------------------- restore and resume

    @classmethod
    def restore(
        cls, seat: int, identity: Ed25519PrivateKey, entries: list[SignedEntry], master_secret: bytes
    ) -> MatchSession:
        """Rebuild our side of a match from its record: replay every entry, ours and the peer's.

        Our own entries are written again from the same master secret and the same decisions, and must
        come out byte for byte as recorded (Ed25519 signatures are deterministic), so a restored match
        never signs anything differently from what the peer may already hold. An adjourned match comes
        back live: the next entry lifts the adjournment. A claim of our silence is answered at once; our own
        claim waits for the peer's answer.
        """
        if not entries or entries[0].entry.kind != EntryKind.MATCH:
            raise LocalProtocolError("restore", "a record starts with the match entry")
        opening = MatchBody.from_list(entries[0].entry.body)
        keys = opening.keys
        session = cls(
            seat,
            identity,
            keys[1 - seat],
            opening.nonces,
            rules=parse_rules(opening.rules) if seat == 0 else None,
            turn_limit=opening.turn_limit,
            master_secret=master_secret,
            name=opening.name if seat == 0 else _accepted_name(entries),
        )
        if keys[seat] != public_bytes(identity):
            raise LocalProtocolError("restore", "this record was not played with our identity key")
        session._replaying = True
        for signed in entries:
            session.catch_up(signed)
        session._replaying = False
        session.take_events()
        session._answer_claim(())  # a claim of our silence the record ends with: we are here now
        session.reopen()
        return session

    def reopen(self) -> None:
        """An adjourned match is taken up again: the next entry lifts the adjournment. (A match that stopped
        on our own claim of the peer's silence stays as it is: the claim goes to the peer when it resumes,
        and only its answer reopens the match.)"""
        if self.ending is not None and self.ending.how is Ending.ADJOURNED:
            self._lift()

    def _lift(self) -> bool:
        """A refutable ending (an adjournment, a claim of silence) is open again: the next entry decides."""
        end = self.ending
        if end is None or not end.refutable or self.referee.over:
            return False
        self.ended_by, self.end_text, self.ending = None, "", None
        return True

    def catch_up(self, signed: SignedEntry) -> None:
        """Take the next entry of the chain, whoever wrote it: the peer's is received as usual; ours
        (from our record, or sent back by the peer after we lost it) is written again and compared."""
        entry = signed.entry
        if entry.author == self.peer:
            self.receive(signed)
            return
        signed.verify(self.keys[self.seat])
        if not self.outgoing:
            self._lift()
            self._decide_as_recorded(parse_body(entry.kind, entry.body))
        if not self.outgoing:
            raise LocalProtocolError("restore-mismatch", f"entry {entry.seq} is ours, but we would not write it now")
        produced = self.outgoing.pop(0)
        if produced.data != signed.data:
            raise LocalProtocolError("restore-mismatch", f"entry {entry.seq} does not come out the same again")

    def _decide_as_recorded(self, body: Body) -> None:
        match body:
            case AcceptBody():
                self.accept()
            case DeclineBody():
                self.decline(body.reason)
            case MoveBody() if self.waiting is Waiting.MOVE:
                self.submit(Action.parse(body.action))
            case HereBody():
                self._write_body(body)
            case GoodbyeBody():
                claim, _ = Claim.parse(body.reason)
                if claim is Claim.VIOLATION:
                    self._write_body(body)
                else:
                    self._goodbye(claim, body.text)

    def mark_sent(self, count: int) -> None:
        """The peer holds our entries below ``count`` already: do not send them again."""
        self.outgoing = [e for e in self.outgoing if e.entry.seq >= count]

    # ----------------------------------------------------------------- receive

    def receive(self, signed: SignedEntry) -> None:
        """Take the peer's next entry; raises :class:`Violation` (and ends the match) on a violation.

        An entry that crossed a ``goodbye`` (both written for the same place in the chain, neither writer
        having seen the other's) is settled by the rule of SPEC.md section 6: the goodbye takes the place.
        So the peer's entry that crossed our goodbye is dropped (the peer withdraws it), and the peer's
        goodbye that crossed our entries takes their place: ours are withdrawn, and written again after it
        when it is a claim of our silence, which they then refute."""
        entry = signed.entry
        if entry.author == self.peer and entry.seq < len(self.referee.entries) and self._crossed(signed):
            return
        if self.ended_by is not None and not self._lift():
            raise RemoteProtocolError(ReasonId.AFTER_END, "the peer wrote after the match ended", blame=self.peer)
        try:
            self.referee.feed(signed)
        except BadBytes:
            raise  # bytes that never joined the chain: a broken connection, not an ending (the runner's)
        except Violation as exc:
            self._caught(exc)
            raise
        self._answer_claim(())
        self._go_on_after_adjournment()
        self._pump()

    def _go_on_after_adjournment(self) -> None:
        """The peer adjourned while we owed the next entry, and we are here. With a decision time limit we
        play on: our next entry lifts the adjournment (so a seat cannot escape a loss by adjourning). With
        none, the adjournment is kept: no limit on thinking means it can be taken up at any time."""
        end = self.ending
        if end is not None and end.how is Ending.ADJOURNED and end.seat == self.peer and self.turn_limit:
            self._lift()

    def _crossed(self, signed: SignedEntry) -> bool:
        """The peer's entry for a place our chain already fills: a crossing we settle, or not (False)."""
        if self._broke_rule:
            return False  # a test's cheating seat: its own state is past repair, nothing to settle
        entries = self.referee.entries
        place = signed.entry.seq
        ours = entries[place]
        if ours.entry.author != self.seat or ours.entry.prev != signed.entry.prev:
            return False
        signed.verify(self.keys[self.peer])
        if ours.entry.kind == EntryKind.GOODBYE:
            return True  # the peer wrote this before it saw our goodbye: it withdraws it
        if signed.entry.kind != EntryKind.GOODBYE or any(e.entry.author != self.seat for e in entries[place:]):
            return False
        withdrawn = entries[place:]
        self._rebuild(entries[:place])
        self.withdrawals.append(place)
        try:
            self.referee.feed(signed)
        except BadBytes:
            raise
        except Violation as exc:
            self._caught(exc)
            raise
        finally:
            self._hold_at = None
        self._answer_claim(withdrawn)
        self._pump()
        return True

    def _answer_claim(self, withdrawn: Sequence[SignedEntry]) -> None:
        """The peer claims we went silent, and we are here: our next entry refutes the claim. What we had
        already decided (``withdrawn``: our entries a crossing claim displaced) is written again; an
        automatic step is written by the pump; a decision our player has yet to make gets ``here``."""
        end = self.ending
        if end is None or not end.claimed or end.owed != self.seat or not self._lift():
            return
        if not self._replaying:
            self.events.append(ClaimedAgainst(end.text))
        for signed in withdrawn:
            self._pump()
            body = parse_body(signed.entry.kind, signed.entry.body)
            if isinstance(body, MoveBody | AcceptBody | DeclineBody | HereBody):
                self._decide_as_recorded(body)
        self._pump()
        if self._replaying:
            return  # our answer, if we gave one, is the next entry of the record being replayed
        last = self.referee.entries[-1].entry
        if (
            last.kind == EntryKind.GOODBYE
            and self.waiting in (Waiting.MOVE, Waiting.ACCEPT)
            and self.referee.may_object()
        ):
            self._write_body(HereBody("I am here: my player is still deciding"))

    def _rebuild(self, entries: Sequence[SignedEntry]) -> None:
        """Our side of the match as it stood after ``entries`` (a crossing withdrew what followed): every
        entry is judged again, ours written again from the same secrets, byte for byte."""
        events = self.events
        self.referee = Referee(self.knowledge, _Teller(self), keys=self.keys, nonces=self.nonces)
        self.outgoing, self.ended_by, self.end_text, self.ending = [], None, "", None
        self._hold_at = len(entries)  # the goodbye that took the next place comes first
        self._replaying = True
        if self.seat == 0:
            self._pump()
        for signed in entries:
            self.catch_up(signed)
        self._replaying = False
        self.outgoing = []
        self.events = events

    def take_withdrawals(self) -> list[int]:
        """The places in the chain from which our entries were withdrawn (for the record's note)."""
        out, self.withdrawals = self.withdrawals, []
        return out

    def caught_outside(self, exc: RemoteProtocolError) -> None:
        """The peer proved at fault outside any entry (a fork its signed resume proof shows): the match ends
        as its violation. No goodbye is written: the proof is the peer's own signature, which the caller
        keeps in the record's note."""
        if self.failure is None:
            self.failure = exc
            self.events.append(Failed(self.peer, f"{exc} (the peer to blame)"))
        if self.ended_by is None or self.ending_refutable:
            self.ended(MatchEnd(Ending.VIOLATION, self.seat, str(exc)))

    def _caught(self, exc: Violation) -> None:
        """The referee found a rule broken: the peer's, so we accuse it with our evidence and stop."""
        if self.failure is None:
            self.failure = exc
            blame = "the peer" if exc.blame == self.peer else ("we" if exc.blame == self.seat else "nobody")
            self.events.append(Failed(exc.blame, f"{exc} ({blame} to blame)"))
        if self.ended_by is None and self.referee.end is None and exc.blame == self.peer and not self._accusing:
            self._accusing = True  # one accusation: a second violation found meanwhile does not write again
            if not self.referee.entries:  # nothing to link a goodbye to: the match never began
                self.ended(MatchEnd(Ending.VIOLATION, self.seat, str(exc)))
                return
            context = self.referee.deal_context()
            evidence = self.knowledge.secret_for(context) if context is not None else None
            self._write_body(GoodbyeBody(f"violation:{exc.reason}"[:60], str(exc)[:400], evidence))

    # ------------------------------------------------------------ writing

    def _write_body(self, body: Body) -> SignedEntry:
        """Write ``body`` as our next entry (through :meth:`_write`, the one place an entry is signed)."""
        return self._write(body.KIND, body.to_list())

    def _write(self, kind: str, body: list[Any]) -> SignedEntry:
        """Prepare, sign and append one entry of ours; it joins the outbox. Takes the wire's list, so a
        test's cheating seat can alter one field of it to anything at all."""
        entry = self.referee.prepare(self.seat, kind, body)
        signed = SignedEntry.sign(entry, self.identity)
        try:
            self.referee.append(signed)
        except LocalProtocolError:
            if not self.sends_what_it_breaks:
                raise
            # A test's cheating seat: the lie goes out, its own state is past repair, so it writes
            # nothing more of its own accord and waits for the other seat's verdict.
            self.referee.excuse_own_breach()
            self._broke_rule = True
            self.outgoing.append(signed)
            return signed
        except Violation as exc:  # our entry brought the peer's cheat to light (a held Reveal)
            self.outgoing.append(signed)
            self._caught(exc)
            raise
        self.outgoing.append(signed)
        return signed

    def _goodbye(self, claim: Claim, text: str) -> None:
        self._write_body(GoodbyeBody(claim.value, text[:400]))

    def _pump(self) -> None:
        """Write every entry that needs no decision while we hold the floor."""
        self._tell_players()
        while self.ended_by is None and not self._broke_rule and self.referee.floor() == self.seat:
            if self._hold_at == len(self.referee.entries):
                return
            if not self._write_automatic():
                return

    def _tell_players(self) -> None:
        """Once the guest has accepted, the player learns who sits where: the keys and the names sent."""
        entries = self.referee.entries
        if self._told_players or len(entries) < 2 or entries[1].entry.kind != EntryKind.ACCEPT:
            return
        self._told_players = True
        self.events.append(Players(self.keys, self.names))

    def _write_automatic(self) -> bool:
        referee = self.referee
        stage = referee.stage
        if stage is Stage.MATCH:
            rules = self._offered
            assert rules is not None
            fingerprint = bytes.fromhex(rules.fingerprint)
            limit = self._turn_limit
            self._write_body(MatchBody(rules.format(), fingerprint, self.keys, self.nonces, limit, SOFTWARE, self.name))
            return True
        if stage in (Stage.ACCEPT, Stage.EXCHANGE):
            return False
        if stage in (Stage.FIRST_DEALER, Stage.SETUP, Stage.HANDS, Stage.AUDIT):
            message = self._next_deal_message()
            self._write_body(DealBody(self.round_number, referee.deal_redeal(), message.to_bytes()))
            return True
        if stage is Stage.RESULT:
            assert referee.result is not None
            self._write_body(ResultBody.from_list(result_body(referee.result)))
            return True
        if stage is Stage.GOODBYE:
            self._write_body(GoodbyeBody(Claim.MATCH_OVER.value, "thank you for the game"))
            return True
        return self._write_play_automatic()

    def _next_deal_message(self) -> Message:
        referee = self.referee
        coin = referee.coin
        if isinstance(coin, SeatCoin):
            return coin.queue.pop(0)
        deal = referee.deal
        assert isinstance(deal, SeatDeal)
        if deal.queue:
            return deal.next_message()
        fair, stage = deal.fair, referee.stage
        if stage is Stage.FIRST_DEALER:
            step = fair.reveal_initial() if referee.step < 8 else fair.reveal_secret()
        elif stage is Stage.SETUP:
            step = fair.reveal_table()
        elif stage is Stage.HANDS:
            step = fair.reveal_hand()
        else:
            step = fair.reveal_secret()
        deal.made(step)
        return deal.next_message()

    def _seat_deal(self) -> SeatDeal:
        deal = self.referee.deal
        assert isinstance(deal, SeatDeal)
        return deal

    def _one(self, step: Step) -> bytes:
        """The single message a show or draw gives, as bytes; what it teaches us is learned."""
        deal = self._seat_deal()
        deal.made(Step(learned=step.learned))
        return step.send[0].to_bytes()

    def _position_of(self, card: Card) -> int:
        position = self._seat_deal().position_of(card)
        if position is None:
            raise LocalProtocolError("unknown-card", f"we do not know where {card.id} lies")
        return position

    def _write_play_automatic(self) -> bool:
        referee = self.referee
        rnd = referee.round
        assert rnd is not None
        fair = self._seat_deal().fair
        pending = referee.gaji_pending
        if pending is not None:
            # The peer's Gaji wildcard aims at a month of three: we must say whether we hold the fourth.
            assert pending.target is not None
            fourth = rnd.hands[self.seat] & month_mask(pending.target.month)
            if fourth:
                card = Card(fourth.bit_length() - 1)
                show = self._one(fair.show([self._position_of(card)]))
                self._write_body(MoveBody(self.round_number, HikiReply(card).format(), show))
            else:
                self._write_body(MoveBody(self.round_number, HikiReply(None).format()))
            return True
        if rnd.phase is Phase.DRAW:
            self._write_body(DealBody(self.round_number, self.redeal, self._one(fair.draw())))
            return True
        if rnd.phase is Phase.HAND_YAKU:
            (action,) = rnd.legal_actions()  # a hand yaku must be claimed, so there is no choice to make
            self._submit_move(action)
            return True
        return False

    def _submit_move(self, action: AnyAction) -> None:
        rnd = self.round
        assert rnd is not None
        if action not in rnd.legal_actions():
            raise LocalProtocolError("illegal-move", f"{action} is not a legal move now")
        fair = self._seat_deal().fair
        show: bytes | None = None
        keys: bytes | None = None
        if isinstance(action, Play):
            show = self._one(fair.show([self._position_of(action.card)]))
            if not self.referee.needs_hiki_answer(action):
                keys = self._one(fair.draw())
        elif isinstance(action, ClaimHandYaku):
            positions = [self._position_of(c) for c in Card if action.cards >> c & 1]
            show = self._one(fair.show(positions))
        self._write_body(MoveBody(self.round_number, str(action), show, keys))

    # ------------------------------------------------------------ endings

    def ended(self, end: MatchEnd) -> None:
        """The referee ruled the match over: say how, from our seat."""
        self.ending = end
        self.end_text = end.text
        self.ended_by = self._from_our_seat(end)
        if end.how is Ending.FINISHED and end.seat is None:
            return
        if end.claimed and end.owed == self.seat:
            return  # a claim of our silence, and we are here: our answer refutes it at once
        if end.seat == self.peer and end.how is not Ending.VIOLATION:
            self.events.append(PeerLeft(_PEER_LEFT.get(end.how), end.text))
        finding = self.referee.finding
        if finding is not None and finding.blame == self.peer and self.failure is None:
            self.failure = Violation(finding)
        if end.outcome is not None and end.how is not Ending.FINISHED:
            self.events.append(MatchOver(end.outcome, end.text))

    def _from_our_seat(self, end: MatchEnd) -> SessionEnd:
        ours = end.seat == self.seat
        how = end.how
        if how is Ending.FINISHED:
            return SessionEnd.MATCH_OVER
        if how is Ending.DECLINED:
            return SessionEnd.DECLINED if ours else SessionEnd.PEER_DECLINED
        if how is Ending.SILENCE:
            return SessionEnd.PEER_CLAIMED if end.owed == self.seat else SessionEnd.PEER_VANISHED
        if how is Ending.ADJOURNED:
            return SessionEnd.ADJOURNED
        if how is Ending.VIOLATION:
            return SessionEnd.VIOLATION
        return SessionEnd.QUIT if ours else SessionEnd.PEER_QUIT


def _accepted_name(entries: Sequence[SignedEntry]) -> str | None:
    """The name our guest seat sent in its accept, so a restored seat writes that entry again byte for byte."""
    return sent_names(entries)[1]

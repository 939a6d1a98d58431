"""One player's side of a whole match, as a sans-IO state machine over signed entries.

The session drives the rules engine and the fair deal from the entries of the
match chain. It does no I/O: the network layer feeds it the peer's entries
(:meth:`MatchSession.receive`), sends what it produces
(:meth:`MatchSession.take_outgoing`), and, when :attr:`MatchSession.waiting` is
``MOVE`` or ``ACCEPT``, asks the player (a person or a bot) and calls
:meth:`MatchSession.submit` or :meth:`MatchSession.accept`.

The rules of the machine
------------------------
Exactly one seat holds the floor at any time, so the entries form one chain
with no races. Both sides compute who it is from the same state:

==============  ==================================================================
stage           who writes, and what
==============  ==================================================================
MATCH           the host (seat 0): ``match`` (rules, keys, nonces, turn limit)
ACCEPT          the guest: ``accept`` (or ``decline``, which ends the match)
FIRST_DEALER    seats alternate from seat 0: ``deal`` messages of the coin flip
                (commit, commit, reveal, reveal), or of a dealer draw (the 6 deck
                messages, both keys for positions 0 and 1, both secrets)
SETUP           alternate from seat 0: commit, commit, decks 1-4, table keys x2
EXCHANGE        the non-dealer (rulebook only): ``move`` exchange or keep
HANDS           alternate from seat 0: each seat's keys for the other's hand
PLAY            the engine's seat to act: ``move``. A play carries the Show of
                the card and the player's key for the next stock card; then the
                other seat writes ``deal`` with its key for it, and both turn the
                card over. A Gaji wildcard onto a month of three is answered by a
                ``move`` ``hiki CARD`` (the play is void) or ``no-hiki`` first.
AUDIT           alternate from seat 0: both secrets (``deal`` Reveal)
RESULT          alternate from seat 0: ``result``, each seat's own count
GOODBYE         alternate from seat 0: ``goodbye`` match-over
==============  ==================================================================

Every received entry is checked in this order: its link in the chain and its
signature (:class:`~p2p_koikoi.wire.chain.Chain`), the public-state hash (a
mismatch is a desync), then its meaning: the deal protocol checks every point
and key, the engine every move, and at the audit the whole round is replayed
with every card known, so a false ``pass`` or ``no-hiki`` is caught too. A
violation raises :class:`RemoteProtocolError` blaming the peer; the session
then writes a ``goodbye`` naming it and is over. A ``goodbye`` from the peer
may come at any time.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p_koikoi.engine import (
    CHANCE,
    Action,
    AnyAction,
    Card,
    ClaimHandYaku,
    Deal,
    EngineError,
    Event,
    Exchange,
    IllegalActionError,
    Match,
    MatchOutcome,
    MatchPhase,
    OutcomeKind,
    Phase,
    Play,
    Round,
    RoundResult,
    RuleSet,
    first_dealer_by_draw,
    parse_rules,
)
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.engine.rules import FirstDealer
from p2p_koikoi.fairness import (
    DRAW_POSITIONS,
    CheatingDetected,
    CoinFlip,
    DealContext,
    FairDeal,
    FairnessError,
    Keys,
    Learned,
    Message,
    Purpose,
    Reveal,
    Show,
    parse_message,
)
from p2p_koikoi.fairness.coin import coin_context
from p2p_koikoi.wire import Chain, LocalProtocolError, RemoteProtocolError, SignedEntry, match_id_of, public_bytes
from p2p_koikoi.wire.codec import pack

__all__ = ["SOFTWARE", "MatchSession", "SessionEvent", "Stage", "Waiting"]

SOFTWARE = "p2p-koikoi/0.1"
SECRET_SALT = b"p2p-koikoi/session-secrets/v1"
_LIGHTNING = Card.WILLOW_LIGHTNING


class Stage(enum.Enum):
    MATCH = "match"
    ACCEPT = "accept"
    FIRST_DEALER = "first-dealer"
    SETUP = "setup"
    EXCHANGE = "exchange"
    HANDS = "hands"
    PLAY = "play"
    AUDIT = "audit"
    RESULT = "result"
    GOODBYE = "goodbye"
    OVER = "over"


class Waiting(enum.Enum):
    PEER = "peer"  # the peer holds the floor
    ACCEPT = "accept"  # the guest must accept or decline the host's rules
    MOVE = "move"  # our seat must choose an action
    DONE = "done"  # the match is over


_ALTERNATING = {
    Stage.FIRST_DEALER,
    Stage.SETUP,
    Stage.HANDS,
    Stage.AUDIT,
    Stage.RESULT,
    Stage.GOODBYE,
}


@dataclass(frozen=True, slots=True)
class SessionEvent:
    """Something for the player to see: ``kind`` names it, the other fields carry it.

    Kinds: ``offered`` (rules), ``first-dealer`` (seat), ``round`` (number, redeal, dealer),
    ``moves`` (engine events), ``result`` (a RoundResult), ``over`` (the MatchOutcome),
    ``peer-left`` (text), ``failed`` (text, blame).
    """

    kind: str
    seat: int | None = None
    text: str = ""
    events: tuple[Event, ...] = ()
    result: RoundResult | None = None
    outcome: MatchOutcome | None = None
    rules: RuleSet | None = None


_PEER_FAULTS = (RemoteProtocolError, CheatingDetected, IllegalActionError, FairnessError, EngineError, ValueError)


def _blame(exc: Exception, peer: int) -> RemoteProtocolError:
    """Turn an error found in the peer's entry into one line blaming the peer."""
    if isinstance(exc, RemoteProtocolError):
        return exc
    if isinstance(exc, CheatingDetected):
        return RemoteProtocolError(str(exc.reason), f"deal: {exc.detail}", blame=exc.blame)
    if isinstance(exc, IllegalActionError):
        return RemoteProtocolError(f"illegal-move:{exc.rule}", f"illegal move: {exc}", blame=peer)
    return RemoteProtocolError("bad-message", str(exc), blame=peer)


class MatchSession:
    """One seat's side of a match (see the module docstring for the rules)."""

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
    ) -> None:
        if seat == 0 and rules is None:
            raise LocalProtocolError("no-rules", "the host offers the rules")
        mine = public_bytes(identity)
        self.seat = seat
        self.peer = 1 - seat
        self._identity = identity
        self.keys: tuple[bytes, bytes] = (mine, peer_key) if seat == 0 else (peer_key, mine)
        self.nonces = nonces
        self.match_id = match_id_of(self.keys, nonces)
        self.chain = Chain(self.match_id, self.keys)
        self.rules: RuleSet | None = rules
        self.turn_limit = turn_limit
        # Every secret of ours (the coin value, each deal's secret) is derived from this one, by its
        # deal context, so a match restored from its record after a crash regenerates the very same
        # entries. It lives only in a private sidecar file next to our record while the match runs.
        self.master_secret = master_secret if master_secret is not None else secrets.token_bytes(32)
        self.match: Match | None = None
        self.stage = Stage.MATCH
        self._alt = 0
        self._queue: list[Message] = []
        self._deal: FairDeal | None = None
        self._coin: CoinFlip | None = None
        self.round_number = 0
        self.redeal = 0
        self.round: Round | None = None
        self._known: dict[int, Card] = {}
        self._draws = 0  # dealer draws so far (a tie draws again)
        self._gaji_pending: Play | None = None  # a Gaji play onto a month of three, awaiting hiki / no-hiki
        self._key_out = [False, False]  # which seats released their key for the stock card being drawn
        self._hiki_shown = 0  # cards we showed in a Hiki this round (the peer knows we hold them)
        self._my_result: RoundResult | None = None
        self.outgoing: list[SignedEntry] = []
        self.events: list[SessionEvent] = []
        self.failure: RemoteProtocolError | None = None
        self.ended_by: str | None = None
        self.end_text = ""
        if seat == 0:
            self._pump()

    # ------------------------------------------------------------------ queries

    @property
    def waiting(self) -> Waiting:
        if self.stage is Stage.OVER:
            return Waiting.DONE
        if self._floor() != self.seat:
            return Waiting.PEER
        if self.stage is Stage.ACCEPT:
            return Waiting.ACCEPT
        return Waiting.MOVE

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

    # ------------------------------------------------------------ local input

    def accept(self) -> None:
        """The guest accepts the host's rules."""
        if self.waiting is not Waiting.ACCEPT or self.rules is None:
            raise LocalProtocolError("not-now", "there are no rules to accept now")
        self._write("accept", [bytes.fromhex(self.rules.fingerprint)])
        self._enter(Stage.FIRST_DEALER)
        self._pump()

    def decline(self, reason: str = "declined the rules") -> None:
        if self.waiting is not Waiting.ACCEPT:
            raise LocalProtocolError("not-now", "there are no rules to decline now")
        self._write("decline", [reason[:300]])
        self._end("declined", f"we declined: {reason}")

    def submit(self, action: AnyAction) -> None:
        """Our seat's move; checked by our own engine first."""
        if self.waiting is not Waiting.MOVE or self.round is None:
            raise LocalProtocolError("not-your-move", "it is not our move")
        if self.stage is Stage.EXCHANGE:
            self._submit_exchange(action)
        else:
            self._submit_move(action)
        self._pump()

    def quit(self, text: str = "the player left") -> None:
        """Leave the match now: a goodbye, which forfeits an unfinished match."""
        if self.stage is Stage.OVER:
            return
        self._write("goodbye", ["quit", text[:400]])
        self._end("quit", text)

    def peer_vanished(self, text: str) -> None:
        """The network layer lost the peer (closed, silent or stalled past a deadline): the match ends
        here, as the peer's forfeit, and our signed ``goodbye`` says so in the record."""
        if self.stage is Stage.OVER:
            return
        self.events.append(SessionEvent("peer-left", self.peer, text))
        self._write("goodbye", ["peer-gone", text[:400]])
        self._end("peer-vanished", text)

    def peer_stalled(self, text: str) -> None:
        """The peer held the floor for a decision past the match's decision time limit: we end the
        match as abandoned by the staller (see the referee's rules), never as our own forfeit."""
        self.peer_vanished(text)

    @property
    def peer_decides(self) -> bool:
        """The peer holds the floor for a decision of its player (not an automatic protocol step)."""
        if self.waiting is not Waiting.PEER:
            return False
        if self.stage in (Stage.ACCEPT, Stage.EXCHANGE):
            return True
        rnd = self.round
        if self.stage is not Stage.PLAY or rnd is None or self._gaji_pending is not None:
            return False
        return rnd.phase in (Phase.PLAY, Phase.DRAW_CHOICE, Phase.DECISION)

    # ------------------------------------------------------- restore and resume

    @classmethod
    def restore(
        cls, seat: int, identity: Ed25519PrivateKey, entries: list[SignedEntry], master_secret: bytes
    ) -> MatchSession:
        """Rebuild our side of a match from its record: replay every entry, ours and the peer's.

        Our own entries are written again from the same master secret and the same decisions, and must
        come out byte for byte as recorded (Ed25519 signatures are deterministic), so a restored match
        never signs anything differently from what the peer may already hold.
        """
        if not entries or entries[0].entry.kind != "match":
            raise LocalProtocolError("restore", "a record starts with the match entry")
        rules_text, _fingerprint, keys, nonces, turn_limit, _software = entries[0].entry.body
        session = cls(
            seat,
            identity,
            keys[1 - seat],
            (nonces[0], nonces[1]),
            rules=parse_rules(rules_text) if seat == 0 else None,
            turn_limit=turn_limit,
            master_secret=master_secret,
        )
        if keys[seat] != public_bytes(identity):
            raise LocalProtocolError("restore", "this record was not played with our identity key")
        for signed in entries:
            session.catch_up(signed)
        session.take_events()
        return session

    def catch_up(self, signed: SignedEntry) -> None:
        """Take the next entry of the chain, whoever wrote it: the peer's is received as usual; ours
        (from our record, or sent back by the peer after we lost it) is written again and compared."""
        entry = signed.entry
        if entry.author == self.peer:
            self.receive(signed)
            return
        signed.verify(self.keys[self.seat])
        if not self.outgoing:
            self._decide_as_recorded(entry.kind, entry.body)
        if not self.outgoing:
            raise LocalProtocolError("restore-mismatch", f"entry {entry.seq} is ours, but we would not write it now")
        produced = self.outgoing.pop(0)
        if produced.data != signed.data:
            raise LocalProtocolError("restore-mismatch", f"entry {entry.seq} does not come out the same again")

    def _decide_as_recorded(self, kind: str, body: list[Any]) -> None:
        if kind == "accept":
            self.accept()
        elif kind == "decline":
            self.decline(body[0])
        elif kind == "move" and self.waiting is Waiting.MOVE:
            self.submit(Action.parse(body[1]))
        elif kind == "goodbye" and body[0] == "quit":
            self.quit(body[1])

    def mark_sent(self, count: int) -> None:
        """The peer holds our entries below ``count`` already: do not send them again."""
        self.outgoing = [e for e in self.outgoing if e.entry.seq >= count]

    # ----------------------------------------------------------------- receive

    def receive(self, signed: SignedEntry) -> None:
        """Take the peer's next entry; raises :class:`RemoteProtocolError` (and ends the match) on a violation."""
        if self.stage is Stage.OVER:
            raise RemoteProtocolError("after-end", "the peer wrote after the match ended", blame=self.peer)
        entry = signed.entry
        try:
            if entry.kind == "goodbye" and entry.author == self.peer:
                self._receive_goodbye(signed)
                return
            try:
                self.chain.append_remote(signed, self._floor())
            except RemoteProtocolError as exc:
                # The peer sent it, whatever author it names (our own entry sent back, an entry in our name).
                raise RemoteProtocolError(exc.reason, str(exc), blame=self.peer) from None
            if entry.state != self._state_hash():
                raise RemoteProtocolError(
                    "desync", f"entry {entry.seq}: the peer's view of the game differs from ours", blame=self.peer
                )
            self._on_entry(entry.kind, entry.body)
        except _PEER_FAULTS as exc:
            failure = _blame(exc, self.peer)
            self._fail(failure)
            raise failure from None
        self._pump()

    def _receive_goodbye(self, signed: SignedEntry) -> None:
        signed.verify(self.keys[self.peer])
        if signed.entry.match_id != self.match_id:
            raise RemoteProtocolError("wrong-match", "a goodbye from another match", blame=self.peer)
        # A goodbye written while we held the floor does not link; it still ends the match.
        with contextlib.suppress(RemoteProtocolError):
            self.chain.append_remote(signed, None)
        reason, text = signed.entry.body
        if self.stage is Stage.GOODBYE and reason == "match-over":
            self._alt += 1
            self._advance()
            self._pump()
            return
        self.events.append(SessionEvent("peer-left", self.peer, f"{reason}: {text}"))
        self._end(f"peer-{reason}", text)

    # ------------------------------------------------------------ the floor

    def _floor(self) -> int:
        """The seat that writes the next entry."""
        stage = self.stage
        if stage is Stage.MATCH:
            return 0
        if stage is Stage.ACCEPT:
            return 1
        if stage in _ALTERNATING:
            return self._alt % 2
        rnd = self.round
        assert rnd is not None
        if stage is Stage.EXCHANGE:
            return 1 - rnd.dealer
        if self._gaji_pending is not None:
            return 1 - rnd.turn
        if rnd.phase is Phase.DRAW:
            # The player releases its key for the stock card first (inside its play), then the other.
            return 1 - rnd.turn if self._key_out[rnd.turn] else rnd.turn
        return rnd.to_act

    def _state_hash(self) -> bytes:
        points = self.match.points if self.match is not None else [0, 0]
        dealer = self.match.dealer if self.match is not None and self.match.dealer is not None else -1
        public = list(self.round.public_state()) if self.round is not None else []
        state = [self.stage.value, self._alt, self.round_number, self.redeal, points, dealer, public]
        return hashlib.sha256(b"p2p-koikoi/state/v1\x00" + pack(state)).digest()[:16]

    # ------------------------------------------------------------ writing

    def _write(self, kind: str, body: list[Any]) -> SignedEntry:
        signed = self.chain.append_local(self.seat, kind, body, self._state_hash(), self._identity)
        self.outgoing.append(signed)
        return signed

    def _pump(self) -> None:
        """Write every entry that needs no decision while we hold the floor."""
        while self.stage is not Stage.OVER and self._floor() == self.seat:
            if not self._write_automatic():
                return

    def _write_automatic(self) -> bool:
        stage = self.stage
        if stage is Stage.MATCH:
            assert self.rules is not None
            self._write(
                "match",
                [
                    self.rules.format(),
                    bytes.fromhex(self.rules.fingerprint),
                    list(self.keys),
                    list(self.nonces),
                    self.turn_limit,
                    SOFTWARE,
                ],
            )
            self.stage = Stage.ACCEPT
            return True
        if stage is Stage.ACCEPT or stage is Stage.EXCHANGE:
            return False
        if stage in (Stage.FIRST_DEALER, Stage.SETUP, Stage.HANDS, Stage.AUDIT):
            message = self._next_deal_message()
            self._write("deal", [self.round_number, self._deal_redeal(), message.to_bytes()])
            self._alt += 1
            self._advance()
            return True
        if stage is Stage.RESULT:
            result = self._my_result
            assert result is not None
            self._write("result", self._result_body(result))
            self._alt += 1
            self._advance()
            return True
        if stage is Stage.GOODBYE:
            self._write("goodbye", ["match-over", "thank you for the game"])
            self._alt += 1
            self._advance()
            return True
        return self._write_play_automatic()

    def _deal_redeal(self) -> int:
        return self._draws if self.stage is Stage.FIRST_DEALER else self.redeal

    def _next_deal_message(self) -> Message:
        if self._queue:
            return self._queue.pop(0)
        deal = self._deal
        stage = self.stage
        if stage is Stage.FIRST_DEALER:
            assert deal is not None
            step = deal.reveal_initial() if self._alt < 8 else deal.reveal_secret()
        elif stage is Stage.SETUP:
            assert deal is not None
            step = deal.reveal_table()
        elif stage is Stage.HANDS:
            assert deal is not None
            step = deal.reveal_hand()
        else:
            assert deal is not None
            step = deal.reveal_secret()
        self._learn(step.learned)
        self._queue.extend(step.send)
        if step.report is not None:
            self._deal_audited()
        return self._queue.pop(0)

    def _write_play_automatic(self) -> bool:
        rnd = self.round
        deal = self._deal
        assert rnd is not None and deal is not None
        if self._gaji_pending is not None:
            # The peer's Gaji wildcard aims at a month of three: we must say whether we hold the fourth.
            target = self._gaji_pending.target
            assert target is not None
            fourth = rnd.hands[self.seat] & month_mask(target.month)
            if fourth:
                card = Card(fourth.bit_length() - 1)
                self._hiki_shown |= card.bit
                show = deal.show([self._position_of(card)])
                self._write("move", [self.round_number, f"hiki {card.id}", show.send[0].to_bytes(), None])
                self._gaji_pending = None
            else:
                pending = self._gaji_pending
                self._write("move", [self.round_number, "no-hiki", None, None])
                self._gaji_pending = None
                self._apply(pending, self.peer)
            return True
        if rnd.phase is Phase.DRAW:
            step = deal.draw()
            self._write("deal", [self.round_number, self.redeal, step.send[0].to_bytes()])
            self._key_out[self.seat] = True
            self._learn(step.learned)
            self._turn_over_draw()
            return True
        if rnd.phase is Phase.HAND_YAKU:
            (action,) = rnd.legal_actions()  # a hand yaku must be claimed, so there is no choice to make
            self._submit_move(action)
            return True
        return False

    # --------------------------------------------------------------- our moves

    def _submit_exchange(self, action: AnyAction) -> None:
        rnd = self.round
        assert rnd is not None
        if not isinstance(action, Exchange):
            raise LocalProtocolError("not-now", "the non-dealer chooses to exchange hands or keep them")
        self._write("move", [self.round_number, str(action), None, None])
        self._apply_exchange(action)

    def _submit_move(self, action: AnyAction) -> None:
        rnd = self.round
        deal = self._deal
        assert rnd is not None and deal is not None
        if action not in rnd.legal_actions():
            raise LocalProtocolError("illegal-move", f"{action} is not a legal move now")
        show: bytes | None = None
        keys: bytes | None = None
        if isinstance(action, Play):
            show = deal.show([self._position_of(action.card)]).send[0].to_bytes()
            if self._needs_hiki_answer(action, self.seat):
                self._write("move", [self.round_number, str(action), show, None])
                self._gaji_pending = action
                return
            step = deal.draw()
            keys = step.send[0].to_bytes()
            self._key_out[self.seat] = True
            self._learn(step.learned)
        elif isinstance(action, ClaimHandYaku):
            positions = [self._position_of(c) for c in Card if action.cards >> c & 1]
            show = deal.show(positions).send[0].to_bytes()
        self._write("move", [self.round_number, str(action), show, keys])
        self._apply(action, self.seat)

    def _needs_hiki_answer(self, action: Play, seat: int) -> bool:
        rnd = self.round
        assert rnd is not None
        if not (rnd.rules.gaji and action.card is _LIGHTNING and action.target is not None):
            return False
        target = action.target
        if rnd.table & month_mask(_LIGHTNING.month) & target.bit:
            return False  # an ordinary willow capture
        return (rnd.table & month_mask(target.month)).bit_count() == 3

    def _position_of(self, card: Card) -> int:
        for position, known in self._known.items():
            if known is card:
                return position
        raise LocalProtocolError("unknown-card", f"we do not know where {card.id} lies")

    # ------------------------------------------------------------ entries in

    def _on_entry(self, kind: str, body: list[Any]) -> None:
        stage = self.stage
        if kind == "match" and stage is Stage.MATCH:
            self._on_match(body)
        elif kind in ("accept", "decline") and stage is Stage.ACCEPT:
            self._on_accept(kind, body)
        elif kind == "deal" and stage in (Stage.FIRST_DEALER, Stage.SETUP, Stage.HANDS, Stage.AUDIT):
            self._on_deal_message(body)
        elif kind == "move" and stage is Stage.EXCHANGE:
            self._on_exchange(body)
        elif kind in ("move", "deal") and stage is Stage.PLAY:
            self._on_play(kind, body)
        elif kind == "result" and stage is Stage.RESULT:
            self._on_result(body)
        else:
            raise RemoteProtocolError("out-of-turn", f"a {kind} entry in the {stage.value} stage", blame=self.peer)

    def _on_match(self, body: list[Any]) -> None:
        rules_text, fingerprint, keys, nonces, turn_limit, _software = body
        if tuple(keys) != self.keys or tuple(nonces) != self.nonces:
            raise RemoteProtocolError("bad-handshake", "the match entry names other keys or nonces", blame=0)
        try:
            rules = parse_rules(rules_text)
        except EngineError as exc:
            raise RemoteProtocolError("bad-rules", f"the host's rules do not parse: {exc}", blame=0) from None
        if bytes.fromhex(rules.fingerprint) != fingerprint:
            raise RemoteProtocolError("bad-rules", "the host's rules do not match their fingerprint", blame=0)
        self.rules = rules
        self.turn_limit = turn_limit
        self.stage = Stage.ACCEPT
        self.events.append(SessionEvent("offered", 0, rules=rules))

    def _on_accept(self, kind: str, body: list[Any]) -> None:
        assert self.rules is not None
        if kind == "decline":
            self.events.append(SessionEvent("peer-left", 1, f"the guest declined: {body[0]}"))
            self._end("peer-declined", body[0])
            return
        if body[0] != bytes.fromhex(self.rules.fingerprint):
            raise RemoteProtocolError("bad-rules", "the guest accepted other rules", blame=1)
        self._enter(Stage.FIRST_DEALER)

    def _on_deal_message(self, body: list[Any]) -> None:
        number, redeal, data = body
        if number != self.round_number or redeal != self._deal_redeal():
            raise RemoteProtocolError("wrong-round", "a deal message for another round", blame=self.peer)
        message = parse_message(data)
        if self.stage is Stage.FIRST_DEALER and self._coin is not None:
            self._queue.extend(self._coin.receive(message).send)
            self._alt += 1
            self._advance()
            return
        deal = self._deal
        assert deal is not None
        reveal_due = self.stage is Stage.AUDIT or (self.stage is Stage.FIRST_DEALER and self._alt >= 8)
        if isinstance(message, Reveal) is not reveal_due:
            # The deal takes a secret whenever the deck is locked; the stage says when it is due.
            what = "a secret" if reveal_due else "no secret"
            raise RemoteProtocolError(
                "unexpected-message", f"{what} is due in the {self.stage.value} stage", blame=self.peer
            )
        if self.stage is Stage.AUDIT and self._alt == 0 and isinstance(message, Reveal):
            # Seat 1 writes its own secret before auditing seat 0's, so both audits run at once.
            self._alt = 1
            self._write("deal", [self.round_number, self.redeal, deal.reveal_secret().send[0].to_bytes()])
        step = deal.receive(message)
        self._queue.extend(step.send)
        self._learn(step.learned)
        self._alt += 1
        if step.report is not None:
            self._deal_audited()
        self._advance()

    def _on_exchange(self, body: list[Any]) -> None:
        if body[0] != self.round_number:
            raise RemoteProtocolError("wrong-round", "a move for another round", blame=self.peer)
        action = self._parse_action(body, allow_show=False, allow_keys=False)
        if not isinstance(action, Exchange):
            raise RemoteProtocolError("out-of-turn", "the non-dealer must exchange or keep", blame=self.peer)
        self._apply_exchange(action)

    def _on_play(self, kind: str, body: list[Any]) -> None:
        rnd = self.round
        deal = self._deal
        assert rnd is not None and deal is not None
        if kind == "deal":
            number, redeal, data = body
            if number != self.round_number or redeal != self.redeal or rnd.phase is not Phase.DRAW:
                raise RemoteProtocolError("out-of-turn", "a deal message out of turn", blame=self.peer)
            message = parse_message(data)
            if not isinstance(message, Keys):
                raise RemoteProtocolError("out-of-turn", "only a stock key is expected now", blame=self.peer)
            self._key_out[self.peer] = True
            self._learn(deal.receive(message).learned)
            self._turn_over_draw()
            return
        number, text, show, keys = body
        if number != self.round_number:
            raise RemoteProtocolError("wrong-round", "a move for another round", blame=self.peer)
        if self._gaji_pending is not None:
            self._on_hiki_answer(text, show, keys)
            return
        action = self._parse_action(body, allow_show=True, allow_keys=True)
        shown = self._receive_show(show)
        if isinstance(action, Play):
            if shown != action.card.bit:
                raise RemoteProtocolError("show-mismatch", "the play does not show the card played", blame=self.peer)
            if self._needs_hiki_answer(action, self.peer):
                if keys is not None:
                    raise RemoteProtocolError("early-key", "a Gaji play onto three must wait for Hiki", blame=self.peer)
                assert action.target is not None
                try:
                    self._check_legal(action)
                except IllegalActionError as exc:
                    # Blocked by the fourth card in our hand: the player could not know, so we declare
                    # Hiki (unless we did already this turn: then it knew).
                    known = self._hiki_shown & rnd.hands[self.seat] & month_mask(action.target.month)
                    if exc.rule != "gaji-blocked-by-hiki" or known:
                        raise
                self._gaji_pending = action
                return
            if keys is None:
                raise RemoteProtocolError("missing-key", "a play carries the key for the draw", blame=self.peer)
            self._check_legal(action)
            self._key_out[self.peer] = True
            self._learn(deal.receive(self._keys(keys)).learned)
        else:
            if keys is not None:
                raise RemoteProtocolError("unexpected-key", "only a play carries a stock key", blame=self.peer)
            if isinstance(action, ClaimHandYaku):
                if shown != action.cards:
                    raise RemoteProtocolError("show-mismatch", "the claim does not show its cards", blame=self.peer)
            elif shown:
                raise RemoteProtocolError("unexpected-show", "only plays and claims show cards", blame=self.peer)
        self._apply(action, self.peer)

    def _on_hiki_answer(self, text: str, show: bytes | None, keys: bytes | None) -> None:
        """The peer answers our Gaji play onto a month of three."""
        pending = self._gaji_pending
        rnd = self.round
        assert pending is not None and rnd is not None and pending.target is not None
        self._gaji_pending = None
        if text == "no-hiki" and show is None and keys is None:
            self._apply(pending, self.seat)  # our key for the draw follows as an entry of its own
            return
        words = text.split()
        if len(words) != 2 or words[0] != "hiki" or keys is not None:
            raise RemoteProtocolError(
                "bad-hiki", "a Gaji play must be answered with hiki CARD or no-hiki", blame=self.peer
            )
        card = Card.parse(words[1])
        if card.month != pending.target.month or self._receive_show(show) != card.bit:
            raise RemoteProtocolError("bad-hiki", "the Hiki card is not the fourth of that month", blame=self.peer)
        if not rnd.hands[self.peer] & card.bit:
            rnd.reveal(self.peer, card.bit)  # now our engine knows the Gaji cannot take that month

    def _receive_show(self, data: bytes | None) -> int:
        if data is None:
            return 0
        deal = self._deal
        assert deal is not None
        message = parse_message(data)
        if not isinstance(message, Show):
            raise RemoteProtocolError("bad-show", "the show field holds another message", blame=self.peer)
        deal.receive(message)
        return sum(1 << card for card in message.cards)

    @staticmethod
    def _keys(data: bytes) -> Keys:
        message = parse_message(data)
        if not isinstance(message, Keys):
            raise ValueError("the keys field holds another message")
        return message

    def _parse_action(self, body: list[Any], *, allow_show: bool, allow_keys: bool) -> AnyAction:
        text = body[1]
        action = Action.parse(text)
        if str(action) != text:
            raise RemoteProtocolError("not-canonical", f"the move {text!r} is not in canonical form", blame=self.peer)
        if (body[2] is not None and not allow_show) or (body[3] is not None and not allow_keys):
            raise RemoteProtocolError("unexpected-field", "the move carries fields it may not", blame=self.peer)
        return action

    def _check_legal(self, action: AnyAction) -> None:
        rnd = self.round
        assert rnd is not None
        probe = rnd.copy()
        probe.apply(action, self.peer)

    def _on_result(self, body: list[Any]) -> None:
        mine = self._my_result
        assert mine is not None
        expected = self._result_body(mine)
        if body != expected:
            names = ["round", "redeal", "outcome", "winner", "payment", "seat 0's points", "seat 1's points"]
            first = next(name for name, a, b in zip(names, body, expected, strict=True) if a != b)
            raise RemoteProtocolError(
                "result-mismatch", f"the peer's count of the round differs from ours in the {first}", blame=self.peer
            )
        self._alt += 1
        self._advance()

    # ------------------------------------------------------------ the game

    def _apply(self, action: AnyAction, seat: int) -> None:
        rnd = self.round
        assert rnd is not None
        events = rnd.apply(action, seat)
        if events:
            self.events.append(SessionEvent("moves", seat, events=tuple(events)))
        self._after_move()

    def _after_move(self) -> None:
        rnd = self.round
        assert rnd is not None
        if rnd.over:
            self._enter(Stage.AUDIT)

    def _turn_over_draw(self) -> None:
        """Both keys of the next stock card are out: turn it over in the engine."""
        rnd = self.round
        deal = self._deal
        assert rnd is not None and deal is not None
        if not (self._key_out[0] and self._key_out[1]):
            return  # the other key is still to come
        self._key_out = [False, False]
        card = self._known[deal.plan.stock[rnd.stock_index]]
        events = rnd.apply(Action.parse(f"draw {card.id}"), CHANCE)
        self.events.append(SessionEvent("moves", rnd.turn, events=tuple(events)))
        self._after_move()

    def _apply_exchange(self, action: Exchange) -> None:
        rnd = self.round
        deal = self._deal
        assert rnd is not None and deal is not None
        events = rnd.apply(action, 1 - rnd.dealer)
        if action.swap:
            deal.exchange_hands()
        self.events.append(SessionEvent("moves", 1 - rnd.dealer, events=tuple(events)))
        self._enter(Stage.HANDS)

    def _learn(self, learned: tuple[Learned, ...]) -> None:
        for item in learned:
            self._known[item.position] = item.card
        rnd = self.round
        deal = self._deal
        if rnd is None or deal is None or self.stage is not Stage.HANDS:
            return
        mine = [self._known[p] for p in deal.plan.hand(self.seat) if p in self._known]
        fresh = sum(1 << c for c in mine) & ~rnd.hands[self.seat]
        if fresh:
            rnd.reveal(self.seat, fresh)

    def _secret_for(self, context: DealContext) -> bytes:
        hkdf = HKDF(algorithm=SHA256(), length=32, salt=SECRET_SALT, info=context.to_bytes())
        return hkdf.derive(self.master_secret)

    # ----------------------------------------------------------- stages

    def _enter(self, stage: Stage) -> None:
        self.stage = stage
        self._alt = 0
        self._queue = []
        if stage is Stage.FIRST_DEALER:
            self._start_first_dealer()
        elif stage is Stage.SETUP:
            self._start_deal()

    def _start_first_dealer(self) -> None:
        assert self.rules is not None
        if self.rules.first_dealer is FirstDealer.COIN:
            self._coin = CoinFlip(self.match_id, self.seat, self.keys, self._secret_for(coin_context(self.match_id)))
            self._queue.extend(self._coin.start().send)
        else:
            context = DealContext(self.match_id, 0, self._draws, Purpose.DEALER_DRAW)
            self._deal = FairDeal(context, self.seat, self.keys, self._secret_for(context))
            self._known = {}
            self._queue.extend(self._deal.start().send)

    def _set_first_dealer(self, seat: int) -> None:
        assert self.rules is not None
        self.match = Match(self.rules)
        self.match.set_first_dealer(seat)
        self.events.append(SessionEvent("first-dealer", seat))
        self._coin = None
        self.round_number = 1
        self.redeal = 0
        self._enter(Stage.SETUP)

    def _start_deal(self) -> None:
        match = self.match
        assert match is not None and match.dealer is not None and self.rules is not None
        self.redeal = match.redeal
        context = DealContext(self.match_id, self.round_number, self.redeal)
        self._deal = FairDeal(
            context,
            self.seat,
            self.keys,
            self._secret_for(context),
            pattern=self.rules.deal_pattern,
            dealer_seat=match.dealer,
        )
        self._known = {}
        self.round = None
        self._key_out = [False, False]
        self._hiki_shown = 0
        self._queue.extend(self._deal.start().send)
        self.events.append(SessionEvent("round", match.dealer, f"{self.round_number}/{self.redeal}"))

    def _advance(self) -> None:
        """Move to the next stage when the alternating one in progress is complete."""
        stage, done = self.stage, self._alt
        if stage is Stage.FIRST_DEALER and self._coin is not None:
            if done == 4 and self._coin.dealer is not None:
                self._set_first_dealer(self._coin.dealer)
        elif stage is Stage.FIRST_DEALER and self._deal is not None:
            if done == 8:
                self._dealer_drawn()
            elif done == 10:
                self._dealer_draw_done()
        elif stage is Stage.SETUP and done == 8:
            self._table_dealt()
        elif stage is Stage.HANDS and done == 2:
            self.stage = Stage.PLAY
            self._alt = 0
        elif stage is Stage.AUDIT and done == 2:
            self._round_audited()
        elif stage is Stage.RESULT and done == 2:
            self._round_counted()
        elif stage is Stage.GOODBYE and done == 2:
            self._end("match-over", "the match is over")

    def _dealer_drawn(self) -> None:
        cards = [self._known.get(p) for p in DRAW_POSITIONS]
        if None in cards:
            raise RemoteProtocolError("bad-draw", "the dealer draw did not open both cards", blame=self.peer)

    def _dealer_draw_done(self) -> None:
        assert self.rules is not None
        card0, card1 = (self._known[p] for p in DRAW_POSITIONS)
        seat = first_dealer_by_draw(self.rules.first_dealer, card0, card1)
        self._deal = None
        if seat is None:
            self._draws += 1
            self._enter(Stage.FIRST_DEALER)
            return
        self._set_first_dealer(seat)

    def _table_dealt(self) -> None:
        match, deal = self.match, self._deal
        assert match is not None and deal is not None and self.rules is not None
        table = sum(1 << self._known[p] for p in deal.plan.table)
        rnd = Round.start(self.rules, match.dealer or 0, (0, 0), table, [None] * 24, hidden=(8, 8))
        self.round = match.begin_round(rnd)
        if rnd.over:
            self.events.append(SessionEvent("moves", None, text="the table shows four of a month: dealt again"))
            self._enter(Stage.AUDIT)
        elif rnd.phase is Phase.EXCHANGE:
            self.stage = Stage.EXCHANGE
            self._alt = 0
        else:
            self._enter(Stage.HANDS)

    def _deal_audited(self) -> None:
        """Our side's audit of the deal passed; for a round, replay it with every card known."""
        deal = self._deal
        rnd = self.round
        if deal is None or deal.report is None or rnd is None or self.stage is not Stage.AUDIT:
            return
        assert self.rules is not None
        full_deal = Deal.from_deck(list(deal.report.deck), self.rules.deal_pattern, rnd.dealer)
        full = Round.from_deal(self.rules, rnd.dealer, full_deal)
        for seat, action in rnd.history:
            try:
                full.apply(action, seat)
            except IllegalActionError as exc:
                blame = 1 - seat if exc.rule == "gaji-blocked-by-hiki" else seat
                raise RemoteProtocolError(
                    f"audit:{exc.rule}", f"with every card known, a move was not legal: {exc}", blame=blame
                ) from None
        if full.outcome != rnd.outcome:
            raise RemoteProtocolError("audit:outcome", "with every card known the round ends otherwise", blame=None)

    def _round_audited(self) -> None:
        match = self.match
        assert match is not None
        deal = self._deal
        if deal is None or deal.report is None:
            raise RemoteProtocolError("audit-missing", "the deal was not audited", blame=self.peer)
        self._my_result = match.finish_round()
        self.events.append(SessionEvent("result", self._my_result.outcome.winner, result=self._my_result))
        self._enter(Stage.RESULT)

    def _round_counted(self) -> None:
        match = self.match
        assert match is not None
        result = self._my_result
        assert result is not None
        self.round = None
        if match.phase is MatchPhase.OVER:
            self.events.append(SessionEvent("over", outcome=match.outcome))
            self._enter(Stage.GOODBYE)
            return
        if result.outcome.kind is not OutcomeKind.REDEAL:
            self.round_number = match.round_number
        self._enter(Stage.SETUP)

    @staticmethod
    def _result_body(result: RoundResult) -> list[Any]:
        outcome = result.outcome
        winner = -1 if outcome.winner is None else outcome.winner
        payment = result.score.payment if result.score is not None else 0
        return [result.number, result.redeal, outcome.kind.value, winner, payment, *result.points]

    # ------------------------------------------------------------ endings

    def _fail(self, error: RemoteProtocolError) -> None:
        self.failure = error
        blame = "the peer" if error.blame == self.peer else ("we" if error.blame == self.seat else "nobody")
        self.events.append(SessionEvent("failed", error.blame, f"{error} ({blame} to blame)"))
        if self.stage is not Stage.OVER:
            self._write("goodbye", [f"violation:{error.reason}"[:60], str(error)[:400]])
            self._end("violation", str(error))

    def _end(self, why: str, text: str) -> None:
        if self.match is not None and self.match.phase is not MatchPhase.OVER and why != "match-over":
            loser = self.seat if why in ("quit", "declined") else self.peer
            self.match.forfeit(loser)
            self.events.append(SessionEvent("over", outcome=self.match.outcome, text=text))
        self.ended_by = why
        self.end_text = text
        self.stage = Stage.OVER

"""A third-party referee: checks a match's entries one by one, trusting nothing but the rules.

Each player's :class:`~p2p_koikoi.session.match_session.MatchSession` referees
the other while they play, using its own secret. :class:`Referee` does the same
from outside, for either author, from the entries alone: the same table of who
writes what when, the same state hash, the same engine, and, for the deal,
everything a spectator can check (``watch.py``). It stops at the first entry
that fails and names it (:class:`~p2p_koikoi.record.findings.Finding`).

For every entry, in this order:

1. integrity: the signature against the author's key (the keys come from the
   ``match`` entry, which must sign itself and derive the match id), the match
   id, the sequence number (a repeat, a fork, a gap), the link to the previous
   entry. A failure here blames nobody, since anybody holding the file could
   have caused it; except a fork: two different entries with one number, both
   signed by one author, prove that author equivocated;
2. the floor: the author the table below expects (a ``goodbye`` may come from
   either seat at any time, as in the session);
3. the state hash: what the author saw before writing, against ours;
4. the meaning, exactly as the receiving player checks it.

The table (the session's, see its module docstring and ``protocol/SPEC.md``):

==============  ====================================================================
stage           floor, and the messages due
==============  ====================================================================
MATCH, ACCEPT   the host's ``match``, then the guest's ``accept`` or ``decline``
FIRST_DEALER    alternating from seat 0: Commit x2, Reveal x2 (coin), or Commit x2,
                Deck 1-4, Keys x2 (positions 0 and 1), Reveal x2 (dealer draw)
SETUP           alternating: Commit x2, Deck 1-4, the table's Keys x2
EXCHANGE        the non-dealer's ``move`` exchange or keep
HANDS           alternating: Keys for the other seat's hand, x2
PLAY            the engine's seat to act; in the DRAW phase the turn's player (its
                key rides in its play), then the other seat (``deal`` Keys); a Gaji
                play onto a month of three waits for the other's hiki / no-hiki
AUDIT           alternating: Reveal x2; then the round is replayed with every card
                known
RESULT          alternating: ``result`` x2, each equal to the recomputed count
GOODBYE         alternating: ``goodbye`` match-over x2
==============  ====================================================================

The floor and the state hash are restated here rather than borrowed from the
session's private methods; ``tests/test_record_referee.py`` checks on every
entry of honest matches under every preset that both agree with the session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from p2p_koikoi.engine import (
    CHANCE,
    Action,
    AnyAction,
    Card,
    ClaimHandYaku,
    Deal,
    Draw,
    EngineError,
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
    Commit,
    DealContext,
    Deck,
    FairnessError,
    Keys,
    Message,
    Purpose,
    Reveal,
    Show,
    parse_message,
    reveal_plan,
)
from p2p_koikoi.fairness.watch import AuditedDeal, CoinWatch, DealWatch
from p2p_koikoi.record.audits import DealKey
from p2p_koikoi.record.events import FirstDealerChoice, HikiAnswer, MatchEnd, MatchInfo, MatchVisitor, PlayedRound
from p2p_koikoi.record.findings import Finding, Rejected
from p2p_koikoi.session.match_session import Stage
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry, match_id_of
from p2p_koikoi.wire.codec import pack

__all__ = ["STATE_DOMAIN", "Accusation", "Referee", "result_body"]

STATE_DOMAIN = b"p2p-koikoi/state/v1\x00"
_LIGHTNING = Card.WILLOW_LIGHTNING
_ALTERNATING = {Stage.FIRST_DEALER, Stage.SETUP, Stage.HANDS, Stage.AUDIT, Stage.RESULT, Stage.GOODBYE}
_RESULT_FIELDS = ("round", "redeal", "outcome", "winner", "payment", "seat 0's points", "seat 1's points")

# The deal messages each slot of an alternating stage holds: (type, deck pass or 0).
_Slot = tuple[type, int]
_COIN: tuple[_Slot, ...] = ((Commit, 0), (Commit, 0), (Reveal, 0), (Reveal, 0))
_OPENING: tuple[_Slot, ...] = (
    (Commit, 0),
    (Commit, 0),
    (Deck, 1),
    (Deck, 2),
    (Deck, 3),
    (Deck, 4),
    (Keys, 0),
    (Keys, 0),
)
_DEALER_DRAW = (*_OPENING, (Reveal, 0), (Reveal, 0))
_HANDS: tuple[_Slot, ...] = ((Keys, 0), (Keys, 0))
_AUDIT: tuple[_Slot, ...] = ((Reveal, 0), (Reveal, 0))


def result_body(result: RoundResult) -> list[Any]:
    """The body of the ``result`` entry both seats must write for ``result`` (as the session writes it)."""
    outcome = result.outcome
    winner = -1 if outcome.winner is None else outcome.winner
    payment = result.score.payment if result.score is not None else 0
    return [result.number, result.redeal, outcome.kind.value, winner, payment, *result.points]


@dataclass(frozen=True, slots=True)
class Accusation:
    """A ``goodbye`` saying its author (``seat``) caught the other seat cheating: not proof by itself."""

    entry: int
    seat: int
    reason: str
    text: str


def _fail(entry: int, reason: str, text: str, blame: int | None) -> NoReturn:
    raise Rejected(Finding(entry, reason, text, blame))


class Referee:
    """Checks a match's entries in order (:meth:`feed`); tells the match to ``visitor`` as it goes.

    ``audited`` maps deals already audited clean (``audits.py``) to their deck, so
    their cards need no unlocking. After the last entry call :meth:`close`.
    """

    def __init__(self, visitor: MatchVisitor | None = None, audited: Mapping[DealKey, AuditedDeal] | None = None):
        self.visitor = visitor if visitor is not None else MatchVisitor()
        self._audited = audited or {}
        self.entries: list[SignedEntry] = []
        self._head = b""
        self.keys: tuple[bytes, bytes] = (b"", b"")
        self.match_id = b""
        self.rules: RuleSet | None = None
        self.stage = Stage.MATCH
        self.alt = 0
        self.round_number = 0
        self.redeal = 0
        self._draws = 0
        self._draw_cards: list[tuple[Card, Card]] = []
        self.match: Match | None = None
        self.round: Round | None = None
        self.deal: DealWatch | None = None
        self._coin: CoinWatch | None = None
        self._gaji_pending: Play | None = None
        self._key_out = [False, False]
        self._hiki: list[HikiAnswer] = []
        self._result: RoundResult | None = None
        self.end: MatchEnd | None = None
        self.accusation: Accusation | None = None
        self.finding: Finding | None = None
        self._entry = 0  # the entry being checked
        self._author = 0

    # ------------------------------------------------------------------ queries

    @property
    def over(self) -> bool:
        return self.end is not None

    def floor(self) -> int:
        """The seat that writes the next entry (the session's ``_floor``)."""
        stage = self.stage
        if stage is Stage.MATCH:
            return 0
        if stage is Stage.ACCEPT:
            return 1
        if stage in _ALTERNATING:
            return self.alt % 2
        rnd = self.round
        assert rnd is not None
        if stage is Stage.EXCHANGE:
            return 1 - rnd.dealer
        if self._gaji_pending is not None:
            return 1 - rnd.turn
        if rnd.phase is Phase.DRAW:
            return 1 - rnd.turn if self._key_out[rnd.turn] else rnd.turn
        return rnd.to_act

    def state_hash(self) -> bytes:
        """The public state every entry's ``state`` field must carry (the session's ``_state_hash``)."""
        match = self.match
        points = match.points if match is not None else [0, 0]
        dealer = match.dealer if match is not None and match.dealer is not None else -1
        public = list(self.round.public_state()) if self.round is not None else []
        state = [self.stage.value, self.alt, self.round_number, self.redeal, points, dealer, public]
        return hashlib.sha256(STATE_DOMAIN + pack(state)).digest()[:16]

    # ------------------------------------------------------------------ feeding

    def feed(self, index: int, signed: SignedEntry) -> None:
        """Check entry ``index``; raises :class:`Rejected` at the first thing wrong (and stays stopped)."""
        if self.finding is not None:
            raise Rejected(self.finding)
        self._entry, self._author = index, signed.entry.author
        try:
            self._feed(index, signed)
        except Rejected as exc:
            self.finding = exc.finding
            raise
        except CheatingDetected as exc:
            self.finding = self._deal_finding(exc)
        except IllegalActionError as exc:
            self.finding = Finding(index, f"illegal-move:{exc.rule}", f"illegal move: {exc}", signed.entry.author)
        except RemoteProtocolError as exc:
            blame = exc.blame if exc.blame in (0, 1) else signed.entry.author
            self.finding = Finding(index, exc.reason, str(exc), blame)
        except (EngineError, FairnessError, ValueError) as exc:
            self.finding = Finding(index, "bad-message", str(exc), signed.entry.author)
        except (LookupError, AssertionError) as exc:  # an entry the checks above let through, yet it does not fit
            text = f"entry {index} does not fit the match ({type(exc).__name__}: {exc})"
            self.finding = Finding(index, "bad-entry", text, signed.entry.author)
        if self.finding is not None:
            raise Rejected(self.finding)

    def _deal_finding(self, exc: CheatingDetected) -> Finding:
        """A deal check failed: name the entry that carried the offending message."""
        offending = None
        if exc.evidence and self.deal is not None:
            offending = self.deal.entry_of(exc.evidence[-1])
        entry = offending if offending is not None else self._entry
        found = self._entry if entry != self._entry else None
        return Finding(entry, str(exc.reason), f"deal: {exc.detail}", exc.blame, found_at=found)

    def _feed(self, index: int, signed: SignedEntry) -> None:
        entry = signed.entry
        if index == 0:
            self._open_match(signed)
        else:
            self._check_integrity(index, signed)
        self.entries.append(signed)
        self._head = signed.digest
        if self.end is not None:
            _fail(index, "after-end", f"seat {entry.author} wrote after the match ended", entry.author)
        if entry.kind == "goodbye" and not (self.stage is Stage.GOODBYE and entry.body[0] == "match-over"):
            self._on_goodbye(index, entry.author, entry.body)
            return
        floor = self.floor()
        if entry.author != floor:
            _fail(
                index,
                "out-of-turn",
                f"entry {index} is seat {entry.author}'s, but seat {floor} has the floor",
                entry.author,
            )
        if entry.state != self.state_hash():
            _fail(
                index, "desync", f"entry {index}: its author's view of the game differs from the rules'", entry.author
            )
        self._on_entry(entry.kind, entry.body)

    def _open_match(self, signed: SignedEntry) -> None:
        """Entry 0 brings the keys everything else is checked against; it must sign itself."""
        entry = signed.entry
        if entry.kind != "match" or entry.seq != 0 or entry.author != 0:
            _fail(0, "not-a-match", "entry 0 is not the host's match entry", None)
        _rules, _fingerprint, keys, nonces, _limit, _software = entry.body
        self.keys = (keys[0], keys[1])
        self._verify(0, signed)
        self.match_id = match_id_of(self.keys, (nonces[0], nonces[1]))
        if entry.match_id != self.match_id:
            _fail(0, "bad-handshake", "the match id is not the one the keys and nonces derive", 0)
        if entry.prev != self.match_id:
            _fail(0, "bad-link", "entry 0 does not start from the match id", 0)
        if self.keys[0] == self.keys[1]:
            _fail(0, "bad-handshake", "both seats have the same key", 0)

    def _verify(self, index: int, signed: SignedEntry) -> None:
        try:
            signed.verify(self.keys[signed.entry.author])
        except RemoteProtocolError:
            _fail(
                index,
                "bad-signature",
                f"entry {index} is not signed by seat {signed.entry.author}'s key (altered after signing, or forged)",
                None,
            )

    def _check_integrity(self, index: int, signed: SignedEntry) -> None:
        entry = signed.entry
        self._verify(index, signed)
        if entry.match_id != self.match_id:
            _fail(index, "wrong-match", f"entry {index} belongs to another match (spliced in)", None)
        if entry.seq != index:
            if entry.seq < index:
                earlier = self.entries[entry.seq]
                if earlier.data == signed.data:
                    _fail(index, "replayed-entry", f"entry {index} repeats entry {entry.seq}", None)
                if earlier.entry.author == entry.author:
                    text = f"seat {entry.author} signed two different entries numbered {entry.seq}"
                    _fail(index, "fork", text, entry.author)
            text = f"entry {index} is numbered {entry.seq}: entries were dropped, added or reordered"
            _fail(index, "bad-seq", text, None)
        if entry.prev != self._head:
            _fail(index, "bad-link", f"entry {index} does not follow entry {index - 1}", None)

    # ------------------------------------------------------------------ meaning

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
        elif kind == "goodbye" and stage is Stage.GOODBYE:
            self.alt += 1
            self._advance()
        else:
            _fail(self._entry, "out-of-turn", f"a {kind} entry in the {stage.value} stage", self._author)

    def _on_match(self, body: list[Any]) -> None:
        rules_text, fingerprint, _keys, _nonces, turn_limit, software = body
        try:
            rules = parse_rules(rules_text)
        except EngineError as exc:
            _fail(0, "bad-rules", f"the host's rules do not parse: {exc}", 0)
        if bytes.fromhex(rules.fingerprint) != fingerprint:
            _fail(0, "bad-rules", "the host's rules do not match their fingerprint", 0)
        self.rules = rules
        self.stage = Stage.ACCEPT
        self.visitor.begin_match(MatchInfo(rules, self.keys, ("host", "guest"), self.match_id, software, turn_limit))

    def _on_accept(self, kind: str, body: list[Any]) -> None:
        rules = self.rules
        assert rules is not None
        if kind == "decline":
            self._finish(MatchEnd("declined", 1, body[0]))
            return
        if body[0] != bytes.fromhex(rules.fingerprint):
            _fail(self._entry, "bad-rules", "the guest accepted other rules", 1)
        self._enter(Stage.FIRST_DEALER)

    def _on_goodbye(self, index: int, author: int, body: list[Any]) -> None:
        """A goodbye out of the GOODBYE stage ends the match: an accusation, a vanished peer, or its
        author leaving (quitting forfeits, as does any other reason: the session treats them alike)."""
        reason, text = body
        if reason.startswith("violation:"):
            self.accusation = Accusation(index, author, reason.partition(":")[2], text)
            self._finish(MatchEnd("violation", author, text))
        elif reason == "peer-gone":
            self._finish(MatchEnd(reason, author, text, self._forfeit(1 - author)))
        else:
            self._finish(MatchEnd("quit" if reason == "quit" else reason, author, text, self._forfeit(author)))

    def _forfeit(self, loser: int) -> MatchOutcome | None:
        match = self.match
        if match is None:
            return None
        if match.phase is MatchPhase.OVER:
            return match.outcome
        return match.forfeit(loser)

    # ------------------------------------------------------------------ the deal

    def _deal_redeal(self) -> int:
        return self._draws if self.stage is Stage.FIRST_DEALER else self.redeal

    def _slots(self) -> tuple[_Slot, ...]:
        stage = self.stage
        if stage is Stage.FIRST_DEALER:
            return _COIN if self._coin is not None else _DEALER_DRAW
        if stage is Stage.SETUP:
            return _OPENING
        return _HANDS if stage is Stage.HANDS else _AUDIT

    def _parse(self, data: bytes) -> Message:
        deal = self.deal
        return deal.parse(self._author, data) if deal is not None else parse_message(data)

    def _on_deal_message(self, body: list[Any]) -> None:
        number, redeal, data = body
        if number != self.round_number or redeal != self._deal_redeal():
            _fail(self._entry, "wrong-round", "a deal message for another round", self._author)
        message = self._parse(data)
        kind, number_due = self._slots()[self.alt]
        if not isinstance(message, kind) or (isinstance(message, Deck) and message.number != number_due):
            due = f"deck pass {number_due}" if kind is Deck else kind.__name__
            text = f"a {type(message).__name__} message where its {due} was due"
            _fail(self._entry, "unexpected-message", text, self._author)
        if self._coin is not None:
            self._coin.receive(self._author, message)
        else:
            deal = self.deal
            assert deal is not None
            deal.receive(self._entry, self._author, message)
            if isinstance(message, Reveal) and deal.deck is not None:
                self._deal_audited()
        self.alt += 1
        self._advance()

    def _deal_audited(self) -> None:
        """Both secrets are out and the deal audits clean: replay the round with every card known."""
        deal, rnd, rules = self.deal, self.round, self.rules
        if deal is None or deal.deck is None or rnd is None or rules is None or self.stage is not Stage.AUDIT:
            return
        full = Round.from_deal(rules, rnd.dealer, Deal.from_deck(list(deal.deck), rules.deal_pattern, rnd.dealer))
        for seat, action in rnd.history:
            try:
                full.apply(action, seat)
            except IllegalActionError as exc:
                blame = 1 - seat if exc.rule == "gaji-blocked-by-hiki" else seat
                text = f"with every card known, seat {seat}'s {action} was not legal: {exc}"
                _fail(self._entry, f"audit:{exc.rule}", text, blame if blame in (0, 1) else None)
        if full.outcome != rnd.outcome:
            _fail(self._entry, "audit:outcome", "with every card known the round ends otherwise", None)

    def _enter(self, stage: Stage) -> None:
        self.stage = stage
        self.alt = 0
        if stage is Stage.FIRST_DEALER:
            self._start_first_dealer()
        elif stage is Stage.SETUP:
            self._start_deal()

    def _start_first_dealer(self) -> None:
        rules = self.rules
        assert rules is not None
        if rules.first_dealer is FirstDealer.COIN:
            self._coin = CoinWatch(self.match_id, self.keys)
            return
        context = DealContext(self.match_id, 0, self._draws, Purpose.DEALER_DRAW)
        self.deal = DealWatch(context, self.keys, None, self._audited.get((0, self._draws)))

    def _set_first_dealer(self, seat: int) -> None:
        rules = self.rules
        assert rules is not None
        self.match = Match(rules)
        self.match.set_first_dealer(seat)
        method = "coin" if self._coin is not None else "draw"
        self.visitor.first_dealer(FirstDealerChoice(seat, method, tuple(self._draw_cards)))
        self._coin = None
        self.deal = None
        self.round_number = 1
        self.redeal = 0
        self._enter(Stage.SETUP)

    def _start_deal(self) -> None:
        match, rules = self.match, self.rules
        assert match is not None and match.dealer is not None and rules is not None
        self.redeal = match.redeal
        context = DealContext(self.match_id, self.round_number, self.redeal)
        plan = reveal_plan(rules.deal_pattern, match.dealer)
        self.deal = DealWatch(context, self.keys, plan, self._audited.get((self.round_number, self.redeal)))
        self.round = None
        self._key_out = [False, False]
        self._hiki = []
        self._gaji_pending = None

    def _advance(self) -> None:
        stage, done = self.stage, self.alt
        if stage is Stage.FIRST_DEALER and self._coin is not None:
            if done == 4 and self._coin.dealer is not None:
                self._set_first_dealer(self._coin.dealer)
        elif stage is Stage.FIRST_DEALER and done == 10:
            self._dealer_draw_done()
        elif stage is Stage.SETUP and done == 8:
            self._table_dealt()
        elif stage is Stage.HANDS and done == 2:
            self.stage = Stage.PLAY
            self.alt = 0
        elif stage is Stage.AUDIT and done == 2:
            self._round_audited()
        elif stage is Stage.RESULT and done == 2:
            self._round_counted()
        elif stage is Stage.GOODBYE and done == 2:
            match = self.match
            self._finish(MatchEnd("finished", None, "both said goodbye", match.outcome if match else None))

    def _dealer_draw_done(self) -> None:
        rules, deal = self.rules, self.deal
        assert rules is not None and deal is not None
        card0, card1 = (deal.card_at(p) for p in DRAW_POSITIONS)
        self._draw_cards.append((card0, card1))
        seat = first_dealer_by_draw(rules.first_dealer, card0, card1)
        if seat is None:
            self._draws += 1
            self._enter(Stage.FIRST_DEALER)
            return
        self._set_first_dealer(seat)

    def _table_dealt(self) -> None:
        match, deal, rules = self.match, self.deal, self.rules
        assert match is not None and deal is not None and deal.plan is not None and rules is not None
        table = sum(1 << deal.card_at(p) for p in deal.plan.table)
        rnd = Round.start(rules, match.dealer or 0, (0, 0), table, [None] * 24, hidden=(8, 8))
        self.round = match.begin_round(rnd)
        if rnd.over:
            self._enter(Stage.AUDIT)
        elif rnd.phase is Phase.EXCHANGE:
            self.stage = Stage.EXCHANGE
            self.alt = 0
        else:
            self._enter(Stage.HANDS)

    def _round_audited(self) -> None:
        match, deal, rnd, rules = self.match, self.deal, self.round, self.rules
        assert match is not None and rnd is not None and rules is not None
        if deal is None or deal.deck is None:
            _fail(self._entry, "audit-missing", "the deal was not audited", self._author)
        dealt = Deal.from_deck(list(deal.deck), rules.deal_pattern, rnd.dealer)
        self._result = match.finish_round()
        result = self._result
        self.visitor.round_played(
            PlayedRound(
                result.number,
                result.redeal,
                rnd.dealer,
                dealt.table,
                dealt,
                tuple(rnd.history),
                tuple(self._hiki),
                result,
            )
        )
        self._enter(Stage.RESULT)

    def _on_result(self, body: list[Any]) -> None:
        result = self._result
        assert result is not None
        expected = result_body(result)
        if body != expected:
            name, claimed, due = next(
                (n, a, b) for n, a, b in zip(_RESULT_FIELDS, body, expected, strict=True) if a != b
            )
            text = f"seat {self._author}'s count of the round differs in the {name}: {claimed!r}, not {due!r}"
            _fail(self._entry, "result-mismatch", text, self._author)
        self.alt += 1
        self._advance()

    def _round_counted(self) -> None:
        match, result = self.match, self._result
        assert match is not None and result is not None
        self.round = None
        if match.phase is MatchPhase.OVER:
            self._enter(Stage.GOODBYE)
            return
        if result.outcome.kind is not OutcomeKind.REDEAL:
            self.round_number = match.round_number
        self._enter(Stage.SETUP)

    # ------------------------------------------------------------------ play

    def _on_exchange(self, body: list[Any]) -> None:
        if body[0] != self.round_number:
            _fail(self._entry, "wrong-round", "a move for another round", self._author)
        action = self._parse_action(body, allow_show=False, allow_keys=False)
        if not isinstance(action, Exchange):
            _fail(self._entry, "out-of-turn", "the non-dealer must exchange or keep", self._author)
        rnd, deal = self.round, self.deal
        assert rnd is not None and deal is not None
        rnd.apply(action, self._author)
        if action.swap:
            deal.exchange_hands()
        self._enter(Stage.HANDS)

    def _parse_action(self, body: list[Any], *, allow_show: bool, allow_keys: bool) -> AnyAction:
        text = body[1]
        action = Action.parse(text)
        if str(action) != text:
            _fail(self._entry, "not-canonical", f"the move {text!r} is not in canonical form", self._author)
        if (body[2] is not None and not allow_show) or (body[3] is not None and not allow_keys):
            _fail(self._entry, "unexpected-field", "the move carries fields it may not", self._author)
        return action

    def _show(self, data: bytes | None) -> int:
        """The cards a move's Show opens, as a mask (0 without a Show)."""
        if data is None:
            return 0
        message = self._parse(data)
        if not isinstance(message, Show):
            _fail(self._entry, "bad-show", "the show field holds another message", self._author)
        deal = self.deal
        assert deal is not None
        return sum(1 << card for card in deal.receive(self._entry, self._author, message))

    def _keys(self, data: bytes) -> Keys:
        message = self._parse(data)
        if not isinstance(message, Keys):
            _fail(self._entry, "bad-message", "the keys field holds another message", self._author)
        return message

    def _on_play(self, kind: str, body: list[Any]) -> None:
        rnd, deal, author = self.round, self.deal, self._author
        assert rnd is not None and deal is not None
        if kind == "deal":
            number, redeal, data = body
            if number != self.round_number or redeal != self.redeal or rnd.phase is not Phase.DRAW:
                _fail(self._entry, "out-of-turn", "a deal message out of turn", author)
            message = self._parse(data)
            if not isinstance(message, Keys):
                _fail(self._entry, "out-of-turn", "only a stock key is expected now", author)
            self._key_out[author] = True
            deal.receive(self._entry, author, message)
            self._turn_over_draw()
            return
        number, text, show, keys = body
        if number != self.round_number:
            _fail(self._entry, "wrong-round", "a move for another round", author)
        if self._gaji_pending is not None:
            self._on_hiki_answer(text, show, keys)
            return
        action = self._parse_action(body, allow_show=True, allow_keys=True)
        shown = self._show(show)
        if isinstance(action, Play):
            if shown != action.card.bit:
                _fail(self._entry, "show-mismatch", "the play does not show the card played", author)
            if self._needs_hiki_answer(action, author):
                if keys is not None:
                    _fail(self._entry, "early-key", "a Gaji play onto three must wait for Hiki", author)
                rnd.copy().apply(action, author)
                self._gaji_pending = action
                return
            if keys is None:
                _fail(self._entry, "missing-key", "a play carries the key for the draw", author)
            rnd.copy().apply(action, author)
            self._key_out[author] = True
            deal.receive(self._entry, author, self._keys(keys))
        else:
            if keys is not None:
                _fail(self._entry, "unexpected-key", "only a play carries a stock key", author)
            if isinstance(action, ClaimHandYaku):
                if shown != action.cards:
                    _fail(self._entry, "show-mismatch", "the claim does not show its cards", author)
            elif shown:
                _fail(self._entry, "unexpected-show", "only plays and claims show cards", author)
        self._apply(action, author)

    def _on_hiki_answer(self, text: str, show: bytes | None, keys: bytes | None) -> None:
        """The other seat answers a Gaji play onto a month of three."""
        pending, rnd, author = self._gaji_pending, self.round, self._author
        assert pending is not None and rnd is not None and pending.target is not None
        self._gaji_pending = None
        if text == "no-hiki" and show is None and keys is None:
            self._apply(pending, rnd.turn)
            return
        words = text.split()
        if len(words) != 2 or words[0] != "hiki" or keys is not None:
            _fail(self._entry, "bad-hiki", "a Gaji play must be answered with hiki CARD or no-hiki", author)
        card = Card.parse(words[1])
        if card.month != pending.target.month or self._show(show) != card.bit:
            _fail(self._entry, "bad-hiki", "the Hiki card is not the fourth of that month", author)
        self._hiki.append(HikiAnswer(len(rnd.history), rnd.turn, pending, card))
        if not rnd.hands[author] & card.bit:
            rnd.reveal(author, card.bit)

    def _needs_hiki_answer(self, action: Play, seat: int) -> bool:
        rnd = self.round
        assert rnd is not None
        if not (rnd.rules.gaji and action.card is _LIGHTNING and action.target is not None):
            return False
        target = action.target
        if rnd.table & month_mask(_LIGHTNING.month) & target.bit:
            return False  # an ordinary willow capture
        return (rnd.table & month_mask(target.month)).bit_count() == 3

    def _apply(self, action: AnyAction, seat: int) -> None:
        rnd = self.round
        assert rnd is not None
        rnd.apply(action, seat)
        if rnd.over:
            self._enter(Stage.AUDIT)

    def _turn_over_draw(self) -> None:
        rnd, deal = self.round, self.deal
        assert rnd is not None and deal is not None and deal.plan is not None
        if not (self._key_out[0] and self._key_out[1]):
            return
        self._key_out = [False, False]
        card = deal.card_at(deal.plan.stock[rnd.stock_index])
        rnd.apply(Draw(card), CHANCE)
        if rnd.over:
            self._enter(Stage.AUDIT)

    # ------------------------------------------------------------------ the end

    def _finish(self, end: MatchEnd) -> None:
        self._tell_unfinished_round()
        self.end = end
        self.stage = Stage.OVER
        self.visitor.end_match(end)

    def _tell_unfinished_round(self) -> None:
        """A round cut short: tell what is known of it (its table as dealt, its moves; no deal)."""
        rnd, deal = self.round, self.deal
        if rnd is None or deal is None or deal.plan is None or self.stage in (Stage.RESULT, Stage.OVER):
            return
        table = sum(1 << deal.cards[p] for p in deal.plan.table if p in deal.cards)
        played = PlayedRound(
            self.round_number, self.redeal, rnd.dealer, table, None, tuple(rnd.history), tuple(self._hiki)
        )
        self.visitor.round_played(played)

    def close(self, why: str = "the record stops here") -> MatchEnd:
        """The entries are over: end the match as it stands (unless it ended), and say how."""
        if self.end is None:
            how = "failed" if self.finding is not None else "unfinished"
            self._finish(MatchEnd(how, None, self.finding.line() if self.finding is not None else why))
        assert self.end is not None
        return self.end

    def next_writer(self) -> int | None:
        """Who had the floor when the entries stopped (None once the match ended)."""
        if self.end is not None or self.finding is not None:
            return None
        try:
            return self.floor()
        except AssertionError:
            return None

"""The one referee of a match: every entry, ours and the peer's, judged by the same rules.

:class:`Referee` is a sans-IO state machine over signed entries. The live seat
and ``koikoi verify`` run the very same one; they differ only in what they know
(``sides.py``). Every entry goes through :meth:`Referee.feed` (one received or
read) or :meth:`Referee.append` (one of ours, made by :meth:`Referee.prepare`),
and is checked in this order:

1. integrity: the signature against the author's key (the keys come from the
   ``match`` entry, which must sign itself and derive the match id), the match
   id, the sequence number (a repeat, a fork, a gap), the link to the previous
   entry. A live seat blames the peer, who sent the bytes; a spectator blames
   nobody, since anybody holding a file could have damaged it; a fork (two
   entries with one number, both signed by one author) blames its author;
2. nothing after the end (a claim of silence or an adjournment only pauses the
   match: the accused's answer, or for an adjournment anyone's next entry, voids
   it, and the match goes on);
3. the floor (``table.floor``); a ``goodbye`` may come from either seat at any time;
4. the state hash: what the author saw before writing, against ours;
5. the meaning: the deal protocol checks every point and key (``sides.py``),
   the engine every move, and at each round's end the whole round is replayed
   with every card known.

The first failure raises :class:`~p2p_koikoi.referee.findings.Violation` (the entry,
the reason id, the seat to blame) and the referee keeps it. How a ``goodbye``
ends the match is decided once, in ``endings.py``.
"""

from __future__ import annotations

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
    RuleId,
    RuleSet,
    Termination,
    first_dealer_by_draw,
    parse_rules,
)
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.engine.rules import FirstDealer
from p2p_koikoi.fairness import (
    DRAW_POSITIONS,
    CheatingDetected,
    DealContext,
    Deck,
    FairnessError,
    Keys,
    Message,
    Purpose,
    Reason,
    Reveal,
    Show,
    parse_message,
)
from p2p_koikoi.referee import endings
from p2p_koikoi.referee.endings import Loser, RuleName
from p2p_koikoi.referee.events import (
    ChoiceMethod,
    Claim,
    Ending,
    FirstDealerChoice,
    HikiAnswer,
    MatchEnd,
    MatchInfo,
    MatchVisitor,
    PlayedRound,
)
from p2p_koikoi.referee.evidence import examine
from p2p_koikoi.referee.findings import BadBytes, Finding, Violation
from p2p_koikoi.referee.sides import CoinSide, DealSide, Knowledge
from p2p_koikoi.referee.table import (
    AUDIT_SLOTS,
    COIN_SLOTS,
    DEALER_DRAW_SLOTS,
    GOODBYE_SLOTS,
    HAND_SLOTS,
    OPENING_SLOTS,
    RESULT_FIELDS,
    RESULT_SLOTS,
    Slot,
    Stage,
    floor,
    result_body,
    state_hash,
)
from p2p_koikoi.wire import Entry, LocalProtocolError, RemoteProtocolError, SignedEntry, match_id_of
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
    NotAHikiReply,
    ResultBody,
)
from p2p_koikoi.wire.keys import check_public_key
from p2p_koikoi.wire.reasons import ReasonCode, ReasonId

__all__ = ["Referee"]

_LIGHTNING = Card.WILLOW_LIGHTNING


def _fail(entry: int, reason: str, text: str, blame: int | None) -> NoReturn:
    raise Violation(Finding(entry, reason, text, blame))


class Referee:
    """Judges a match's entries in order; tells the match to ``visitor`` as it goes.

    ``knowledge`` is what the observer knows (a seat's secrets, or nothing). A seat
    also passes the ``keys`` and ``nonces`` its greeting agreed, which the match
    entry must name.
    """

    def __init__(
        self,
        knowledge: Knowledge,
        visitor: MatchVisitor | None = None,
        *,
        keys: tuple[bytes, bytes] | None = None,
        nonces: tuple[bytes, bytes] | None = None,
    ) -> None:
        self.knowledge = knowledge
        self.seat = knowledge.seat
        self.visitor = visitor if visitor is not None else MatchVisitor()
        self.expected = (keys, nonces) if keys is not None and nonces is not None else None
        self.keys: tuple[bytes, bytes] = keys if keys is not None else (b"", b"")
        self.match_id = match_id_of(keys, nonces) if keys is not None and nonces is not None else b""
        self.entries: list[SignedEntry] = []
        self.head = self.match_id
        self.rules: RuleSet | None = None
        self.turn_limit = 0
        self.stage = Stage.MATCH
        self.step = 0
        self.round_number = 0
        self.redeal = 0
        self.draws = 0  # dealer draws so far (a tie draws again)
        self._draw_cards: list[tuple[Card, Card]] = []
        self.match: Match | None = None
        self.round: Round | None = None
        self.deal: DealSide | None = None
        self.coin: CoinSide | None = None
        self.gaji_pending: Play | None = None
        self.key_out = [False, False]  # which seats released their key for the stock card being drawn
        self._hiki: list[HikiAnswer] = []
        self.result: RoundResult | None = None
        self.end: MatchEnd | None = None
        self.finding: Finding | None = None
        self.accusation: endings.Accusation | None = None
        self.deal_start = 0  # the first entry of the deal in progress
        self._history_entries: list[int] = []  # the entry of each action in the round's history
        self._owed_since = 0  # the chain length when the floor holder began to owe its next entry
        self._objected_at = -1  # the ``_owed_since`` of the last objection (``here``)
        self._adjourned_by: int | None = None  # the seat that adjourned and has not written since
        self._signed_by_us = False  # the entry being judged is one we have just signed
        self._entry = 0  # the entry being judged
        self._author = 0

    # ------------------------------------------------------------------ queries

    @property
    def next_seq(self) -> int:
        """The sequence number of the next entry of the chain."""
        return len(self.entries)

    @property
    def over(self) -> bool:
        """The match has ended for good: no entry can follow (a claim of silence or an adjournment can be
        answered, so it is not over)."""
        return self.end is not None and not self.end.refutable

    def floor(self) -> int:
        """The seat that writes the next entry."""
        return floor(self.stage, self.step, self.round, self.gaji_pending, self.key_out)

    def state_hash(self) -> bytes:
        return state_hash(self.stage, self.step, self.round_number, self.deal_redeal(), self.match, self.round)

    def next_writer(self) -> int | None:
        """Who held the floor when the entries stopped (None once the match is over)."""
        if self.over or self.finding is not None:
            return None
        try:
            return self.floor()
        except AssertionError:
            return None

    @property
    def owed_since(self) -> int:
        """The chain length when the floor holder began to owe its next entry (claims and objections, which
        change nothing of the game, do not move it): the point a patience is counted from."""
        return self._owed_since

    @property
    def objected(self) -> bool:
        """The floor holder already objected (``here``) to a claim of its silence for the entry it owes."""
        return self._objected_at == self._owed_since

    def may_object(self) -> bool:
        """Whether the floor holder may answer a claim of its silence with ``here`` now: once for each entry
        it owes under a decision time limit, always without one."""
        return not self.turn_limit or not self.objected

    def history_entry(self, n: int) -> int:
        """The entry that made the round's ``n``-th action."""
        return self._history_entries[n] if n < len(self._history_entries) else self._entry

    def accusation_entry(self) -> int:
        """The entry being judged (an accusation, while its evidence is examined)."""
        return self._entry

    def deal_redeal(self) -> int:
        """The redeal field of a deal message now: the dealer draw counts its draws."""
        return self.draws if self.stage is Stage.FIRST_DEALER else self.redeal

    def deal_context(self) -> DealContext | None:
        """The context of the deal in progress (for an accusation's evidence)."""
        if self.stage is Stage.FIRST_DEALER and self.coin is None and self.deal is not None:
            return DealContext(self.match_id, 0, self.draws, Purpose.DEALER_DRAW)
        if self.deal is not None and self.stage in (Stage.SETUP, Stage.EXCHANGE, Stage.HANDS, Stage.PLAY, Stage.AUDIT):
            return DealContext(self.match_id, self.round_number, self.redeal)
        return None

    # ------------------------------------------------------------------ feeding

    def feed(self, signed: SignedEntry, *, signed_by_us: bool = False) -> None:
        """Judge the next entry of the chain, received or read. Raises :class:`Violation` (and keeps it).

        ``signed_by_us`` (from :meth:`append`) skips checking a signature we have just made ourselves."""
        if self.finding is not None and not self._answers_finding(signed):
            raise Violation(self.finding)
        index = len(self.entries)
        self._entry, self._author = index, signed.entry.author
        try:
            self._signed_by_us = signed_by_us
            if index == 0:
                self._open_match(signed)
            else:
                self._check_integrity(index, signed)
            self._judge(signed)
        except Violation as exc:
            if not self._keep(exc.finding, index):
                raise BadBytes(exc.finding) from None
            raise
        except Exception as exc:
            finding = self._classify(exc)
            if finding is None:
                raise
            if not self._keep(finding, index):
                raise BadBytes(finding) from None
            raise Violation(finding) from None

    def record_fault(self, finding: Finding) -> None:
        """A fault of the record file itself that its reader found (a frame that does not parse, an entry
        that does not decode): the match stops there, as at any failure."""
        if self.finding is None:
            self.finding = finding

    def excuse_own_breach(self) -> None:
        """A test's cheating seat sends an entry its own referee refused: the referee lets it go, so the lie
        can go out and the other seat's referee judge it (``MatchSession.sends_what_it_breaks``)."""
        self.finding = None

    def _keep(self, finding: Finding, index: int) -> bool:
        """The first failure stops the match (True), except, for a live seat, a fault in bytes that never
        joined the chain: those are a broken connection (SPEC.md section 7), and the chain goes on unharmed."""
        live_fault = self.seat is not None and finding.reason in endings.INTEGRITY_REASONS
        if live_fault and len(self.entries) == index:
            return False
        self.finding = finding
        return True

    def prepare(self, author: int, kind: str, body: list[Any]) -> Entry:
        """The entry ``author`` (our seat) may sign next; :class:`LocalProtocolError` if it may not."""
        if self.over:
            raise LocalProtocolError("after-end", "the match is over")
        if kind != EntryKind.GOODBYE and self.floor() != author:
            raise LocalProtocolError("not-our-turn", f"seat {self.floor()} holds the floor, not seat {author}")
        return Entry(self.match_id, len(self.entries), self.head, author, kind, body, self.state_hash())

    def append(self, signed: SignedEntry) -> None:
        """Take our own signed entry through the same checks as the peer's. A rule it breaks is our bug
        (:class:`LocalProtocolError`); what it brings to light about the peer is the peer's violation."""
        try:
            self.feed(signed, signed_by_us=True)
        except Violation as exc:
            if exc.finding.blame == signed.entry.author or (
                exc.finding.blame is None and exc.finding.entry == len(self.entries)
            ):
                raise LocalProtocolError(exc.reason, f"our own entry breaks a rule: {exc}") from None
            raise

    def _answers_finding(self, signed: SignedEntry) -> bool:
        """After a violation only the accusation of the seat not to blame may follow."""
        finding = self.finding
        entry = signed.entry
        return (
            finding is not None
            and self.end is None
            and entry.kind == EntryKind.GOODBYE
            and entry.author != finding.blame
            and entry.seq == len(self.entries)
        )

    def _classify(self, exc: Exception) -> Finding | None:
        """One classifier of what an entry's check raised: the author's fault, or our bug (None)."""
        index, author = self._entry, self._author
        if isinstance(exc, CheatingDetected):
            return self._deal_finding(exc)
        if isinstance(exc, IllegalActionError):
            return Finding(index, str(ReasonCode(ReasonId.ILLEGAL_MOVE, exc.rule)), f"illegal move: {exc}", author)
        if isinstance(exc, RemoteProtocolError):
            blame = exc.blame if exc.blame in (0, 1) else author
            return Finding(index, exc.reason, str(exc), blame)
        if isinstance(exc, EngineError | FairnessError):
            return Finding(index, ReasonId.BAD_MESSAGE, str(exc), author)
        return None  # ValueError, LookupError, AssertionError...: a bug of ours, never the peer's fault

    def _deal_finding(self, exc: CheatingDetected) -> Finding:
        """A deal check failed: name the entry that carried the offending message."""
        offending = None
        if exc.evidence and self.deal is not None:
            offending = self.deal.entry_of(exc.evidence[-1])
        entry = offending if offending is not None else self._entry
        found = self._entry if entry != self._entry else None
        return Finding(entry, str(exc.reason), f"deal: {exc.detail}", exc.blame, found_at=found)

    # ------------------------------------------------------------------ integrity

    def _integrity_blame(self, author: int) -> int | None:
        """A live seat received the bytes from the peer: the peer is to blame. A file blames nobody."""
        return None if self.seat is None else 1 - self.seat

    def _open_match(self, signed: SignedEntry) -> None:
        """Entry 0 brings the keys everything else is checked against; it must sign itself."""
        entry = signed.entry
        if entry.kind != EntryKind.MATCH or entry.seq != 0 or entry.author != 0:
            _fail(0, ReasonId.NOT_A_MATCH, "entry 0 is not the host's match entry", self._integrity_blame(0))
        match_body = MatchBody.from_list(entry.body)
        keys, nonces = match_body.keys, match_body.nonces
        if self.expected is not None and (tuple(keys), tuple(nonces)) != self.expected:
            _fail(0, ReasonId.BAD_HANDSHAKE, "the match entry names other keys or nonces", 0)
        problem = check_public_key(keys[0])
        if problem is not None:  # nothing signed with it proves anything, so nobody is proved at fault
            _fail(0, ReasonId.BAD_KEY, f"seat 0's key {problem}", None)
        self.keys = (keys[0], keys[1])
        self._verify(0, signed)
        problem = check_public_key(keys[1])
        if problem is not None:
            _fail(0, ReasonId.BAD_KEY, f"seat 1's key {problem}", 1)
        self.match_id = match_id_of(self.keys, (nonces[0], nonces[1]))
        if entry.match_id != self.match_id:
            _fail(0, ReasonId.BAD_HANDSHAKE, "the match id is not the one the keys and nonces derive", 0)
        if entry.prev != self.match_id:
            _fail(0, ReasonId.BAD_LINK, "entry 0 does not start from the match id", 0)
        if self.keys[0] == self.keys[1]:
            _fail(0, ReasonId.BAD_HANDSHAKE, "both seats have the same key", 0)

    def _verify(self, index: int, signed: SignedEntry) -> None:
        if self._signed_by_us:
            return
        try:
            signed.verify(self.keys[signed.entry.author])
        except RemoteProtocolError:
            text = f"entry {index} is not signed by seat {signed.entry.author}'s key (altered after signing, or forged)"
            _fail(index, ReasonId.BAD_SIGNATURE, text, self._integrity_blame(signed.entry.author))

    def _check_integrity(self, index: int, signed: SignedEntry) -> None:
        entry = signed.entry
        blame = self._integrity_blame(entry.author)
        self._verify(index, signed)
        if entry.match_id != self.match_id:
            _fail(index, ReasonId.WRONG_MATCH, f"entry {index} belongs to another match (spliced in)", blame)
        if entry.seq != index:
            if entry.seq < index:
                earlier = self.entries[entry.seq]
                if earlier.data == signed.data:
                    _fail(index, ReasonId.REPLAYED_ENTRY, f"entry {index} repeats entry {entry.seq}", blame)
                if earlier.entry.author == entry.author:
                    text = f"seat {entry.author} signed two different entries numbered {entry.seq}"
                    _fail(index, ReasonId.FORK, text, entry.author)
            text = f"entry {index} is numbered {entry.seq}: entries were dropped, added or reordered"
            _fail(index, ReasonId.BAD_SEQ, text, blame)
        if entry.prev != self.head:
            _fail(index, ReasonId.BAD_LINK, f"entry {index} does not follow entry {index - 1}", blame)

    # ------------------------------------------------------------------ judging

    def _judge(self, signed: SignedEntry) -> None:
        entry, index = signed.entry, self._entry
        if self.over:
            _fail(index, ReasonId.AFTER_END, f"seat {entry.author} wrote after the match ended", entry.author)
        claim_open = self.end is not None and self.end.claimed
        if self.end is not None:  # a claim of silence or an adjournment: the next entry may void it
            self._reopen_by(entry.author)
        content = entry.content
        if isinstance(content, HereBody):
            if not claim_open:
                _fail(
                    index,
                    ReasonId.OUT_OF_TURN,
                    "an objection where no claim of its writer's silence stands",
                    entry.author,
                )
            self._check_state(index, entry)
            self._take(signed)
            self._on_objection(entry.author)
            return
        if isinstance(content, GoodbyeBody) and not (
            self.stage is Stage.GOODBYE and Claim.parse(content.reason)[0] is Claim.MATCH_OVER
        ):
            self._take(signed)
            self._on_goodbye(index, entry.author, content)
            return
        turn = self.floor()
        if entry.author != turn:
            text = f"entry {index} is seat {entry.author}'s, but seat {turn} has the floor"
            _fail(index, ReasonId.OUT_OF_TURN, text, entry.author)
        self._check_state(index, entry)
        self._take(signed)
        self._owed_since = index + 1
        self._on_entry(content)

    def _check_state(self, index: int, entry: Entry) -> None:
        if not self._signed_by_us and entry.state != self.state_hash():  # ours: prepare() just wrote it
            text = f"entry {index}: its author's view of the game differs from the rules'"
            _fail(index, ReasonId.DESYNC, text, entry.author)

    def _take(self, signed: SignedEntry) -> None:
        if self._adjourned_by == signed.entry.author:
            self._adjourned_by = None  # it wrote again: its adjournment is taken up
        self.entries.append(signed)
        self.head = signed.digest

    def _reopen_by(self, author: int) -> None:
        """An entry follows a refutable ending: an adjournment is lifted by anyone's next entry; a claim of
        silence only by the accused's (its owed entry, ``here`` or a goodbye), which shows it was there."""
        end = self.end
        assert end is not None
        if end.claimed and author != end.owed:
            text = f"seat {author} wrote after its own claim that seat {end.owed} had gone silent"
            _fail(self._entry, ReasonId.AFTER_END, text, author)
        self.end = None
        self.accusation = None

    def floor_decides(self) -> bool:
        """The floor holder owes a decision of its player (the rules, the exchange, a play, a choice of two
        cards, Koi-Koi or Shobu), not an automatic protocol step, which a program writes at once."""
        stage, rnd = self.stage, self.round
        if stage in (Stage.ACCEPT, Stage.EXCHANGE):
            return True
        if stage is not Stage.PLAY or rnd is None or self.gaji_pending is not None:
            return False
        return rnd.phase in (Phase.PLAY, Phase.DRAW_CHOICE, Phase.DECISION)

    def _on_objection(self, author: int) -> None:
        """``here``: the accused answers a claim of its silence without its owed entry yet (a person still
        deciding). Only a decision can be pending: an automatic step is written at once, so a seat owing one
        answers with it. With a decision time limit it may object once for each entry it owes; without one
        (no limit on thinking) as often as it is claimed against."""
        if not self.floor_decides():
            text = f"seat {author} objected instead of the automatic step it owes"
            _fail(self._entry, ReasonId.OUT_OF_TURN, text, author)
        if not self.may_object():
            text = f"seat {author} objected twice to claims of its silence without writing the entry it owes"
            _fail(self._entry, ReasonId.REPEATED_OBJECTION, text, author)
        self._objected_at = self._owed_since

    def _on_entry(self, body: Body) -> None:
        stage = self.stage
        match body:
            case MatchBody() if stage is Stage.MATCH:
                self._on_match(body)
            case AcceptBody() | DeclineBody() if stage is Stage.ACCEPT:
                self._on_accept(body)
            case DealBody() if stage in (Stage.FIRST_DEALER, Stage.SETUP, Stage.HANDS, Stage.AUDIT):
                self._on_deal_message(body)
            case MoveBody() if stage is Stage.EXCHANGE:
                self._on_exchange(body)
            case DealBody() if stage is Stage.PLAY:
                self._on_stock_key(body)
            case MoveBody() if stage is Stage.PLAY:
                self._on_play(body)
            case ResultBody() if stage is Stage.RESULT:
                self._on_result(body)
            case GoodbyeBody() if stage is Stage.GOODBYE:
                self._next_slot()
            case _:
                _fail(
                    self._entry, ReasonId.OUT_OF_TURN, f"a {body.KIND} entry in the {stage.value} stage", self._author
                )

    def _on_match(self, body: MatchBody) -> None:
        fingerprint, turn_limit, software = body.fingerprint, body.turn_limit, body.software
        try:
            rules = parse_rules(body.rules)
        except EngineError as exc:
            _fail(0, ReasonId.BAD_RULES, f"the host's rules do not parse: {exc}", 0)
        if bytes.fromhex(rules.fingerprint) != fingerprint:
            _fail(0, ReasonId.BAD_RULES, "the host's rules do not match their fingerprint", 0)
        self.rules = rules
        self.turn_limit = turn_limit
        self.stage = Stage.ACCEPT
        self.visitor.begin_match(MatchInfo(rules, self.keys, ("host", "guest"), self.match_id, software, turn_limit))

    def _on_accept(self, body: AcceptBody | DeclineBody) -> None:
        rules = self.rules
        assert rules is not None
        if isinstance(body, DeclineBody):
            self.finish(MatchEnd(Ending.DECLINED, 1, body.reason))
            return
        if body.fingerprint != bytes.fromhex(rules.fingerprint):
            _fail(self._entry, ReasonId.BAD_RULES, "the guest accepted other rules", 1)
        self._enter(Stage.FIRST_DEALER)

    # ------------------------------------------------------------------ the deal

    def slots(self) -> tuple[Slot, ...]:
        """The messages due in the alternating deal stage in progress."""
        stage = self.stage
        if stage is Stage.FIRST_DEALER:
            return COIN_SLOTS if self.coin is not None else DEALER_DRAW_SLOTS
        if stage is Stage.SETUP:
            return OPENING_SLOTS
        return HAND_SLOTS if stage is Stage.HANDS else AUDIT_SLOTS

    def _parse(self, data: bytes) -> Message:
        deal = self.deal
        return deal.parse(self._author, data) if deal is not None else parse_message(data)

    def _on_deal_message(self, body: DealBody) -> None:
        if body.round != self.round_number or body.redeal != self.deal_redeal():
            _fail(self._entry, ReasonId.WRONG_ROUND, "a deal message for another round", self._author)
        message = self._parse(body.message)
        kind, number_due = self.slots()[self.step]
        if not isinstance(message, kind) or (isinstance(message, Deck) and message.number != number_due):
            due = f"deck pass {number_due}" if kind is Deck else kind.__name__
            text = f"a {type(message).__name__} message where its {due} was due"
            _fail(self._entry, Reason.UNEXPECTED_MESSAGE, text, self._author)
        if self.coin is not None:
            self.coin.take(self._author, message)
        else:
            deal = self.deal
            assert deal is not None
            deal.take(self._entry, self._author, message)
            self._reveal_own_hand()
            if isinstance(message, Reveal) and deal.deck is not None:
                self._deal_audited()
        self._next_slot()

    def _reveal_own_hand(self) -> None:
        rnd, deal, seat = self.round, self.deal, self.seat
        if rnd is None or deal is None or seat is None or self.stage is not Stage.HANDS:
            return
        fresh = deal.own_hand() & ~rnd.hands[seat]
        if fresh:
            rnd.reveal(seat, fresh)

    def _deal_audited(self) -> None:
        """Both secrets are out and the deal audits clean: replay the round with every card known."""
        deal, rnd, rules = self.deal, self.round, self.rules
        if deal is None or deal.deck is None or rnd is None or rules is None or self.stage is not Stage.AUDIT:
            return
        full = Round.from_deal(rules, rnd.dealer, Deal.from_deck(list(deal.deck), rules.deal_pattern, rnd.dealer))
        for n, (seat, action) in enumerate(rnd.history):
            try:
                full.apply(action, seat)
            except IllegalActionError as exc:
                blame = 1 - seat if exc.rule is RuleId.GAJI_BLOCKED_BY_HIKI else seat
                text = f"with every card known, seat {seat}'s {action} was not legal: {exc}"
                # Named at the entry that made the move (a false pass, a false no-hiki), found at the Reveal.
                at = self.history_entry(n)
                found = self._entry if at != self._entry else None
                finding = Finding(
                    at,
                    str(ReasonCode(ReasonId.AUDIT, exc.rule)),
                    text,
                    blame if blame in (0, 1) else None,
                    found_at=found,
                )
                raise Violation(finding) from None
        if full.outcome != rnd.outcome:
            _fail(
                self._entry,
                str(ReasonCode(ReasonId.AUDIT, "outcome")),
                "with every card known the round ends otherwise",
                None,
            )

    def _next_slot(self) -> None:
        """One slot of an alternating stage is filled: move on when the stage is complete."""
        self.step += 1
        stage, done = self.stage, self.step
        if stage is Stage.FIRST_DEALER and self.coin is not None:
            if done == len(COIN_SLOTS) and self.coin.dealer is not None:
                self._set_first_dealer(self.coin.dealer)
        elif stage is Stage.FIRST_DEALER and done == len(OPENING_SLOTS):
            self._dealer_drawn()
        elif stage is Stage.FIRST_DEALER and done == len(DEALER_DRAW_SLOTS):
            self._dealer_draw_done()
        elif stage is Stage.SETUP and done == len(OPENING_SLOTS):
            self._table_dealt()
        elif stage is Stage.HANDS and done == len(HAND_SLOTS):
            self.stage, self.step = Stage.PLAY, 0
        elif stage is Stage.AUDIT and done == len(AUDIT_SLOTS):
            self._round_audited()
        elif stage is Stage.RESULT and done == RESULT_SLOTS:
            self._round_counted()
        elif stage is Stage.GOODBYE and done == GOODBYE_SLOTS:
            match = self.match
            self.finish(MatchEnd(Ending.FINISHED, None, "both said goodbye", match.outcome if match else None))

    def _enter(self, stage: Stage) -> None:
        self.stage = stage
        self.step = 0
        if stage is Stage.FIRST_DEALER:
            self._start_first_dealer()
        elif stage is Stage.SETUP:
            self._start_deal()

    def _start_first_dealer(self) -> None:
        rules = self.rules
        assert rules is not None
        if rules.first_dealer is FirstDealer.COIN:
            self.coin = self.knowledge.coin(self.match_id, self.keys)
            return
        context = DealContext(self.match_id, 0, self.draws, Purpose.DEALER_DRAW)
        self.deal = self.knowledge.deal(context, self.keys, None, 0)
        self.deal_start = len(self.entries)

    def _dealer_drawn(self) -> None:
        deal = self.deal
        assert deal is not None
        try:
            for position in DRAW_POSITIONS:
                deal.card_at(position)
        except KeyError:
            _fail(self._entry, ReasonId.BAD_DRAW, "the dealer draw did not open both cards", self._author)

    def _dealer_draw_done(self) -> None:
        rules, deal = self.rules, self.deal
        assert rules is not None and deal is not None
        card0, card1 = (deal.card_at(p) for p in DRAW_POSITIONS)
        self._draw_cards.append((card0, card1))
        seat = first_dealer_by_draw(rules.first_dealer, card0, card1)
        if seat is None:
            self.draws += 1
            self._enter(Stage.FIRST_DEALER)
            return
        self._set_first_dealer(seat)

    def _set_first_dealer(self, seat: int) -> None:
        rules = self.rules
        assert rules is not None
        self.match = Match(rules)
        self.match.set_first_dealer(seat)
        method = ChoiceMethod.COIN if self.coin is not None else ChoiceMethod.DRAW
        self.visitor.first_dealer(FirstDealerChoice(seat, method, tuple(self._draw_cards)))
        self.coin = None
        self.deal = None
        self.round_number = 1
        self.redeal = 0
        self._enter(Stage.SETUP)

    def _start_deal(self) -> None:
        match, rules = self.match, self.rules
        assert match is not None and match.dealer is not None and rules is not None
        self.redeal = match.redeal
        context = DealContext(self.match_id, self.round_number, self.redeal)
        self.deal = self.knowledge.deal(context, self.keys, rules.deal_pattern, match.dealer)
        self.deal_start = len(self.entries)
        self._history_entries = []
        self.round = None
        self.key_out = [False, False]
        self._hiki = []
        self.gaji_pending = None
        self.visitor.begin_round(self.round_number, self.redeal, match.dealer)

    def _table_dealt(self) -> None:
        match, deal, rules = self.match, self.deal, self.rules
        assert match is not None and deal is not None and deal.plan is not None and rules is not None
        table = sum(1 << deal.card_at(p) for p in deal.plan.table)
        rnd = Round.start(rules, match.dealer or 0, (0, 0), table, [None] * 24, hidden=(8, 8))
        self.round = match.begin_round(rnd)
        if rnd.over:
            self.visitor.moves(None, (), "the table shows four of a month: dealt again")
            self._enter(Stage.AUDIT)
        elif rnd.phase is Phase.EXCHANGE:
            self.stage, self.step = Stage.EXCHANGE, 0
        else:
            self._enter(Stage.HANDS)

    def _round_audited(self) -> None:
        match, deal, rnd, rules = self.match, self.deal, self.round, self.rules
        assert match is not None and rnd is not None and rules is not None
        if deal is None or deal.deck is None:
            _fail(self._entry, ReasonId.AUDIT_MISSING, "the deal was not audited", self._author)
        dealt = Deal.from_deck(list(deal.deck), rules.deal_pattern, rnd.dealer)
        self.result = result = match.finish_round()
        played = PlayedRound(
            result.number, result.redeal, rnd.dealer, dealt.table, dealt, tuple(rnd.history), tuple(self._hiki), result
        )
        self.visitor.round_played(played)
        self._enter(Stage.RESULT)

    def _on_result(self, body: ResultBody) -> None:
        result = self.result
        assert result is not None
        expected, written = result_body(result), body.to_list()
        if written != expected:
            fields = zip(RESULT_FIELDS, written, expected, strict=True)
            name, claimed, due = next((n, a, b) for n, a, b in fields if a != b)
            text = f"seat {self._author}'s count of the round differs in the {name}: {claimed!r}, not {due!r}"
            _fail(self._entry, ReasonId.RESULT_MISMATCH, text, self._author)
        self._next_slot()

    def _round_counted(self) -> None:
        match, result = self.match, self.result
        assert match is not None and result is not None
        self.round = None
        if match.phase is MatchPhase.OVER:
            self.visitor.match_decided(match.outcome)
            self._enter(Stage.GOODBYE)
            return
        if result.outcome.kind is not OutcomeKind.REDEAL:
            self.round_number = match.round_number
        self._enter(Stage.SETUP)

    # ------------------------------------------------------------------ play

    def _on_exchange(self, body: MoveBody) -> None:
        if body.round != self.round_number:
            _fail(self._entry, ReasonId.WRONG_ROUND, "a move for another round", self._author)
        action = self._parse_action(body, allow_show=False, allow_keys=False)
        if not isinstance(action, Exchange):
            _fail(self._entry, ReasonId.OUT_OF_TURN, "the non-dealer must exchange or keep", self._author)
        rnd, deal = self.round, self.deal
        assert rnd is not None and deal is not None
        self._apply(action, self._author)
        if action.swap:
            deal.exchange_hands()
        self._enter(Stage.HANDS)

    def _parse_action(self, body: MoveBody, *, allow_show: bool, allow_keys: bool) -> AnyAction:
        text = body.action
        action = Action.parse(text)
        if str(action) != text:
            _fail(self._entry, ReasonId.NOT_CANONICAL, f"the move {text!r} is not in canonical form", self._author)
        if (body.show is not None and not allow_show) or (body.keys is not None and not allow_keys):
            _fail(self._entry, ReasonId.UNEXPECTED_FIELD, "the move carries fields it may not", self._author)
        return action

    def _show(self, data: bytes | None) -> int:
        """The cards a move's Show opens, as a mask (0 without a Show)."""
        if data is None:
            return 0
        message = self._parse(data)
        if not isinstance(message, Show):
            _fail(self._entry, ReasonId.BAD_SHOW, "the show field holds another message", self._author)
        deal = self.deal
        assert deal is not None
        return sum(1 << card for card in deal.take(self._entry, self._author, message))

    def _keys(self, data: bytes) -> Keys:
        message = self._parse(data)
        if not isinstance(message, Keys):
            _fail(self._entry, ReasonId.BAD_MESSAGE, "the keys field holds another message", self._author)
        return message

    def _on_play(self, body: MoveBody) -> None:
        show, keys = body.show, body.keys
        if body.round != self.round_number:
            _fail(self._entry, ReasonId.WRONG_ROUND, "a move for another round", self._author)
        if self.gaji_pending is not None:
            self._on_hiki_answer(body)
            return
        action = self._parse_action(body, allow_show=True, allow_keys=True)
        shown = self._show(show)
        if isinstance(action, Play):
            self._on_card_played(action, shown, keys)
            return
        author = self._author
        if keys is not None:
            _fail(self._entry, ReasonId.UNEXPECTED_KEY, "only a play carries a stock key", author)
        if isinstance(action, ClaimHandYaku):
            if shown != action.cards:
                _fail(self._entry, ReasonId.SHOW_MISMATCH, "the claim does not show its cards", author)
        elif shown:
            _fail(self._entry, ReasonId.UNEXPECTED_SHOW, "only plays and claims show cards", author)
        self._apply(action, author)

    def _on_stock_key(self, body: DealBody) -> None:
        rnd, deal, author = self.round, self.deal, self._author
        assert rnd is not None and deal is not None
        if body.round != self.round_number or body.redeal != self.redeal or rnd.phase is not Phase.DRAW:
            _fail(self._entry, ReasonId.OUT_OF_TURN, "a deal message out of turn", author)
        message = self._parse(body.message)
        if not isinstance(message, Keys):
            _fail(self._entry, ReasonId.OUT_OF_TURN, "only a stock key is expected now", author)
        self.key_out[author] = True
        deal.take(self._entry, author, message)
        self._turn_over_draw()

    def _on_card_played(self, action: Play, shown: int, keys: bytes | None) -> None:
        rnd, deal, author = self.round, self.deal, self._author
        assert rnd is not None and deal is not None
        if shown != action.card.bit:
            _fail(self._entry, ReasonId.SHOW_MISMATCH, "the play does not show the card played", author)
        if self.needs_hiki_answer(action):
            if keys is not None:
                _fail(self._entry, ReasonId.EARLY_KEY, "a Gaji play onto three must wait for Hiki", author)
            self._check_gaji(action, author)
            self.gaji_pending = action
            return
        if keys is None:
            _fail(self._entry, ReasonId.MISSING_KEY, "a play carries the key for the draw", author)
        rnd.copy().apply(action, author)
        self.key_out[author] = True
        deal.take(self._entry, author, self._keys(keys))
        self._apply(action, author)

    def _check_gaji(self, action: Play, author: int) -> None:
        """A Gaji play onto a month of three is legal unless the player could know it is blocked: the
        other seat may hold the fourth card (its Hiki), which only that seat's own view shows. It is
        forgiven unless that card was shown in a Hiki earlier in the round."""
        rnd = self.round
        assert rnd is not None and action.target is not None
        try:
            rnd.copy().apply(action, author)
        except IllegalActionError as exc:
            shown = 0
            for answer in self._hiki:
                if answer.seat == author:
                    shown |= answer.card.bit
            known = shown & rnd.hands[1 - author] & month_mask(action.target.month)
            if exc.rule is not RuleId.GAJI_BLOCKED_BY_HIKI or known:
                raise

    def _on_hiki_answer(self, body: MoveBody) -> None:
        """The other seat answers a Gaji play onto a month of three."""
        pending, rnd, author = self.gaji_pending, self.round, self._author
        assert pending is not None and rnd is not None and pending.target is not None
        self.gaji_pending = None
        if body.action == "no-hiki" and body.show is None and body.keys is None:
            self._apply(pending, rnd.turn)
            return
        try:
            if body.keys is not None:
                raise NotAHikiReply("a Hiki answer carries no stock key")
            card = HikiReply.parse(body.action).card
            if card is None:
                raise NotAHikiReply("no-hiki shows nothing")
        except NotAHikiReply as exc:
            if not exc.canonical:
                _fail(self._entry, ReasonId.NOT_CANONICAL, str(exc), author)
            _fail(
                self._entry,
                ReasonId.BAD_HIKI,
                f"a Gaji play must be answered with hiki CARD or no-hiki ({exc})",
                author,
            )
        if card.month != pending.target.month or self._show(body.show) != card.bit:
            _fail(self._entry, ReasonId.BAD_HIKI, "the Hiki card is not the fourth of that month", author)
        self._hiki.append(HikiAnswer(len(rnd.history), rnd.turn, pending, card))
        if not rnd.hands[author] & card.bit:
            rnd.reveal(author, card.bit)
        self.visitor.moves(author, (), HikiReply(card).format())

    def needs_hiki_answer(self, action: Play) -> bool:
        """A Gaji wildcard aimed at a month of three waits for the other seat's Hiki answer."""
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
        events = rnd.apply(action, seat)
        self._history_entries.append(self._entry)
        self._moved(seat, events)

    def _moved(self, seat: int | None, events: list[Event]) -> None:
        if events:
            self.visitor.moves(seat, tuple(events), "")
        rnd = self.round
        assert rnd is not None
        if rnd.over:
            self._enter(Stage.AUDIT)

    def _turn_over_draw(self) -> None:
        rnd, deal = self.round, self.deal
        assert rnd is not None and deal is not None and deal.plan is not None
        if not (self.key_out[0] and self.key_out[1]):
            return
        self.key_out = [False, False]
        card = deal.card_at(deal.plan.stock[rnd.stock_index])
        events = rnd.apply(Draw(card), CHANCE)
        self._history_entries.append(self._entry)
        self._moved(rnd.turn, events)

    # ------------------------------------------------------------------ the end

    def _on_goodbye(self, index: int, author: int, body: GoodbyeBody) -> None:
        """Rule on a ``goodbye`` outside the GOODBYE stage (it has joined the chain): the endings table
        (``endings.py``) decides, and only this applies the decision."""
        claim, reason = Claim.parse(body.reason)
        text = body.text
        owed = self._owed()
        finding = self.finding
        goodbye = endings.Goodbye(
            author,
            claim,
            reason,
            owed,
            caught_other=finding is not None and finding.blame == 1 - author,
            counted=self.match is not None and self.match.phase is MatchPhase.OVER,
            before_accept=self.stage in (Stage.MATCH, Stage.ACCEPT),
            accused_adjourned=not self.turn_limit and owed is not None and self._adjourned_by == owed,
        )
        rule = endings.rule_goodbye(goodbye)
        if rule.name is RuleName.COUNTED:
            outcome = self.match.outcome if self.match is not None else None
            self.finish(MatchEnd(Ending.FINISHED, author, text, outcome, owed))
            return
        if rule.name in (RuleName.ACCUSATION, RuleName.INTEGRITY_ACCUSATION):
            self.accusation = endings.Accusation(index, author, reason, text, body.evidence)
        loser = self._loser(rule, author, owed)
        if rule.name is RuleName.ACCUSATION and self.finding is None:
            loser = self._examine(author)
        elif rule.name is RuleName.INTEGRITY_ACCUSATION:
            what = f"seat {author} accused seat {1 - author} of {reason}, a fault in bytes that never joined"
            self.finding = Finding(
                index, ReasonId.BASELESS_ACCUSATION, what + " the chain: no evidence can exist", author
            )
        how = rule.ending
        if rule.name is RuleName.ADJOURN:
            self._adjourned_by = author
        if rule.loser is Loser.EVIDENCE and loser == author:
            how = Ending.FORFEIT
        if loser is None:
            outcome = None
        elif how is Ending.SILENCE:  # a claim the accused may refute: the match itself is left as it is
            outcome = self._claimed_outcome(loser)
        else:
            outcome = self._forfeit_outcome(loser)
        self.finish(MatchEnd(how, author, text, outcome, owed))

    def _loser(self, rule: endings.EndingRule, author: int, owed: int | None) -> int | None:
        if rule.loser is Loser.WRITER:
            return author
        if rule.loser in (Loser.OTHER, Loser.EVIDENCE):
            return 1 - author
        if rule.loser is Loser.OWED:
            return owed
        return None

    def _examine(self, accuser: int) -> int:
        """An accusation with evidence: the accused loses if the evidence shows it at fault, else the
        accuser (``baseless-accusation``). The finding is kept, so both copies name the same entry."""
        accusation = self.accusation
        assert accusation is not None
        finding = examine(self, accusation)
        if finding is None:
            what = f"seat {accuser} accused seat {1 - accuser} ({accusation.reason}), but the record"
            what += " and the accuser's evidence" if accusation.evidence is not None else " (with no evidence)"
            finding = Finding(accusation.entry, ReasonId.BASELESS_ACCUSATION, what + " show nothing wrong", accuser)
        self.finding = finding
        return 1 - accuser if finding.blame == 1 - accuser else accuser

    def _owed(self) -> int | None:
        try:
            return self.floor()
        except AssertionError:
            return None

    def _forfeit_outcome(self, loser: int) -> MatchOutcome | None:
        """The outcome when ``loser`` gives the match away (None before the guest accepted the rules)."""
        match = self.match
        if match is not None:
            return match.outcome if match.phase is MatchPhase.OVER else match.forfeit(loser)
        if self.rules is None or self.stage in (Stage.MATCH, Stage.ACCEPT):
            return None
        return Match(self.rules).forfeit(loser)

    def _claimed_outcome(self, loser: int) -> MatchOutcome:
        """The outcome a claim of ``loser``'s silence gives, without ending the match: the claim stays open."""
        points = self.match.points if self.match is not None else [0, 0]
        return MatchOutcome(1 - loser, (points[0], points[1]), Termination.FORFEIT)

    def finish(self, end: MatchEnd) -> None:
        """The match ends as ``end`` says. An ending the next entry may void (a claim of silence, an
        adjournment) only pauses it: the visitor hears ``match_paused`` now, and ``end_match`` only if the
        entries stop there (:meth:`close`), so a reader never tells a round twice."""
        self.end = end
        if end.refutable:
            self.visitor.match_paused(end)
            return
        self._tell_unfinished_round()
        self.visitor.end_match(end)

    def _tell_unfinished_round(self) -> None:
        """A round cut short: tell what is known of it (its table as dealt, its moves; no deal)."""
        rnd, deal = self.round, self.deal
        if rnd is None or deal is None or deal.plan is None or self.stage in (Stage.RESULT, Stage.OVER):
            return
        table = 0
        for position in deal.plan.table:
            try:
                table |= 1 << deal.card_at(position)
            except KeyError:
                continue
        played = PlayedRound(
            self.round_number, self.redeal, rnd.dealer, table, None, tuple(rnd.history), tuple(self._hiki)
        )
        self.visitor.round_played(played)

    def close(self, why: str = "the record stops here") -> MatchEnd:
        """The entries are over: end the match as it stands (unless it ended), and say how."""
        if self.end is None:
            how = Ending.FAILED if self.finding is not None else Ending.UNFINISHED
            text = self.finding.line() if self.finding is not None else why
            self.finish(MatchEnd(how, None, text, owed=self.next_writer()))
        elif self.end.refutable:  # the entries stop on a claim or an adjournment: that is how the match ended
            self._tell_unfinished_round()
            self.visitor.end_match(self.end)
        assert self.end is not None
        return self.end

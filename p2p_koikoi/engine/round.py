"""One round of Koi-Koi as a state machine: the deal comes in as data, actions go through a checked ``apply``.

The rules of the machine
------------------------
* A round starts from a deal (:meth:`Round.from_deal`) or from a partial deal
  where some cards are unknown (:meth:`Round.start` with ``hidden`` counts and
  ``None`` in the stock): that is how a peer, a bot or a replay that may not see
  every card holds the round. :meth:`Round.view` turns a full round into the
  partial one a seat may see.
* Phases, in order: ``EXCHANGE`` (rulebook only: the non-dealer may swap hands),
  ``HAND_YAKU`` (dealer, then non-dealer, claim Teshi/Kuttsuki or pass), then
  turns of ``PLAY`` (the seat plays a hand card) -> ``DRAW`` (chance turns over
  the stock card) -> ``DRAW_CHOICE`` (only if the drawn card matches two) ->
  ``DECISION`` (only on a rise, and only if the rules offer one) -> ``OVER``.
  A deal whose table must be dealt again is ``OVER`` at once with a redeal.
* :attr:`Round.to_act` is the seat to act, or :data:`CHANCE` for a draw.
* :meth:`Round.apply` checks every action completely before changing anything:
  an illegal action raises :class:`IllegalActionError` naming the rule broken
  and leaves the round as it was. It returns the events of the action.
* :meth:`Round.legal_actions` lists exactly the actions ``apply`` accepts, in
  one canonical form each (so a record has one spelling for a move).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from p2p_koikoi.engine.actions import (
    AnyAction,
    CallKoiKoi,
    CallStop,
    ChooseCapture,
    ClaimHandYaku,
    Draw,
    Event,
    EventKind,
    Exchange,
    PassHandYaku,
    Play,
)
from p2p_koikoi.engine.cards import ALL_CARDS, Card, cards_of, month_mask
from p2p_koikoi.engine.deal import HAND_SIZE, STOCK_SIZE, TABLE_SIZE, Deal
from p2p_koikoi.engine.errors import IllegalActionError, RuleId
from p2p_koikoi.engine.rules import (
    BothHandYaku,
    Exhausted,
    RuleSet,
    TableRedeal,
)
from p2p_koikoi.engine.scoring import RoundScore, Step, StepName, score_yaku
from p2p_koikoi.engine.yaku import Yaku, YakuScore, YakuTable, four_of_a_month, four_pairs, hand_yaku

__all__ = ["CHANCE", "OutcomeKind", "Phase", "Round", "RoundOutcome"]

CHANCE = -1
_LIGHTNING = Card.WILLOW_LIGHTNING


class Phase(enum.Enum):
    EXCHANGE = "exchange"
    HAND_YAKU = "hand-yaku"
    PLAY = "play"
    DRAW = "draw"
    DRAW_CHOICE = "draw-choice"
    DECISION = "decision"
    OVER = "over"


class OutcomeKind(enum.Enum):
    """How a round ended."""

    STOP = "stop"  # a player called Shobu
    AUTO_STOP = "auto-stop"  # a rise ended the round without a prompt
    HAND_YAKU = "hand-yaku"  # a dealt Teshi or Kuttsuki
    HAND_YAKU_DRAW = "hand-yaku-draw"  # both were dealt one and the rules call it a draw
    DRAWN = "drawn"  # hands ran out and nobody scores; the same dealer deals
    NO_GAME = "no-game"  # hands ran out and nobody scores; the deal passes
    LAST_CALLER = "last-caller"  # hands ran out; the last Koi-Koi caller scores
    DEALER_BONUS = "dealer-bonus"  # hands ran out; the dealer scores its bonus
    REDEAL = "redeal"  # the table was dealt again; not a round


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """The end of a round: who won (or None), with what, and who deals next."""

    kind: OutcomeKind
    winner: int | None
    yaku: tuple[YakuScore, ...]
    calls: tuple[int, int]
    next_dealer: int
    counts: bool
    bonus: int = 0

    def score(self, rules: RuleSet, loser_points: int | None = None) -> RoundScore | None:
        """The count for the winner, or None when nobody scores."""
        if self.winner is None:
            return None
        if self.kind is OutcomeKind.DEALER_BONUS:
            payment = self.bonus if loser_points is None else min(self.bonus, loser_points)
            steps = (
                Step(StepName.BASE, self.bonus, "dealer bonus when nobody scores"),
                Step(StepName.PAYMENT, payment, "paid by the other player"),
            )
            return RoundScore(yaku=(), steps=steps, base=self.bonus, total=self.bonus, payment=payment)
        loser = 1 - self.winner
        return score_yaku(
            self.yaku,
            rules,
            winner_calls=self.calls[self.winner],
            loser_calls=self.calls[loser],
            loser_points=loser_points,
        )


def _table_needs_redeal(table: int, mode: TableRedeal) -> bool:
    if mode is TableRedeal.NONE:
        return False
    if four_of_a_month(table):
        return True
    return mode is TableRedeal.FOUR_OR_PAIRS and four_pairs(table)


_CARDS: tuple[Card, ...] = tuple(Card)
_MONTH_OF: tuple[int, ...] = tuple(month_mask(c >> 2) for c in range(48))


def _names(cards: int) -> str:
    return ", ".join(c.display_name for c in cards_of(cards))


class Round:
    """A round in progress. Mutable; :meth:`copy` for search, :meth:`view` for a seat."""

    __slots__ = (
        "_baseline",
        "_baseline_bits",
        "_declared",
        "_gaji",
        "_pending",
        "_public_hand",
        "_seen",
        "_stock",
        "_willow_played",
        "_yaku_table",
        "calls",
        "captures",
        "dealer",
        "hands",
        "hidden",
        "history",
        "last_caller",
        "outcome",
        "phase",
        "rules",
        "stock_index",
        "table",
        "to_act",
        "turn",
    )

    rules: RuleSet
    dealer: int
    hands: list[int]
    hidden: list[int]
    table: int
    captures: list[int]
    stock_index: int
    phase: Phase
    to_act: int
    turn: int
    calls: list[int]
    last_caller: int | None
    outcome: RoundOutcome | None
    history: list[tuple[int, AnyAction]]
    _stock: list[Card | None]
    _seen: int
    _public_hand: list[int]
    _baseline: list[int]
    _baseline_bits: list[int]
    _declared: list[YakuScore | bool | None]
    _pending: Card | None
    _gaji: tuple[int, int] | None
    _willow_played: list[bool]
    _yaku_table: YakuTable

    # -- construction ----------------------------------------------------------

    @classmethod
    def from_deal(cls, rules: RuleSet, dealer: int, deal: Deal) -> Round:
        """A round with every card known: practice, tests, replays after the audit."""
        return cls.start(rules, dealer, deal.hands, deal.table, deal.stock)

    @classmethod
    def start(
        cls,
        rules: RuleSet,
        dealer: int,
        hands: tuple[int, int],
        table: int,
        stock: Sequence[Card | None],
        hidden: tuple[int, int] = (0, 0),
        yaku_table: YakuTable | None = None,
    ) -> Round:
        """A round from a deal in which ``hidden[seat]`` hand cards and ``None`` stock cards are unknown."""
        if dealer not in (0, 1):
            raise ValueError("the dealer is seat 0 or 1")
        for seat in (0, 1):
            if hands[seat].bit_count() + hidden[seat] != HAND_SIZE:
                raise ValueError(f"hand {seat} must hold {HAND_SIZE} cards")
        if table.bit_count() != TABLE_SIZE or len(stock) != STOCK_SIZE:
            raise ValueError(f"the table holds {TABLE_SIZE} cards and the stock {STOCK_SIZE}")
        known_stock = [c for c in stock if c is not None]
        seen = hands[0] | hands[1] | table
        for card in known_stock:
            seen |= 1 << card
        if seen.bit_count() != 2 * HAND_SIZE - sum(hidden) + TABLE_SIZE + len(known_stock):
            raise ValueError("a card is dealt twice")
        self = cls.__new__(cls)
        self.rules = rules
        self._yaku_table = yaku_table if yaku_table is not None else YakuTable(rules)
        self.dealer = dealer
        self.hands = [hands[0], hands[1]]
        self.hidden = [hidden[0], hidden[1]]
        self.table = table
        self.captures = [0, 0]
        self._stock = list(stock)
        self.stock_index = 0
        self._seen = seen
        self._public_hand = [0, 0]
        self.calls = [0, 0]
        self.last_caller = None
        self._baseline = [0, 0]
        self._baseline_bits = [0, 0]
        self._declared = [False, False]
        self._pending = None
        self._gaji = None
        self._willow_played = [False, False]
        self.outcome = None
        self.history = []
        self.turn = dealer
        if _table_needs_redeal(table, rules.table_redeal):
            self._finish(OutcomeKind.REDEAL, None, next_dealer=dealer, counts=False)
        elif rules.hand_exchange:
            self.phase, self.to_act = Phase.EXCHANGE, 1 - dealer
        else:
            self._after_exchange()
        return self

    def _after_exchange(self) -> None:
        if self.rules.hand_yaku:
            self.phase, self.to_act = Phase.HAND_YAKU, self.dealer
        else:
            self.phase, self.to_act, self.turn = Phase.PLAY, self.dealer, self.dealer

    def copy(self) -> Round:
        """An independent copy (the lists are copied; everything else is immutable and shared).

        Written out slot by slot because the search copies a round for every
        playout: a loop over ``__slots__`` with ``getattr`` costs twice as much.
        A test checks that every slot is here.
        """
        other = Round.__new__(Round)
        other.rules = self.rules
        other._yaku_table = self._yaku_table
        other.dealer = self.dealer
        other.hands = self.hands.copy()
        other.hidden = self.hidden.copy()
        other.table = self.table
        other.captures = self.captures.copy()
        other._stock = self._stock.copy()
        other.stock_index = self.stock_index
        other._seen = self._seen
        other._public_hand = self._public_hand.copy()
        other.calls = self.calls.copy()
        other.last_caller = self.last_caller
        other._baseline = self._baseline.copy()
        other._baseline_bits = self._baseline_bits.copy()
        other._declared = self._declared.copy()
        other._pending = self._pending
        other._gaji = self._gaji
        other._willow_played = self._willow_played.copy()
        other.outcome = self.outcome
        other.history = self.history.copy()
        other.turn = self.turn
        other.phase = self.phase
        other.to_act = self.to_act
        return other

    def view(self, seat: int) -> Round:
        """What ``seat`` may see: its own hand, the public cards, and counts of the rest.

        Before the rulebook's hand exchange nobody has looked at a hand yet, so
        the view hides both; the seat learns its hand afterwards (:meth:`reveal`).
        """
        v = self.copy()
        other = 1 - seat
        known_other = self.hands[other] & self._public_hand[other]
        v.hands[other] = known_other
        v.hidden[other] = self.hand_size(other) - known_other.bit_count()
        mine = self.hands[seat]
        if self.phase is Phase.EXCHANGE:
            v.hands[seat], v.hidden[seat], mine = 0, self.hand_size(seat), 0
        v._stock = [None] * STOCK_SIZE
        v._seen = mine | known_other | self.table | self.captures[0] | self.captures[1]
        if self._pending is not None:
            v._seen |= self._pending.bit
        return v

    def reveal(self, seat: int, cards: int) -> None:
        """Learn hidden cards of ``seat``'s hand (the deal protocol unlocked them)."""
        if cards & self._seen:
            raise IllegalActionError(RuleId.CARD_ALREADY_SEEN, "a revealed hand card was already seen elsewhere")
        if cards.bit_count() > self.hidden[seat]:
            raise IllegalActionError(RuleId.TOO_MANY_CARDS, f"player {seat} has only {self.hidden[seat]} hidden cards")
        self.hands[seat] |= cards
        self.hidden[seat] -= cards.bit_count()
        self._seen |= cards

    # -- queries -----------------------------------------------------------------

    def hand_size(self, seat: int) -> int:
        return self.hands[seat].bit_count() + self.hidden[seat]

    @property
    def stock_left(self) -> int:
        return STOCK_SIZE - self.stock_index

    @property
    def unseen(self) -> int:
        """Cards whose place this state does not know (none, with full information)."""
        return ALL_CARDS & ~self._seen

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def pending_draw(self) -> Card | None:
        """The drawn card waiting for a choice of capture, in ``DRAW_CHOICE``."""
        return self._pending

    def yaku(self, seat: int) -> list[YakuScore]:
        """The yaku ``seat`` holds now, each with its points and cards."""
        return self._yaku_table.score(self.captures[seat])

    def total(self, seat: int) -> int:
        return self._yaku_table.evaluate(self.captures[seat])[0]

    def public_state(self) -> tuple[object, ...]:
        """Everything both seats see, as a tuple: what peers hash to detect a desync."""
        return (
            self.phase.value,
            self.to_act,
            self.dealer,
            self.table,
            self.captures[0],
            self.captures[1],
            self.hand_size(0),
            self.hand_size(1),
            self.stock_index,
            self.calls[0],
            self.calls[1],
        )

    # -- legal actions -------------------------------------------------------------

    def legal_actions(self) -> list[AnyAction]:
        """Every action :meth:`apply` accepts now, one canonical spelling each."""
        phase = self.phase
        seat = self.to_act
        if phase is Phase.PLAY:
            return self._legal_plays(seat)
        if phase is Phase.DRAW:
            top = self._stock[self.stock_index]
            if top is not None:
                return [Draw(top)]
            return [Draw(c) for c in cards_of(self.unseen)]
        if phase is Phase.DRAW_CHOICE:
            assert self._pending is not None
            return [ChooseCapture(t) for t in cards_of(self.table & _MONTH_OF[self._pending])]
        if phase is Phase.DECISION:
            return [CallKoiKoi(), CallStop()]
        if phase is Phase.HAND_YAKU:
            found = hand_yaku(self.hands[seat]) if self.hidden[seat] == 0 else None
            if found is not None:
                return [ClaimHandYaku(found.yaku, found.cards)]
            return [PassHandYaku()]
        if phase is Phase.EXCHANGE:
            return [Exchange(False), Exchange(True)]
        return []

    def _legal_plays(self, seat: int) -> list[AnyAction]:
        candidates = self.hands[seat]
        if self.hidden[seat]:
            candidates |= self.unseen
        table = self.table
        out: list[AnyAction] = []
        gaji = self.rules.gaji
        for card in cards_of(candidates):
            matches = table & _MONTH_OF[card]
            if matches.bit_count() == 2:
                out.extend(Play(card, t) for t in cards_of(matches))
            else:
                out.append(Play(card))
            if gaji and card is _LIGHTNING:
                out.extend(Play(card, t) for t in cards_of(table & ~matches) if self._gaji_refusal(seat, t) is None)
        return out

    def _gaji_refusal(self, seat: int, target: Card) -> tuple[RuleId, str] | None:
        """Why the Gaji cannot take ``target`` as a wildcard now, or None if it can."""
        if self._willow_played[1 - seat]:
            return (
                RuleId.GAJI_AFTER_NOVEMBER,
                "the Gaji is no wildcard once the other player has played a November card",
            )
        tm = _MONTH_OF[target]
        if (self.table & tm).bit_count() == 3 and self.hands[1 - seat] & tm:
            return RuleId.GAJI_BLOCKED_BY_HIKI, "the other player holds the fourth card of that month (Hiki)"
        return None

    # -- apply: each action is checked in full, then played by a core step ---------------

    def apply(self, action: AnyAction, seat: int | None = None) -> list[Event]:
        """Check ``action`` by ``seat`` (default: whoever is to act) and play it.

        Raises :class:`IllegalActionError` and changes nothing if it is not legal.
        """
        if seat is None:
            seat = self.to_act
        phase = self.phase
        if phase is Phase.OVER:
            raise IllegalActionError(RuleId.ROUND_OVER, "the round is over")
        if seat != self.to_act:
            who = "chance" if self.to_act == CHANCE else f"player {self.to_act}"
            raise IllegalActionError(RuleId.NOT_YOUR_TURN, f"it is {who}'s move, not player {seat}'s")
        events: list[Event] = []
        if isinstance(action, Play) and phase is Phase.PLAY:
            taken, wildcard = self._check_play(seat, action.card, action.target)
            self._do_play(seat, action.card, taken, wildcard, events, action)
        elif isinstance(action, Draw) and phase is Phase.DRAW:
            self._check_draw(action.card)
            self._do_draw(action.card, events)
        elif isinstance(action, ChooseCapture) and phase is Phase.DRAW_CHOICE:
            self._check_choice(action.target)
            self._do_choose(action.target, events)
        elif isinstance(action, CallKoiKoi | CallStop) and phase is Phase.DECISION:
            self._do_decide(isinstance(action, CallKoiKoi), events)
        elif isinstance(action, ClaimHandYaku | PassHandYaku) and phase is Phase.HAND_YAKU:
            events = self._declare(seat, action)
        elif isinstance(action, Exchange) and phase is Phase.EXCHANGE:
            events = self._exchange(seat, action.swap)
        else:
            raise IllegalActionError(RuleId.WRONG_PHASE, f"{action} is not a move of the {phase.value} phase")
        self.history.append((seat, action))
        return events

    def _holds(self, seat: int, card: Card) -> bool:
        bit = 1 << card
        return bool(self.hands[seat] & bit) or (self.hidden[seat] > 0 and not self._seen & bit)

    def _check_play(self, seat: int, card: Card, target: Card | None) -> tuple[int, bool]:
        """The table cards ``card`` takes, and whether the Gaji takes one as a wildcard; or raise."""
        if not self._holds(seat, card):
            raise IllegalActionError(RuleId.CARD_NOT_IN_HAND, f"{card.id} is not in player {seat}'s hand")
        table = self.table
        matches = table & _MONTH_OF[card]
        if target is not None and not matches & (1 << target):
            if not (self.rules.gaji and card is _LIGHTNING):
                raise IllegalActionError(
                    RuleId.TARGET_DOES_NOT_MATCH, f"{target.id} is not a table card of {card.id}'s month"
                )
            if not table & (1 << target):
                raise IllegalActionError(RuleId.TARGET_NOT_ON_TABLE, f"{target.id} is not on the table")
            refusal = self._gaji_refusal(seat, target)
            if refusal is not None:
                raise IllegalActionError(*refusal)
            return 1 << target, True
        if matches.bit_count() == 2:
            if target is None:
                raise IllegalActionError(
                    RuleId.CHOOSE_CAPTURE, f"{card.id} matches two table cards: name the one to take"
                )
            return 1 << target, False
        if target is not None:
            raise IllegalActionError(
                RuleId.NO_CHOICE, f"{card.id} has no choice to make: play it without naming a table card"
            )
        return matches, False  # none, one, or all three

    def _do_play(
        self, seat: int, card: int, taken: int, wildcard: bool, events: list[Event] | None, played: Play | None = None
    ) -> None:
        """``played`` is the action, for its event (the playouts pass none: they keep no events)."""
        bit = 1 << card
        if self.hands[seat] & bit:
            self.hands[seat] ^= bit
        else:
            self.hidden[seat] -= 1
            self._seen |= bit
        if card >> 2 == 10:
            self._willow_played[seat] = True
        if wildcard:
            self._gaji = (seat, (taken.bit_length() - 1) >> 2)
        if taken:
            self.table ^= taken
            self.captures[seat] |= taken | bit
        else:
            self.table |= bit
        self.phase = Phase.DRAW
        self.to_act = CHANCE
        if events is not None:
            c = _CARDS[card]
            if taken:
                text = f"plays {c.display_name}, takes {_names(taken)}" + (" with the Gaji" if wildcard else "")
            else:
                text = f"plays {c.display_name} to the table"
            events.append(Event(EventKind.PLAY, seat, c, taken, text=text, action=played or Play(c)))

    def _check_draw(self, card: Card) -> None:
        top = self._stock[self.stock_index]
        if top is not None:
            if card != top:
                raise IllegalActionError(RuleId.WRONG_DRAW, f"the top of the stock is {top.id}, not {card.id}")
        elif self._seen & (1 << card):
            raise IllegalActionError(RuleId.CARD_ALREADY_SEEN, f"{card.id} cannot be in the stock: it was seen already")

    def _do_draw(self, card: int, events: list[Event] | None) -> None:
        seat = self.turn
        bit = 1 << card
        self.stock_index += 1
        self._seen |= bit
        matches = self.table & _MONTH_OF[card]
        n = matches.bit_count()
        if n == 2:
            self._pending = _CARDS[card]
            self.phase = Phase.DRAW_CHOICE
            self.to_act = seat
            if events is not None:
                text = f"draws {_CARDS[card].display_name}, which matches two table cards"
                events.append(Event(EventKind.DRAW, seat, _CARDS[card], 0, text=text, choice=True))
            return
        if n:
            self.table ^= matches
            self.captures[seat] |= matches | bit
        else:
            self.table |= bit
        if events is not None:
            c = _CARDS[card]
            text = f"draws {c.display_name}, takes {_names(matches)}" if n else f"draws {c.display_name} to the table"
            events.append(Event(EventKind.DRAW, seat, c, matches, text=text))
        self._end_turn(seat, events)

    def _check_choice(self, target: Card) -> None:
        card = self._pending
        assert card is not None
        if not self.table & _MONTH_OF[card] & (1 << target):
            raise IllegalActionError(
                RuleId.TARGET_DOES_NOT_MATCH, f"{target.id} is not a table card of {card.id}'s month"
            )

    def _do_choose(self, target: int, events: list[Event] | None) -> None:
        card = self._pending
        assert card is not None
        seat = self.turn
        self._pending = None
        self.table ^= 1 << target
        self.captures[seat] |= (1 << target) | (1 << card)
        if events is not None:
            text = f"takes {_CARDS[target].display_name} with {card.display_name}"
            events.append(
                Event(EventKind.CAPTURE, seat, card, 1 << target, text=text, action=ChooseCapture(_CARDS[target]))
            )
        self._end_turn(seat, events)

    def _end_turn(self, seat: int, events: list[Event] | None) -> None:
        """After the stock card: a rise offers a decision, ends the round, or play passes on."""
        table = self._yaku_table
        total, bits = table.evaluate(self.captures[seat])
        rose = total > self._baseline[seat] if table.rise else bool(bits & ~self._baseline_bits[seat])
        if rose:
            if events is not None:
                events.append(
                    Event(
                        EventKind.YAKU, seat, yaku=tuple(self.yaku(seat)), text=f"has yaku worth {total}", count=total
                    )
                )
            if table.stop_after_call and (self.calls[0] or self.calls[1]):
                self._finish(OutcomeKind.AUTO_STOP, seat, next_dealer=seat, counts=True)
                self._over_event("the first yaku after a Koi-Koi ends the round", events)
                return
            if not (self.hands[seat] or self.hidden[seat]) and (
                table.stop_on_own_empty or not (self.hands[1 - seat] or self.hidden[1 - seat])
            ):
                self._finish(OutcomeKind.AUTO_STOP, seat, next_dealer=seat, counts=True)
                self._over_event("a yaku on the last card in hand ends the round: no cards are left to play on", events)
                return
            self.phase = Phase.DECISION
            self.to_act = seat
            return
        self._next_turn(seat, events)

    def _next_turn(self, seat: int, events: list[Event] | None) -> None:
        other = 1 - seat
        if self.hands[other] or self.hidden[other]:
            self.phase, self.to_act, self.turn = Phase.PLAY, other, other
        elif self.hands[seat] or self.hidden[seat]:
            self.phase, self.to_act, self.turn = Phase.PLAY, seat, seat
        else:
            self._exhausted(events)

    def _exhausted(self, events: list[Event] | None) -> None:
        mode = self.rules.exhausted
        dealer = self.dealer
        if mode is Exhausted.LAST_CALLER and self.last_caller is not None:
            caller = self.last_caller
            self._finish(OutcomeKind.LAST_CALLER, caller, next_dealer=caller, counts=True)
            self._over_event("the hands ran out: the last Koi-Koi caller scores", events)
        elif mode is Exhausted.DEALER_BONUS:
            self._finish(OutcomeKind.DEALER_BONUS, dealer, next_dealer=dealer, counts=True)
            self._over_event("the hands ran out: the dealer scores its bonus", events)
        elif mode is Exhausted.NO_GAME:
            self._finish(OutcomeKind.NO_GAME, None, next_dealer=1 - dealer, counts=True)
            self._over_event("the hands ran out: no game, the deal passes", events)
        else:
            self._finish(OutcomeKind.DRAWN, None, next_dealer=dealer, counts=True)
            self._over_event("the hands ran out: a drawn round", events)

    def _do_decide(self, koikoi: bool, events: list[Event] | None) -> None:
        seat = self.to_act
        if not koikoi:
            self._finish(OutcomeKind.STOP, seat, next_dealer=seat, counts=True)
            if events is not None:
                events.append(Event(EventKind.STOP, seat, text="calls Shōbu", action=CallStop()))
            self._over_event("Shōbu", events)
            return
        total, bits = self._yaku_table.evaluate(self.captures[seat])
        self.calls[seat] += 1
        self.last_caller = seat
        self._baseline[seat] = total
        self._baseline_bits[seat] = bits
        if events is not None:
            events.append(
                Event(
                    EventKind.KOIKOI,
                    seat,
                    text=f"calls Koi-Koi ({self.calls[seat]})",
                    action=CallKoiKoi(),
                    count=self.calls[seat],
                )
            )
        self._next_turn(seat, events)

    def _declare(self, seat: int, action: ClaimHandYaku | PassHandYaku) -> list[Event]:
        if isinstance(action, PassHandYaku):
            if self.hidden[seat] == 0 and hand_yaku(self.hands[seat]) is not None:
                raise IllegalActionError(
                    RuleId.HAND_YAKU_NOT_CLAIMED, f"player {seat} holds a hand yaku and must claim it"
                )
            declared: YakuScore | None = None
            events = [Event(EventKind.HAND_YAKU, seat, text="has no hand yaku", action=action)]
        else:
            cards = action.cards
            for card in cards_of(cards):
                if not self._holds(seat, card):
                    raise IllegalActionError(RuleId.CARD_NOT_IN_HAND, f"{card.id} is not in player {seat}'s hand")
            if action.yaku is Yaku.TESHI:
                valid = cards.bit_count() == 4 and four_of_a_month(cards) == cards
            elif action.yaku is Yaku.KUTTSUKI:
                valid = four_pairs(cards) and not four_of_a_month(cards)
            else:
                valid = False
            if not valid:
                raise IllegalActionError(RuleId.FALSE_HAND_YAKU, f"those cards do not make {action.yaku.value}")
            found = hand_yaku(self.hands[seat] | cards) if self.hidden[seat] == 0 else None
            if found is not None and found.yaku is not action.yaku:
                raise IllegalActionError(
                    RuleId.FALSE_HAND_YAKU, f"that hand makes {found.yaku.value}, not {action.yaku.value}"
                )
            for card in cards_of(cards & ~self.hands[seat]):
                self.hidden[seat] -= 1
                self.hands[seat] |= 1 << card
                self._seen |= 1 << card
            self._public_hand[seat] |= cards
            declared = YakuScore(action.yaku, 6, cards)
            events = [
                Event(
                    EventKind.HAND_YAKU, seat, yaku=(declared,), text=f"shows {action.yaku.display_name}", action=action
                )
            ]
        self._declared[seat] = declared
        if seat == self.dealer:
            self.to_act = 1 - seat
            return events
        dealer_claim = self._declared[self.dealer]
        mine = declared
        if isinstance(dealer_claim, YakuScore) and mine is not None:
            if self.rules.both_hand_yaku is BothHandYaku.DEALER:
                self._finish_hand_yaku(self.dealer, dealer_claim)
            else:
                self._finish(OutcomeKind.HAND_YAKU_DRAW, None, next_dealer=self.dealer, counts=True)
        elif isinstance(dealer_claim, YakuScore):
            self._finish_hand_yaku(self.dealer, dealer_claim)
        elif mine is not None:
            self._finish_hand_yaku(seat, mine)
        else:
            self.phase, self.to_act, self.turn = Phase.PLAY, self.dealer, self.dealer
            return events
        self._over_event("a dealt hand yaku", events)
        return events

    def _finish_hand_yaku(self, seat: int, claim: YakuScore) -> None:
        self.outcome = RoundOutcome(OutcomeKind.HAND_YAKU, seat, (claim,), (0, 0), next_dealer=seat, counts=True)
        self.phase, self.to_act = Phase.OVER, CHANCE

    def _exchange(self, seat: int, swap: bool) -> list[Event]:
        if swap:
            self.hands.reverse()
            self.hidden.reverse()
        self._after_exchange()
        text = "exchanges hands with the dealer" if swap else "keeps the hands"
        return [Event(EventKind.EXCHANGE, seat, text=text, action=Exchange(swap))]

    def _finish(self, kind: OutcomeKind, winner: int | None, *, next_dealer: int, counts: bool) -> None:
        if self._gaji is not None and kind is not OutcomeKind.REDEAL:
            holder, month = self._gaji
            left = self.table & month_mask(month)
            self.table ^= left
            self.captures[holder] |= left
        yaku: tuple[YakuScore, ...] = ()
        if winner is not None and kind is not OutcomeKind.DEALER_BONUS:
            yaku = tuple(self.yaku(winner))
        bonus = self.rules.dealer_bonus if kind is OutcomeKind.DEALER_BONUS else 0
        self.outcome = RoundOutcome(
            kind, winner, yaku, (self.calls[0], self.calls[1]), next_dealer=next_dealer, counts=counts, bonus=bonus
        )
        self.phase, self.to_act = Phase.OVER, CHANCE

    def _over_event(self, why: str, events: list[Event] | None) -> None:
        if events is None:
            return
        outcome = self.outcome
        assert outcome is not None
        seat = outcome.winner if outcome.winner is not None else CHANCE
        events.append(Event(EventKind.ROUND_OVER, seat, yaku=outcome.yaku, text=why))

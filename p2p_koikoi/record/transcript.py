"""The readable transcript of a match (``koikoi-transcript/1``), and reading one back with every check.

A transcript is to a record what PGN is to a signed chess server log: the moves
and the cards in words, easy to read, diff and exchange, with no signatures.
``protocol/TRANSCRIPT.md`` is its specification; :mod:`p2p_koikoi.record.export`
writes one. This module holds what both directions share (the shapes of rules,
deals, turns and results) and :func:`read_transcript`, which replays a
transcript through the engine, checking every move's legality and every count,
and tells the match to a :class:`~p2p_koikoi.referee.events.MatchVisitor`
exactly as the referee tells a record.

Errors are of two kinds: a file that is not a transcript at all (bad JSON, a
missing field, a word that is no card) raises :class:`TranscriptError`; a
transcript whose match breaks the rules, or whose stated result differs from
the recomputed one, raises :class:`~p2p_koikoi.referee.findings.Rejected` naming
the round and turn.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NoReturn

from p2p_koikoi.engine import (
    CHANCE,
    AnyAction,
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
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
    PassHandYaku,
    Phase,
    Play,
    Round,
    RoundResult,
    RuleSet,
    cards_of,
    first_dealer_by_draw,
    preset,
)
from p2p_koikoi.engine.actions import TAKING
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.engine.rules import FirstDealer
from p2p_koikoi.engine.yaku import Yaku
from p2p_koikoi.referee.events import (
    ChoiceMethod,
    Ending,
    FirstDealerChoice,
    HikiAnswer,
    MatchEnd,
    MatchInfo,
    MatchVisitor,
    PlayedRound,
)
from p2p_koikoi.referee.findings import Finding, Rejected
from p2p_koikoi.wire.reasons import ReasonCode, ReasonId

__all__ = [
    "FORMAT",
    "TranscriptError",
    "TranscriptFault",
    "deal_json",
    "read_transcript",
    "replay_round",
    "result_json",
    "round_json",
    "rules_json",
]

FORMAT = "koikoi-transcript/1"


class TranscriptFault(enum.StrEnum):
    """The reason ids only a transcript can earn (TRANSCRIPT.md section 3); the ids it shares with a record
    (``wrong-round``, ``bad-hiki``, ``result-mismatch``, ``illegal-move:RULE``...) are :class:`ReasonId`'s."""

    WRONG_DEALER = "wrong-dealer"
    BAD_REDEAL = "bad-redeal"
    UNFINISHED_ROUND = "unfinished-round"
    UNKNOWN_DEAL = "unknown-deal"
    CHOOSE_CAPTURE = "choose-capture"
    BAD_CALL = "bad-call"
    PLAY_CAPTURES = "play-captures"
    DRAW_CAPTURES = "draw-captures"
    GAJI_CAPTURES = "gaji-captures"
    OUTCOME_MISMATCH = "outcome-mismatch"


_LIGHTNING = Card.WILLOW_LIGHTNING
_QUIT = "quit"  # transcripts of protocol version 1 call a forfeit so
_ENDINGS = (*(str(e) for e in Ending), _QUIT)


class TranscriptError(Exception):
    """The input is not a transcript (as opposed to a transcript of a match that breaks the rules)."""


# ---------------------------------------------------------------- writing shapes


def ids(mask: int) -> list[str]:
    return [card.id for card in cards_of(mask)]


def rules_json(rules: RuleSet) -> dict[str, Any]:
    """The preset and the options that differ from it, as ``koikoi rules`` names them."""
    return {"preset": rules.preset, "set": {name: mine for name, mine, _ in rules.differences(preset(rules.preset))}}


def deal_json(deal: Deal) -> dict[str, Any]:
    return {
        "hands": [ids(deal.hands[0]), ids(deal.hands[1])],
        "table": ids(deal.table),
        "stock": [c.id for c in deal.stock],
    }


def result_json(result: RoundResult) -> dict[str, Any]:
    score, outcome = result.score, result.outcome
    return {
        "outcome": outcome.kind.value,
        "winner": outcome.winner,
        "yaku": [{"name": y.yaku.value, "points": y.points} for y in score.yaku] if score is not None else [],
        "base": score.base if score is not None else 0,
        "total": score.total if score is not None else 0,
        "payment": score.payment if score is not None else 0,
        "points": list(result.points),
    }


def start_round(rules: RuleSet, played: PlayedRound) -> Round:
    """The round at its deal: every card known once the deal is, else the table alone."""
    if played.deal is not None:
        return Round.from_deal(rules, played.dealer, played.deal)
    return Round.start(rules, played.dealer, (0, 0), played.table, [None] * 24, hidden=(8, 8))


def replay_round(rules: RuleSet, played: PlayedRound) -> list[tuple[int, AnyAction, list[Event], Round]]:
    """Every action of a round with its events and a copy of the round after it (for exports and replays).

    A voided Gaji play is not an action; in a round whose deal is unknown, the
    Hiki card it revealed becomes known in the answering hand, as it did in play.
    """
    rnd = start_round(rules, played)
    hiki = {answer.at: answer for answer in played.hiki}
    out = []
    for index, (seat, action) in enumerate(played.actions):
        answer = hiki.get(index)
        if answer is not None and played.deal is None and not rnd.hands[1 - answer.seat] & answer.card.bit:
            rnd.reveal(1 - answer.seat, answer.card.bit)
        events = rnd.apply(action, seat)
        out.append((seat, action, events, rnd.copy()))
    return out


def round_json(rules: RuleSet, played: PlayedRound, redeals: Sequence[Deal] = ()) -> dict[str, Any]:
    """One round of a transcript, from a round as a reader told it."""
    out: dict[str, Any] = {"number": played.number, "dealer": played.dealer}
    if redeals:
        out["redeals"] = [deal_json(deal) for deal in redeals]
    if played.deal is not None:
        out.update(deal_json(played.deal))
    else:
        out.update({"hands": None, "table": ids(played.table), "stock": None})
    turns: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    hiki: dict[int, list[dict[str, str]]] = {}
    for answer in played.hiki:
        assert answer.play.target is not None
        hiki.setdefault(answer.at, []).append({"take": answer.play.target.id, "card": answer.card.id})
    taken = [0, 0]
    final: Round | None = None
    for index, (seat, action, events, after) in enumerate(replay_round(rules, played)):
        final = after
        for event in events:
            if event.kind in TAKING and event.captured and event.card is not None:
                taken[event.seat] |= event.captured | event.card.bit
        if isinstance(action, Exchange):
            out["exchange"] = action.swap
        elif isinstance(action, ClaimHandYaku):
            claims.append({"seat": seat, "yaku": action.yaku.value, "cards": ids(action.cards)})
        elif isinstance(action, Play):
            turn: dict[str, Any] = {"seat": seat, "play": action.card.id, "play_captures": ids(events[0].captured)}
            turn.update({"draw": None, "draw_captures": [], "call": None})
            if index in hiki:
                turn["hiki"] = hiki[index]
            turns.append(turn)
        elif isinstance(action, Draw) and turns:
            turns[-1]["draw"] = action.card.id
            turns[-1]["draw_captures"] = ids(events[0].captured)
        elif isinstance(action, ChooseCapture) and turns:
            turns[-1]["draw_captures"] = [action.target.id]
        elif isinstance(action, CallKoiKoi | CallStop) and turns:
            turns[-1]["call"] = "koikoi" if isinstance(action, CallKoiKoi) else "stop"
    if claims:
        out["hand_yaku"] = claims
    if final is not None and final.outcome is not None and final.outcome.kind is OutcomeKind.AUTO_STOP and turns:
        turns[-1]["call"] = "stop"
    out["turns"] = turns
    if final is not None and final.over:
        for seat in (0, 1):
            swept = final.captures[seat] & ~taken[seat]
            if swept:
                out["gaji"] = {"seat": seat, "cards": ids(swept)}
    if played.result is not None:
        out["result"] = result_json(played.result)
    else:
        out["unfinished"] = True
    return out


# ---------------------------------------------------------------- reading


def _bad(where: str, text: str) -> NoReturn:
    raise TranscriptError(f"{where}: {text}")


def _field(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        _bad(where, f"the field {key!r} is missing")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        _bad(where, f"the field {key!r} has the wrong type")
    return value


def _card(text: Any, where: str) -> Card:
    if not isinstance(text, str):
        _bad(where, f"{text!r} is not a card id")
    try:
        card = Card.parse(text)
    except EngineError as exc:
        _bad(where, str(exc))
    if card.id != text:
        _bad(where, f"{text!r} is not a canonical card id (it is {card.id})")
    return card


def _cards(items: Any, where: str) -> list[Card]:
    if not isinstance(items, list):
        _bad(where, "a list of card ids is expected")
    cards = [_card(item, where) for item in items]
    if len(set(cards)) != len(cards):
        _bad(where, "a card is named twice")
    return cards


def _mask(cards: Sequence[Card]) -> int:
    return sum(card.bit for card in cards)


def _rules(obj: Any) -> RuleSet:
    if not isinstance(obj, dict):
        _bad("rules", "an object with a preset and its changed options is expected")
    name = _field(obj, "preset", str, "rules")
    changed = obj.get("set", {})
    if not isinstance(changed, dict) or not all(isinstance(v, str | int) for v in changed.values()):
        _bad("rules", "'set' maps option names to values")
    try:
        return preset(name).with_overrides(f"{k}={v}" for k, v in changed.items())
    except EngineError as exc:
        _bad("rules", str(exc))


def _deal(obj: dict[str, Any], where: str) -> Deal | None:
    """The deal of a round, or None when the transcript does not know it (a round cut short)."""
    if obj.get("hands") is None and obj.get("stock") is None:
        return None
    hands = _field(obj, "hands", list, where)
    if len(hands) != 2:
        _bad(where, "two hands are expected")
    hand0, hand1 = (_cards(hand, f"{where}, hand") for hand in hands)
    table = _cards(_field(obj, "table", list, where), f"{where}, table")
    stock = _cards(_field(obj, "stock", list, where), f"{where}, stock")
    if (len(hand0), len(hand1), len(table), len(stock)) != (8, 8, 8, 24):
        _bad(where, "a deal is two hands of 8, a table of 8 and a stock of 24")
    if len({*hand0, *hand1, *table, *stock}) != 48:
        _bad(where, "a card is dealt twice")
    return Deal((_mask(hand0), _mask(hand1)), _mask(table), tuple(stock))


class _Reader:
    """Replays a transcript's rounds through a :class:`Match`, telling each one to the visitor."""

    def __init__(self, data: dict[str, Any], visitor: MatchVisitor) -> None:
        self.data = data
        self.visitor = visitor
        self.rules = _rules(data.get("rules"))
        self.match = Match(self.rules)

    def reject(self, where: str, reason: str, text: str) -> NoReturn:
        raise Rejected(Finding(None, reason, text, None, where=where))

    def run(self) -> None:
        data = self.data
        players = _field(data, "players", list, "players")
        if len(players) != 2 or not all(isinstance(p, dict) for p in players):
            _bad("players", "two players are expected")
        keys = tuple(_key(p.get("key")) for p in players)
        names = tuple(str(p.get("name", f"seat {s}")) for s, p in enumerate(players))
        match_id = _key(data.get("match_id"))
        self.visitor.begin_match(MatchInfo(self.rules, (keys[0], keys[1]), (names[0], names[1]), match_id))
        rounds = _field(data, "rounds", list, "rounds")
        if data.get("first_dealer") is not None or rounds:  # none only for a match that ended before (declined)
            self.first_dealer(_field(data, "first_dealer", dict, "first_dealer"))
        for index, round_obj in enumerate(rounds):
            if not isinstance(round_obj, dict):
                _bad(f"round {index + 1}", "an object is expected")
            finished = self.round(round_obj, last=index == len(rounds) - 1)
            if not finished:
                break
        self.end(data.get("ending"), data.get("outcome"))

    def first_dealer(self, obj: dict[str, Any]) -> None:
        seat = _field(obj, "seat", int, "first_dealer")
        if seat not in (0, 1):
            _bad("first_dealer", "the seat is 0 or 1")
        method = obj.get("by", "coin")
        draws: list[tuple[Card, Card]] = []
        if method == "draw" and self.rules.first_dealer is not FirstDealer.COIN:
            for pair in _field(obj, "draws", list, "first_dealer"):
                cards = _cards(pair, "first_dealer, draws")
                if len(cards) != 2:
                    _bad("first_dealer", "each draw is two cards, seat 0's then seat 1's")
                draws.append((cards[0], cards[1]))
            decided = [first_dealer_by_draw(self.rules.first_dealer, a, b) for a, b in draws]
            if not decided or any(d is not None for d in decided[:-1]) or decided[-1] != seat:
                self.reject(
                    "first dealer", ReasonId.BAD_DRAW, f"the cards drawn do not make seat {seat} the first dealer"
                )
        elif method != "coin" or self.rules.first_dealer is not FirstDealer.COIN:
            self.reject(
                "first dealer",
                ReasonId.BAD_RULES,
                f"these rules choose the first dealer by {self.rules.first_dealer.value}",
            )
        self.match.set_first_dealer(seat)
        self.visitor.first_dealer(FirstDealerChoice(seat, ChoiceMethod(method), tuple(draws)))

    def round(self, obj: dict[str, Any], *, last: bool) -> bool:
        """Replay one round (its redeals first); returns whether it was played out."""
        match = self.match
        number = match.round_number
        where = f"round {number}"
        if obj.get("number", number) != number:
            self.reject(where, ReasonId.WRONG_ROUND, f"round {obj.get('number')!r} comes where round {number} is due")
        if obj.get("dealer", match.dealer) != match.dealer:
            self.reject(
                where,
                TranscriptFault.WRONG_DEALER,
                f"seat {match.dealer} deals this round, not seat {obj.get('dealer')!r}",
            )
        redeals = obj.get("redeals", [])
        if not isinstance(redeals, list):
            _bad(where, "'redeals' is a list of deals")
        for redeal_obj in redeals:
            redeal_where = f"{where}, redeal {match.redeal}"
            deal = _deal(_dict(redeal_obj, redeal_where), redeal_where) if redeal_obj else None
            if deal is None:
                _bad(redeal_where, "a redealt deal lists its cards")
            rnd = match.start_round(deal)
            if not rnd.over or rnd.outcome is None or rnd.outcome.kind is not OutcomeKind.REDEAL:
                self.reject(redeal_where, TranscriptFault.BAD_REDEAL, "this table is not dealt again under these rules")
            dealt = match.dealer
            result = match.finish_round()
            self.visitor.round_played(PlayedRound(number, result.redeal, dealt or 0, deal.table, deal, (), (), result))
        return self.play(obj, where, last=last)

    def play(self, obj: dict[str, Any], where: str, *, last: bool) -> bool:
        match, rules = self.match, self.rules
        dealer = match.dealer or 0
        deal = _deal(obj, where)
        if deal is None:
            table = _mask(_cards(_field(obj, "table", list, where), f"{where}, table"))
            rnd = match.begin_round(Round.start(rules, dealer, (0, 0), table, [None] * 24, hidden=(8, 8)))
        else:
            table = deal.table
            rnd = match.start_round(deal)
        turns = _field(obj, "turns", list, where)
        played = _Play(self, rnd, where, deal is not None)
        played.opening(obj)
        for index, turn in enumerate(turns):
            played.turn(_dict(turn, f"{where}, turn {index + 1}"), index + 1)
        if not rnd.over:
            if not last or obj.get("result") is not None:
                self.reject(where, TranscriptFault.UNFINISHED_ROUND, "the round's turns stop before the round is over")
            hiki = tuple(played.hiki)
            self.visitor.round_played(
                PlayedRound(match.round_number, match.redeal, dealer, table, deal, tuple(rnd.history), hiki)
            )
            return False
        if deal is None:
            self.reject(where, TranscriptFault.UNKNOWN_DEAL, "a round played out lists its deal")
        played.check_gaji(obj.get("gaji"))
        result = match.finish_round()
        stated = obj.get("result")
        if stated is not None:
            _compare(self, where, ReasonId.RESULT_MISMATCH, _dict(stated, f"{where}, result"), result_json(result))
        hiki = tuple(played.hiki)
        self.visitor.round_played(
            PlayedRound(result.number, result.redeal, dealer, table, deal, tuple(rnd.history), hiki, result)
        )
        return True

    def end(self, ending: Any, outcome: Any) -> None:
        match = self.match
        if match.phase is MatchPhase.OVER:
            final = match.outcome
            assert final is not None
            if outcome is not None:
                _compare(
                    self, "the match", TranscriptFault.OUTCOME_MISMATCH, _dict(outcome, "outcome"), _outcome_json(final)
                )
            said = ending.get("text") if isinstance(ending, dict) and ending.get("how") == "finished" else None
            self.visitor.end_match(MatchEnd(Ending.FINISHED, None, str(said or "the match was played out"), final))
            return
        word, seat, text = str(Ending.UNFINISHED), None, "the transcript stops before the match ended"
        if isinstance(ending, dict) and ending.get("how") in _ENDINGS:
            word, text = str(ending["how"]), str(ending.get("text", ""))
            seat = ending.get("seat") if ending.get("seat") in (0, 1) else None
        result: MatchOutcome | None = None
        if word == _QUIT and seat is not None:  # version 1's word for a forfeit
            word = str(Ending.FORFEIT)
        how = Ending(word)
        if how is Ending.FORFEIT and seat is not None:
            result = match.forfeit(seat)
        elif how is Ending.VIOLATION and seat is not None:
            result = match.forfeit(1 - seat)
        elif how is Ending.FINISHED:
            how = Ending.UNFINISHED
        self.visitor.end_match(MatchEnd(how, seat, text, result))


class _Play:
    """One round's moves from the transcript, each applied to the engine and checked against what it states."""

    def __init__(self, reader: _Reader, rnd: Round, where: str, known: bool) -> None:
        self.reader = reader
        self.rnd = rnd
        self.where = where
        self.known = known
        self.hiki: list[HikiAnswer] = []

    def apply(self, action: AnyAction, seat: int, where: str) -> list[Event]:
        try:
            return self.rnd.apply(action, seat)
        except IllegalActionError as exc:
            self.reader.reject(
                where, str(ReasonCode(ReasonId.ILLEGAL_MOVE, exc.rule)), f"seat {seat}'s {action}: {exc}"
            )

    def opening(self, obj: dict[str, Any]) -> None:
        rnd = self.rnd
        if rnd.phase is Phase.EXCHANGE:
            swap = obj.get("exchange", False)
            if not isinstance(swap, bool):
                _bad(self.where, "'exchange' is true or false")
            self.apply(Exchange(swap), 1 - rnd.dealer, self.where)
        claims: dict[int, ClaimHandYaku] = {}
        for claim in obj.get("hand_yaku", []) or []:
            claim = _dict(claim, f"{self.where}, hand_yaku")
            seat = _field(claim, "seat", int, self.where)
            try:
                yaku = Yaku.parse(_field(claim, "yaku", str, self.where))
            except ValueError as exc:
                _bad(self.where, str(exc))
            claims[seat] = ClaimHandYaku(yaku, _mask(_cards(claim.get("cards"), f"{self.where}, hand_yaku")))
        while rnd.phase is Phase.HAND_YAKU:
            seat = rnd.to_act
            declared: AnyAction = claims.pop(seat) if seat in claims else PassHandYaku()
            self.apply(declared, seat, f"{self.where}, hand yaku")
        if claims:
            self.reader.reject(
                self.where,
                str(ReasonCode(ReasonId.ILLEGAL_MOVE, "wrong-phase")),
                "a hand yaku is claimed where none is declared",
            )

    def turn(self, obj: dict[str, Any], number: int) -> None:
        rnd, where = self.rnd, f"{self.where}, turn {number}"
        seat = _field(obj, "seat", int, where)
        if rnd.phase is not Phase.PLAY or rnd.to_act != seat:
            who = "nobody" if rnd.over else f"seat {rnd.to_act}"
            self.reader.reject(
                where,
                str(ReasonCode(ReasonId.ILLEGAL_MOVE, "not-your-turn")),
                f"it is {who}'s turn to play, not seat {seat}'s",
            )
        for attempt in obj.get("hiki", []) or []:
            self.voided(seat, _dict(attempt, where), where)
        card = _card(obj.get("play"), where)
        captures = _cards(obj.get("play_captures", []), where)
        events = self.apply(Play(card, self.target(card, captures)), seat, where)
        self.captured(where, "play", events[0].captured, captures, TranscriptFault.PLAY_CAPTURES)
        drawn = obj.get("draw")
        if drawn is None:
            return  # a round cut short after the play: nothing may follow (the next turn is out of turn)
        else:
            events = self.apply(Draw(_card(drawn, where)), CHANCE, where)
            taken = _cards(obj.get("draw_captures", []), where)
            if _phase(rnd) is Phase.DRAW_CHOICE:
                if len(taken) != 1:
                    self.reader.reject(
                        where, TranscriptFault.CHOOSE_CAPTURE, "the drawn card matches two: name the one taken"
                    )
                events = self.apply(ChooseCapture(taken[0]), seat, where)
                self.captured(where, "draw", events[0].captured, taken, TranscriptFault.DRAW_CAPTURES)
            else:
                self.captured(where, "draw", events[0].captured, taken, TranscriptFault.DRAW_CAPTURES)
        call = obj.get("call")
        if _phase(rnd) is Phase.DECISION:
            if call not in ("koikoi", "stop"):
                if call is None:
                    return  # a round cut short at the decision
                self.reader.reject(where, TranscriptFault.BAD_CALL, f"the call is koikoi or stop, not {call!r}")
            self.apply(CallKoiKoi() if call == "koikoi" else CallStop(), seat, where)
        elif call is not None:
            auto = rnd.outcome is not None and rnd.outcome.kind is OutcomeKind.AUTO_STOP and call == "stop"
            if not auto:
                self.reader.reject(
                    where, TranscriptFault.BAD_CALL, f"no decision was offered, yet the turn calls {call!r}"
                )

    def target(self, card: Card, captures: list[Card]) -> Card | None:
        """The table card a play names: needed when two match, or for the Gaji taken as a wildcard."""
        table = self.rnd.table
        matches = table & month_mask(card.month)
        if matches.bit_count() == 2 and len(captures) == 1:
            return captures[0]
        if self.rnd.rules.gaji and card is _LIGHTNING and len(captures) == 1 and not matches & captures[0].bit:
            return captures[0]
        return None

    def captured(self, where: str, what: str, taken: int, stated: list[Card], fault: TranscriptFault) -> None:
        if taken != _mask(stated):
            text = f"the {what} takes [{', '.join(ids(taken))}], not [{', '.join(c.id for c in stated)}]"
            self.reader.reject(where, fault, text)

    def voided(self, seat: int, obj: dict[str, Any], where: str) -> None:
        """A Gaji play onto a month of three that the other seat voided by showing the fourth card."""
        target, card = _card(obj.get("take"), where), _card(obj.get("card"), where)
        play = Play(_LIGHTNING, target)
        rnd = self.rnd
        onto_three = (rnd.table & month_mask(target.month)).bit_count() == 3 and target.month != _LIGHTNING.month
        if not (rnd.rules.gaji and onto_three):
            self.reader.reject(where, ReasonId.BAD_HIKI, f"no Gaji play onto {target.id} waits for a Hiki answer")
        if card.month != target.month or (self.known and not rnd.hands[1 - seat] & card.bit):
            self.reader.reject(where, ReasonId.BAD_HIKI, f"seat {1 - seat} does not hold {card.id} of that month")
        if not self.known and not rnd.hands[1 - seat] & card.bit:
            rnd.reveal(1 - seat, card.bit)
        self.hiki.append(HikiAnswer(len(rnd.history), seat, play, card))

    def check_gaji(self, stated: Any) -> None:
        if stated is None:
            return
        obj = _dict(stated, f"{self.where}, gaji")
        seat = _field(obj, "seat", int, self.where)
        swept = _mask(_cards(obj.get("cards"), self.where))
        if seat not in (0, 1) or not swept or self.rnd.captures[seat] & swept != swept:
            self.reader.reject(self.where, TranscriptFault.GAJI_CAPTURES, "the Gaji's month is not swept as stated")


def _phase(rnd: Round) -> Phase:
    """The round's phase now (a call, so a type checker does not carry an earlier test over a move)."""
    return rnd.phase


def _dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        _bad(where, "an object is expected")
    return value


def _key(value: Any) -> bytes | None:
    if value is None:
        return None
    try:
        key = bytes.fromhex(value) if isinstance(value, str) else None
    except ValueError:
        key = None
    if key is None or len(key) != 32:
        raise TranscriptError(f"{value!r} is not a 32-byte key in hex")
    return key


def _outcome_json(outcome: MatchOutcome) -> dict[str, Any]:
    return {"winner": outcome.winner, "points": list(outcome.points), "termination": outcome.termination.value}


def _compare(reader: _Reader, where: str, fault: str, stated: dict[str, Any], recomputed: dict[str, Any]) -> None:
    """Name the first field the transcript states differently from the recomputed value (``fault``: the
    result's or the outcome's mismatch)."""
    what = fault.removesuffix("-mismatch")
    for key, value in recomputed.items():
        if key in stated and stated[key] != value:
            text = f"the {what} says {key} {stated[key]!r}, but the moves give {value!r}"
            reader.reject(where, fault, text)


def read_transcript(data: Any, visitor: MatchVisitor | None = None) -> None:
    """Check a transcript (parsed JSON) and tell its match to ``visitor``.

    Raises :class:`TranscriptError` if it is not a transcript, :class:`Rejected` at the first rule broken.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TranscriptError(f"not a {FORMAT} transcript (its 'format' field says otherwise)")
    _Reader(data, visitor if visitor is not None else MatchVisitor()).run()

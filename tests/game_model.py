"""Koi-Koi written a second time from protocol/GAME.md alone: its tables read out of the Markdown, its
rules in words turned into code, with nothing taken from ``p2p_koikoi.engine`` but the rule set's
option values. The tests compare this model with the engine; where they differ, the words or the code
is wrong.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from p2p_koikoi.engine.rules import RuleSet

ROOT = Path(__file__).resolve().parent.parent
GAME_MD = ROOT / "protocol" / "GAME.md"


@cache
def game_md() -> str:
    return GAME_MD.read_text(encoding="utf-8")


def section(title: str) -> str:
    """The text of the GAME.md section with this heading, up to the next heading of its level or above."""
    text = game_md()
    m = re.search(rf"^(#+) {re.escape(title)}\n", text, re.M)
    assert m, f"GAME.md has no section {title!r}"
    level = len(m.group(1))
    rest = text[m.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def table_rows(block: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``block``, cells stripped of backquotes."""
    lines = [line for line in block.splitlines() if line.startswith("|")]
    return [[cell.strip().strip("`") for cell in line.strip("|").split("|")] for line in lines[2:]]


def generated(name: str) -> str:
    m = re.search(rf"<!-- generated: {name} -->\n(.*?)<!-- end: {name} -->", game_md(), re.S)
    assert m, name
    return m.group(1)


@cache
def card_table() -> dict[int, tuple[str, int, str, str]]:
    """index -> (id, month number, kind, role), read from GAME.md."""
    out = {}
    for index, card_id, month, kind, role, _ in table_rows(generated("cards")):
        out[int(index)] = (card_id, int(month.split()[0]), kind, role)
    return out


def model_yaku(caps: set[int], rules: RuleSet) -> dict[str, int]:
    """GAME.md's "Yaku" section, written out again from its words and its card table."""
    table = card_table()
    role = {i: table[i][3] for i in caps}
    kind = {i: table[i][2] for i in caps}
    found: dict[str, int] = {}
    lights = [i for i in caps if kind[i] == "bright"]
    rain = any(role[i] == "rain" for i in lights)
    if len(lights) == 5:
        found["goko"] = 10
    elif len(lights) == 4:
        found["ame-shiko" if rain else "shiko"] = 7 if rain else 8
    elif len(lights) == 3 and (not rain or rules.rain_in_sanko):
        found["sanko"] = 5
    roles = set(role.values())
    if rules.viewing_yaku and "sake-cup" in roles:
        if "curtain" in roles:
            found["hanami"] = 5
        if "moon" in roles:
            found["tsukimi"] = 5
    extras = rules.set_extras
    animals = sum(kind[i] == "animal" for i in caps)
    ino = {"boar", "deer", "butterflies"} <= roles
    if ino:
        found["inoshikacho"] = 5 + (animals - 3) if extras else 5
    if animals >= 5 and not (ino and rules.tane_void_with_inoshikacho):
        found["tane"] = 1 + animals - 5
    ribbons = sum(kind[i] == "ribbon" for i in caps)
    poem = sum(role[i] == "poem-ribbon" for i in caps) == 3
    blue = sum(role[i] == "blue-ribbon" for i in caps) == 3
    mode = rules.akatan_aotan.value
    if poem and blue and mode == "chofuku":
        found["akatan-aotan"] = 10 + (ribbons - 6) if extras else 10
    else:
        if poem:
            found["akatan"] = 5 + (ribbons - 3) if extras else 5
        if blue:
            found["aotan"] = 5 + (ribbons - 3) if extras else 5
        if poem and blue and mode == "triad":
            found["triad"] = 3
    if ribbons >= 5 and not ((poem or blue) and rules.tan_void_with_akatan_aotan):
        found["tan"] = 1 + ribbons - 5
    plains = sum(kind[i] == "plain" or (role[i] == "sake-cup" and rules.sake_as_plain) for i in caps)
    if plains >= 10:
        found["kasu"] = 1 + plains - 10
    return found


def model_count(base: int, rules: RuleSet, winner_calls: int, loser_calls: int, left: int | None) -> tuple[int, int]:
    """GAME.md's "Scoring a round": (total, payment)."""
    threshold = {"7": 7, "8": 8, "never": None}[rules.doubling.value]
    value = base * 2 if threshold is not None and base >= threshold else base
    mode = rules.koikoi_multiplier.value
    if mode == "loser-called":
        value *= 2 if loser_calls else 1
    elif mode == "all-calls":
        value *= 1 + winner_calls + loser_calls
    elif mode == "rulebook":
        value *= (1 + winner_calls) * (2 if loser_calls else 1)
    if rules.scoring.value == "pool":
        return value, min(value, rules.pool if left is None else left)
    return value, value


# -- a round, from "A round" to "Scoring a round" ----------------------------------------------------


def _month(card: int) -> int:
    return card_table()[card][1]


def _id(card: int) -> str:
    return card_table()[card][0]


def _ids(cards: list[int] | set[int]) -> str:
    """Cards in ascending index, as a claim writes them."""
    return " ".join(_id(c) for c in sorted(cards))


_BY_ID: dict[str, int] = {}


def _card(card_id: str) -> int:
    if not _BY_ID:
        _BY_ID.update({v[0]: k for k, v in card_table().items()})
    return _BY_ID[card_id]


LIGHTNING = "willow-lightning"
WILLOW = 11


class ModelRound:
    """One round as GAME.md tells it. Actions are the canonical texts of its grammar."""

    def __init__(
        self, rules: RuleSet, dealer: int, hands: tuple[set[int], set[int]], table: set[int], stock: list[int]
    ):
        self.rules, self.dealer = rules, dealer
        self.hands = [set(hands[0]), set(hands[1])]
        self.table, self.stock, self.drawn = set(table), list(stock), 0
        self.captures: list[set[int]] = [set(), set()]
        self.calls, self.last_caller = [0, 0], None
        self.mark: list[tuple[int, set[str]]] = [(0, set()), (0, set())]
        self.willow_played = [False, False]
        self.gaji: tuple[int, int] | None = None
        self.claims: list[str | None] = []
        self.pending: int | None = None
        self.turn = dealer
        self.outcome: tuple[str, int | None, int, bool] | None = None  # kind, winner, next dealer, counts
        self.phase, self.to_act = "play", dealer
        if self._needs_redeal():
            self._finish("redeal", None, dealer)
        elif rules.hand_exchange:
            self.phase, self.to_act = "exchange", 1 - dealer
        elif rules.hand_yaku:
            self.phase, self.to_act = "hand-yaku", dealer

    # -- what may be done ------------------------------------------------------------------

    def _of_month(self, cards: set[int], month: int) -> set[int]:
        return {c for c in cards if _month(c) == month}

    def _needs_redeal(self) -> bool:
        mode = self.rules.table_redeal.value
        months = [len(self._of_month(self.table, m)) for m in range(1, 13)]
        if mode == "none":
            return False
        return 4 in months or (mode == "four-or-pairs" and sorted(months) == [0] * 8 + [2] * 4)

    def _hand_yaku(self, seat: int) -> str:
        hand = self.hands[seat]
        full = [m for m in range(1, 13) if len(self._of_month(hand, m)) == 4]
        if full:
            return "claim teshi " + _ids(self._of_month(hand, full[0]))
        if sorted(len(self._of_month(hand, m)) for m in range(1, 13)) == [0] * 8 + [2] * 4:
            return "claim kuttsuki " + _ids(hand)
        return "pass"

    def _wildcard_ok(self, seat: int, target: int) -> bool:
        other = 1 - seat
        month = _month(target)
        hiki = len(self._of_month(self.table, month)) == 3 and self._of_month(self.hands[other], month)
        return not self.willow_played[other] and not hiki

    def legal(self) -> list[str]:
        seat, phase = self.to_act, self.phase
        if phase == "exchange":
            return ["keep", "exchange"]
        if phase == "hand-yaku":
            return [self._hand_yaku(seat)]
        if phase == "draw":
            return [f"draw {_id(self.stock[self.drawn])}"]
        if phase == "draw-choice":
            assert self.pending is not None
            return [f"take {_id(t)}" for t in sorted(self._of_month(self.table, _month(self.pending)))]
        if phase == "decision":
            return ["koikoi", "stop"]
        if phase != "play":
            return []
        out = []
        for card in sorted(self.hands[seat]):
            matches = self._of_month(self.table, _month(card))
            if len(matches) == 2:
                out += [f"play {_id(card)} take {_id(t)}" for t in sorted(matches)]
            else:
                out.append(f"play {_id(card)}")
            if self.rules.gaji and _id(card) == LIGHTNING:
                others = sorted(self.table - matches)
                out += [f"play {_id(card)} take {_id(t)}" for t in others if self._wildcard_ok(seat, t)]
        return out

    # -- doing it ------------------------------------------------------------------------

    def apply(self, text: str) -> None:
        assert text in self.legal(), (text, self.phase)
        words = text.split()
        seat = self.to_act
        if self.phase == "exchange":
            if words[0] == "exchange":
                self.hands.reverse()
            self.phase, self.to_act = ("hand-yaku", self.dealer) if self.rules.hand_yaku else ("play", self.dealer)
        elif self.phase == "hand-yaku":
            self._declare(seat, None if text == "pass" else words[1])
        elif self.phase == "play":
            self._play(seat, _card(words[1]), _card(words[3]) if len(words) == 4 else None)
        elif self.phase == "draw":
            self._draw(_card(words[1]))
        elif self.phase == "draw-choice":
            assert self.pending is not None
            self._take(self.turn, self.pending, {_card(words[1])})
            self.pending = None
            self._end_of_turn()
        elif self.phase == "decision":
            if text == "stop":
                self._finish("stop", seat, seat)
            else:
                self.calls[seat] += 1
                self.last_caller = seat
                found = model_yaku(self.captures[seat], self.rules)
                self.mark[seat] = (sum(found.values()), set(found))
                self._pass_turn()

    def _declare(self, seat: int, yaku: str | None) -> None:
        self.claims.append(yaku)
        if seat == self.dealer:
            self.to_act = 1 - seat
            return
        dealer_claim, mine = self.claims
        if dealer_claim and mine:
            if self.rules.both_hand_yaku.value == "dealer":
                self._finish("hand-yaku", self.dealer, self.dealer, claimed=dealer_claim)
            else:
                self._finish("hand-yaku-draw", None, self.dealer)
        elif dealer_claim or mine:
            winner = self.dealer if dealer_claim else seat
            self._finish("hand-yaku", winner, winner, claimed=dealer_claim or mine)
        else:
            self.phase, self.to_act = "play", self.dealer

    def _take(self, seat: int, card: int, taken: set[int]) -> None:
        if taken:
            self.table -= taken
            self.captures[seat] |= taken | {card}
        else:
            self.table.add(card)

    def _play(self, seat: int, card: int, target: int | None) -> None:
        self.hands[seat].discard(card)
        if _month(card) == WILLOW:
            self.willow_played[seat] = True
        matches = self._of_month(self.table, _month(card))
        if target is not None and target not in matches:
            self.gaji = (seat, _month(target))
            taken = {target}
        else:
            taken = {target} if target is not None else matches
        self._take(seat, card, taken)
        self.phase, self.to_act = "draw", -1

    def _draw(self, card: int) -> None:
        self.drawn += 1
        matches = self._of_month(self.table, _month(card))
        if len(matches) == 2:
            self.pending = card
            self.phase, self.to_act = "draw-choice", self.turn
            return
        self._take(self.turn, card, matches)
        self._end_of_turn()

    def _end_of_turn(self) -> None:
        seat, rules = self.turn, self.rules
        found = model_yaku(self.captures[seat], rules)
        total, mark = sum(found.values()), self.mark[seat]
        rose = total > mark[0] if rules.decision_on.value == "rise" else bool(set(found) - mark[1])
        if not rose:
            self._pass_turn()
            return
        empty, other_empty = not self.hands[seat], not self.hands[1 - seat]
        after_call = rules.after_koikoi.value == "next-yaku-ends" and any(self.calls)  # step 1
        last_card = empty and (rules.auto_stop.value == "own-hand-empty" or other_empty)  # step 2
        if after_call or last_card:
            self._finish("auto-stop", seat, seat)
        else:
            self.phase, self.to_act = "decision", seat

    def _pass_turn(self) -> None:
        seat = self.turn
        for nxt in (1 - seat, seat):
            if self.hands[nxt]:
                self.phase, self.to_act, self.turn = "play", nxt, nxt
                return
        mode, dealer = self.rules.exhausted.value, self.dealer
        if mode == "last-caller" and self.last_caller is not None:
            self._finish("last-caller", self.last_caller, self.last_caller)
        elif mode == "dealer-bonus":
            self._finish("dealer-bonus", dealer, dealer)
        elif mode == "no-game":
            self._finish("no-game", None, 1 - dealer)
        else:
            self._finish("drawn", None, dealer)

    def _finish(self, kind: str, winner: int | None, next_dealer: int, claimed: str | None = None) -> None:
        if self.gaji is not None and kind != "redeal":
            holder, month = self.gaji
            swept = self._of_month(self.table, month)
            self.table -= swept
            self.captures[holder] |= swept
        self.claimed = claimed
        self.outcome = (kind, winner, next_dealer, kind != "redeal")
        self.phase, self.to_act = "over", -1

    # -- the count ---------------------------------------------------------------------------

    def yaku(self) -> dict[str, int]:
        """The winner's yaku, as the count lists them."""
        assert self.outcome is not None
        kind, winner = self.outcome[0], self.outcome[1]
        if winner is None or kind == "dealer-bonus":
            return {}
        if kind == "hand-yaku":
            assert self.claimed is not None
            return {self.claimed: 6}
        return model_yaku(self.captures[winner], self.rules)

    def total(self) -> int:
        """The round's total (before any pool cap): GAME.md's "Scoring a round"."""
        assert self.outcome is not None
        kind, winner = self.outcome[0], self.outcome[1]
        if winner is None:
            return 0
        if kind == "dealer-bonus":
            return self.rules.dealer_bonus
        return model_count(sum(self.yaku().values()), self.rules, self.calls[winner], self.calls[1 - winner], None)[0]

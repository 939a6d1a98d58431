"""``koikoi export``: the transcript of a match (``koikoi-transcript/1``, ``protocol/TRANSCRIPT.md``).

:class:`TranscriptBuilder` is a :class:`~p2p_koikoi.referee.events.MatchVisitor`:
fed by the referee walking a record, or by the transcript reader, it writes the
match as a transcript. Every round's ``result`` is the count the reader
recomputed, never a number copied from the input. A match cut short (or
stopped at a failed check) is written up to where it stopped, its last round
marked ``unfinished`` with the cards that were known.
"""

from __future__ import annotations

import json
from typing import Any

from p2p_koikoi.engine import Deal, OutcomeKind, RuleSet
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.transcript import FORMAT, deal_json, round_json, rules_json
from p2p_koikoi.referee.events import ChoiceMethod, FirstDealerChoice, MatchEnd, MatchInfo, MatchVisitor, PlayedRound

__all__ = ["TranscriptBuilder", "render_transcript"]

_WIDTH = 116


class TranscriptBuilder(MatchVisitor):
    """Builds the transcript of the match it is told; :meth:`result` returns it as JSON-ready data."""

    def __init__(self) -> None:
        self.rules: RuleSet | None = None
        self.data: dict[str, Any] = {"format": FORMAT}
        self._rounds: list[dict[str, Any]] = []
        self._redeals: list[Deal] = []  # redealt deals waiting for the deal their round is played with
        self._redeal_round: PlayedRound | None = None

    def begin_match(self, info: MatchInfo) -> None:
        self.rules = info.rules
        self.data["rules"] = rules_json(info.rules)
        self.data["players"] = [
            {"name": name, "key": key.hex() if key else None, "fingerprint": fingerprint(key) if key else None}
            for name, key in zip(info.names, info.keys, strict=True)
        ]
        self.data["match_id"] = info.match_id.hex() if info.match_id is not None else None

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        entry: dict[str, Any] = {"seat": choice.seat, "by": choice.method}
        if choice.method is ChoiceMethod.DRAW:
            entry["draws"] = [[a.id, b.id] for a, b in choice.draws]
        self.data["first_dealer"] = entry

    def round_played(self, played: PlayedRound) -> None:
        rules = self.rules
        assert rules is not None
        result = played.result
        if result is not None and result.outcome.kind is OutcomeKind.REDEAL and played.deal is not None:
            self._redeals.append(played.deal)
            self._redeal_round = played
            return
        self._rounds.append(round_json(rules, played, self._redeals))
        self._redeals, self._redeal_round = [], None

    def end_match(self, end: MatchEnd) -> None:
        if self._redeals and self._redeal_round is not None:
            # The match stopped right after a redeal: keep the redealt deals in a round of their own.
            stopped = self._redeal_round
            self._rounds.append(
                {
                    "number": stopped.number,
                    "dealer": stopped.dealer,
                    "redeals": [deal_json(deal) for deal in self._redeals],
                    **{"hands": None, "table": [], "stock": None, "turns": [], "unfinished": True},
                }
            )
        self.data["rounds"] = self._rounds
        outcome = end.outcome
        self.data["outcome"] = (
            None
            if outcome is None
            else {"winner": outcome.winner, "points": list(outcome.points), "termination": outcome.termination.value}
        )
        self.data["ending"] = {"how": end.how, "seat": end.seat, "text": end.text}

    def result(self) -> dict[str, Any]:
        self.data.setdefault("rounds", self._rounds)
        return self.data


def render_transcript(data: Any, indent: str = "") -> str:
    """JSON laid out for people: a list of card ids (a hand, the stock) or a turn stays on one line,
    and so does anything else that fits."""
    flat = json.dumps(data, ensure_ascii=False)
    if len(flat) + len(indent) <= _WIDTH or _shallow(data) or not isinstance(data, dict | list) or not data:
        return flat
    inner = indent + " "
    if isinstance(data, dict):
        items = [f"{inner}{json.dumps(key)}: {render_transcript(value, inner)}" for key, value in data.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    return "[\n" + ",\n".join(inner + render_transcript(value, inner) for value in data) + "\n" + indent + "]"


def _shallow(data: Any) -> bool:
    """A list of plain values, or an object whose values are plain values or such lists."""
    if isinstance(data, list):
        return not any(isinstance(item, dict | list) for item in data)
    if isinstance(data, dict):
        return all(not isinstance(v, dict) and (not isinstance(v, list) or _shallow(v)) for v in data.values())
    return False

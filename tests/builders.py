"""Build rounds from card names, for tests that need a particular deal."""

from __future__ import annotations

from p2p_koikoi.engine import ALL_CARDS, Card, Round, RuleSet, cards_of, parse_cards


def cards(text: str) -> int:
    return parse_cards([text]) if text.strip() else 0


def build_round(
    rules: RuleSet,
    *,
    dealer: int = 0,
    hand0: str,
    hand1: str,
    table: str,
    stock: str = "",
) -> Round:
    """A round with these hands and table; the stock starts with ``stock`` and goes on with the unused
    cards in index order. Hands and table may be short: they are filled from the unused cards too,
    spread over the months, so tests can name only the cards that matter."""
    h0, h1, t, s = cards(hand0), cards(hand1), cards(table), [Card.parse(x) for x in stock.split()]
    used = h0 | h1 | t | parse_cards([" ".join(c.id for c in s)]) if s else h0 | h1 | t
    # Fill with cards of months the test did not name first (so a filler never matches a named card),
    # one card of each month before a second (so filling never makes a hand yaku or a redeal).
    named = {c >> 2 for c in cards_of(used)}
    spare = sorted(cards_of(ALL_CARDS & ~used), key=lambda c: ((c >> 2) in named, -(c & 3), -(c >> 2)))

    def fill(mask: int, size: int) -> int:
        while mask.bit_count() < size:
            mask |= 1 << spare.pop(0)
        return mask

    h0, h1, t = fill(h0, 8), fill(h1, 8), fill(t, 8)
    rest = sorted(spare)
    full_stock = s + [Card(c) for c in rest]
    assert len(full_stock) == 24, len(full_stock)
    return Round.start(rules, dealer, (h0, h1), t, full_stock)


def first_policy_trace(rnd: Round, stop_when: object = None) -> list[tuple[int, object]]:
    """Play ``rnd`` with the first legal action each time (Koi-Koi at every decision) until it is over."""
    from p2p_koikoi.engine import CallKoiKoi, Phase

    trace: list[tuple[int, object]] = []
    while not rnd.over:
        legal = rnd.legal_actions()
        action = CallKoiKoi() if rnd.phase is Phase.DECISION else legal[0]
        trace.append((rnd.to_act, action))
        rnd.apply(action)
    return trace

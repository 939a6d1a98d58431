"""Fairness: one honest player is enough for a uniform deal.

The other player uses a fixed permutation and fixed keys of its choosing in
every deal. Over many deals (secrets of the honest side from a seeded RNG, so
the test is deterministic and cannot flake) the card that lands at a deck
position must be uniform over the 48 cards: a chi-square statistic with 47
degrees of freedom stays under its 1-in-a-million bound.
"""

from __future__ import annotations

import math
import random

import pytest
from test_fairness_support import CONTEXT, IDENTITY_KEYS, Pipe

from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import Contribution, derive_contribution
from p2p_koikoi.fairness.shuffle import lock, shuffle, unlock

DEALS = 240  # per direction; five per card on average


def chi_square_bound(df: int, z: float = 4.753) -> float:
    """The chi-square quantile for upper tail ``P(Z > z)`` (Wilson-Hilferty); z=4.753 is 1e-6."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def fixed_contribution() -> Contribution:
    """A cheater's choice: reverse order, tiny mask, keys 2, 3, 4, ..."""
    return Contribution(
        permutation=tuple(range(47, -1, -1)),
        mask=(7).to_bytes(32, "little"),
        unlock_keys=tuple((k + 2).to_bytes(32, "little") for k in range(48)),
    )


def final_deck(contributions: tuple[Contribution, Contribution]) -> tuple[bytes, ...]:
    """The four passes as the players compute them (DEAL.md section 5: seat 0 shuffles, seat 1 shuffles,
    seat 0 locks, seat 1 locks), the group arithmetic only: the proofs that go with each pass prove what
    the pass is, and play no part in where a card lands, so they are not built here."""
    first, second = contributions
    shuffled = shuffle(shuffle(CARD_POINTS, first), second)
    return lock(lock(shuffled, first), second)


def landing_counts(honest: int, deals: int, seed: int, positions: tuple[int, ...]) -> dict[int, list[int]]:
    rng = random.Random(seed)
    counts = {p: [0] * 48 for p in positions}
    cheat = fixed_contribution()
    for _ in range(deals):
        fair = derive_contribution(rng.randbytes(32), CONTEXT, IDENTITY_KEYS[honest])
        contributions = (fair, cheat) if honest == 0 else (cheat, fair)
        final = final_deck(contributions)
        keys = (contributions[0].unlock_keys, contributions[1].unlock_keys)
        for position in positions:
            card = unlock(final[position], keys[0][position], keys[1][position])
            assert card is not None
            counts[position][card] += 1
    return counts


def test_the_passes_here_are_the_players_passes() -> None:
    """The proof-free passes above give the very deck two players' sessions agree on."""
    pipe = Pipe()
    pipe.sides[1]._mine = fixed_contribution()
    pipe.shuffle()
    ours = final_deck((pipe.sides[0]._mine, pipe.sides[1]._mine))
    assert ours == pipe.sides[0].final_deck == pipe.sides[1].final_deck


@pytest.mark.parametrize("honest", [0, 1])
def test_one_honest_player_makes_the_deal_uniform(honest: int) -> None:
    counts = landing_counts(honest, DEALS, seed=20240 + honest, positions=(0, 47))
    bound = chi_square_bound(47)
    for position, row in counts.items():
        assert sum(row) == DEALS
        assert chi_square(row) < bound, (position, row)


def test_the_bound_rejects_a_steered_deal() -> None:
    # The control: what this test would see if the cheater could steer. The same card
    # every time, or a card kept to one half of the deck, lies far above the bound.
    bound = chi_square_bound(47)
    assert chi_square([DEALS] + [0] * 47) > bound
    assert chi_square([DEALS // 24] * 24 + [0] * 24) > bound


@pytest.mark.slow
@pytest.mark.parametrize("honest", [0, 1])
def test_one_honest_player_makes_the_deal_uniform_long(honest: int) -> None:
    deals = 4800
    counts = landing_counts(honest, deals, seed=777 + honest, positions=(0, 23, 47))
    bound = chi_square_bound(47)
    for row in counts.values():
        assert chi_square(row) < bound

"""The building blocks: the group, card points, derivations, commitments, messages."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fairness_support import CONTEXT, IDENTITY_KEYS, SECRETS
from test_fairness_uniform import chi_square, chi_square_bound

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness import (
    Commit,
    DealContext,
    Deck,
    Keys,
    MessageFormatError,
    Purpose,
    Reveal,
    Show,
    group,
    parse_message,
)
from p2p_koikoi.fairness.cardpoints import CARD_POINTS, card_of_point, card_point_input
from p2p_koikoi.fairness.commit import commitment, opens
from p2p_koikoi.fairness.derive import binding, derive_contribution, derive_permutation

L = 2**252 + 27742317777372353535851937790883648493


# -- ristretto255 as RFC 9496 defines it ------------------------------------------------------


def test_small_multiples_of_the_generator_match_rfc_9496() -> None:
    expected = [
        "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
        "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
        "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
    ]
    for n, hex_ in enumerate(expected, start=1):
        assert group.mul_base(n.to_bytes(32, "little")).hex() == hex_


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        (
            "Ristretto is traditionally a short shot of espresso coffee",
            "3066f82a1a747d45120d1740f14358531a8f04bbffe6a819f86dfe50f44a0a46",
        ),
        (
            "and is not a Ristretto as some believe.",
            "80bd07262511cdde4863f8a7434cef696750681cb9510eea557088f76d9e5065",
        ),
    ],
)
def test_hash_to_group_matches_rfc_9496(label: str, expected: str) -> None:
    assert group.from_hash(hashlib.sha512(label.encode()).digest()).hex() == expected


def test_point_and_scalar_validation() -> None:
    base = group.mul_base((1).to_bytes(32, "little"))
    assert group.is_valid_point(base)
    assert not group.is_valid_point(bytes(32))
    assert not group.is_valid_point(base[:31])
    assert not group.is_valid_point(bytes([0xFF]) * 32)
    assert group.is_valid_scalar((1).to_bytes(32, "little"))
    assert group.is_valid_scalar((L - 1).to_bytes(32, "little"))
    assert not group.is_valid_scalar(bytes(32))
    assert not group.is_valid_scalar(L.to_bytes(32, "little"))
    assert not group.is_valid_scalar(bytes(31))


def test_batch_inversion_agrees_with_single_inversions() -> None:
    rng = random.Random(5)
    scalars = [group.scalar_from_wide(rng.randbytes(64)) for _ in range(10)]
    assert group.batch_invert(scalars) == [group.scalar_invert(s) for s in scalars]
    assert group.batch_invert([]) == []
    one = (1).to_bytes(32, "little")
    assert all(group.scalar_mul(s, i) == one for s, i in zip(scalars, group.batch_invert(scalars), strict=True))


# -- card points ------------------------------------------------------------------------------


def test_card_points_are_hashed_from_canonical_ids() -> None:
    assert len(set(CARD_POINTS)) == 48
    for card in Card:
        digest = hashlib.sha512(b"p2p-koikoi/deal/v1/card\x00" + card.id.encode()).digest()
        assert card_point_input(card) == b"p2p-koikoi/deal/v1/card\x00" + card.id.encode()
        assert CARD_POINTS[card] == group.from_hash(digest)
        assert card_of_point(CARD_POINTS[card]) is card
        # never i*G
        assert CARD_POINTS[card] != group.mul_base((card + 1).to_bytes(32, "little"))
    assert card_of_point(group.mul_base((3).to_bytes(32, "little"))) is None


# -- derivations and commitments --------------------------------------------------------------


def test_a_contribution_depends_on_everything_it_binds() -> None:
    base = derive_contribution(SECRETS[0], CONTEXT, IDENTITY_KEYS[0])
    assert base == derive_contribution(SECRETS[0], CONTEXT, IDENTITY_KEYS[0])
    variants = [
        derive_contribution(SECRETS[1], CONTEXT, IDENTITY_KEYS[0]),
        derive_contribution(SECRETS[0], CONTEXT, IDENTITY_KEYS[1]),
        derive_contribution(SECRETS[0], DealContext(CONTEXT.match_id, CONTEXT.round + 1), IDENTITY_KEYS[0]),
        derive_contribution(SECRETS[0], DealContext(CONTEXT.match_id, CONTEXT.round, 1), IDENTITY_KEYS[0]),
        derive_contribution(SECRETS[0], DealContext(b"other", CONTEXT.round), IDENTITY_KEYS[0]),
    ]
    for other in variants:
        assert other.mask != base.mask and other.unlock_keys != base.unlock_keys
        assert other.permutation != base.permutation
    assert len(set(base.unlock_keys)) == 48


def test_a_commitment_binds_context_identity_and_secret() -> None:
    c = commitment(CONTEXT, IDENTITY_KEYS[0], SECRETS[0])
    assert len(c) == 32 and opens(CONTEXT, IDENTITY_KEYS[0], SECRETS[0], c)
    assert not opens(CONTEXT, IDENTITY_KEYS[1], SECRETS[0], c)  # nobody can open another's copy
    assert not opens(CONTEXT, IDENTITY_KEYS[0], SECRETS[1], c)
    coin = DealContext(CONTEXT.match_id, CONTEXT.round, CONTEXT.redeal, Purpose.COIN_FLIP)
    assert not opens(coin, IDENTITY_KEYS[0], SECRETS[0], c)
    assert binding(CONTEXT, IDENTITY_KEYS[0]) == (
        bytes([2, 0, 16]) + bytes(range(16)) + (3).to_bytes(4, "big") + bytes(4) + IDENTITY_KEYS[0]
    )


def test_derived_permutations_are_uniform() -> None:
    # The first Fisher-Yates draw (the card at position 47) is where a modulo bias would show:
    # taking a byte mod 48 without rejection would make 16 values 20% likelier, far over the bound.
    rng = random.Random(48)
    samples = 40000
    last = [0] * 48
    first = [0] * 48
    bound = binding(CONTEXT, IDENTITY_KEYS[0])
    for _ in range(samples):
        permutation = derive_permutation(rng.randbytes(32), bound)
        last[permutation[47]] += 1
        first[permutation.index(0)] += 1
    limit = chi_square_bound(47)
    assert chi_square(last) < limit
    assert chi_square(first) < limit
    naive = [0] * 48
    for _ in range(samples):
        naive[rng.randbytes(1)[0] % 48] += 1
    assert chi_square(naive) > limit  # the same test sees the bias we avoid


# -- messages ------------------------------------------------------------------------------------

points = st.binary(min_size=32, max_size=32)
position_sets = st.sets(st.integers(0, 47), min_size=1, max_size=48).map(lambda s: tuple(sorted(s)))


@given(st.one_of(points.map(Commit), points.map(Reveal)))
def test_fixed_messages_round_trip(message: Commit | Reveal) -> None:
    assert parse_message(message.to_bytes()) == message


@given(st.integers(1, 4), st.lists(points, max_size=50), st.binary(max_size=100))
def test_decks_round_trip(number: int, items: list[bytes], proof: bytes) -> None:
    deck = Deck(number, tuple(items), proof)
    data = deck.to_bytes()
    assert len(data) == 3 + 32 * len(items) + len(proof)
    assert parse_message(data) == deck


@given(position_sets, st.data())
def test_keys_and_shows_round_trip(positions: tuple[int, ...], data: st.DataObject) -> None:
    keys = tuple(data.draw(points) for _ in positions)
    cards = tuple(Card(data.draw(st.integers(0, 47))) for _ in positions)
    for message in (Keys(positions, keys), Show(positions, cards, keys)):
        assert parse_message(message.to_bytes()) == message


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x09" + bytes(32),  # unknown kind
        b"\x01" + bytes(31),  # short commit
        b"\x05" + bytes(33),  # long reveal
        b"\x02\x05\x01" + bytes(32),  # pass 5
        b"\x02\x01\x02" + bytes(63),  # fewer points than announced
        b"\x03\x00",  # no keys
        b"\x03\x02" + b"\x05" + bytes(32) + b"\x04" + bytes(32),  # positions not ascending
        b"\x03\x01" + b"\x30" + bytes(32),  # position 48
        b"\x03\x01" + b"\x01" + bytes(32) + b"\x00",  # trailing byte
        b"\x04\x01" + b"\x01\x30" + bytes(32),  # card 48
    ],
)
def test_malformed_bytes_are_rejected(data: bytes) -> None:
    with pytest.raises(MessageFormatError):
        parse_message(data)

"""Test vectors: from fixed secrets, every byte of every message of the deal.

The files in ``protocol/vectors/deal-*.json`` are what another implementation
checks itself against. Each names its inputs (context, identity keys,
secrets, deal pattern and the steps both players take) and lists every
derived value and every message, in hex. This test rebuilds each file from
its inputs and requires every byte to match.

To regenerate after a deliberate protocol change (which needs a new protocol
version): ``python tests/test_fairness_vectors.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from nacl.signing import SigningKey
from test_fairness_support import Pipe

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.engine.deal import DealPattern
from p2p_koikoi.engine.match import first_dealer_by_draw
from p2p_koikoi.engine.rules import FirstDealer
from p2p_koikoi.fairness import (
    DRAW_POSITIONS,
    CoinFlip,
    Commit,
    DealContext,
    Deck,
    FairDeal,
    Message,
    Purpose,
    coin_result,
    dealer_draw,
    parse_message,
)
from p2p_koikoi.fairness.cardpoints import CARD_DOMAIN, CARD_POINTS, card_point_input
from p2p_koikoi.fairness.commit import commitment
from p2p_koikoi.fairness.derive import PROTOCOL_VERSION, binding, derive_contribution
from p2p_koikoi.fairness.dleq import LockProof, LockStatement
from p2p_koikoi.fairness.passproof import check_pass, make_pass
from p2p_koikoi.fairness.shuffle_proof import (
    CHAIN_START,
    GENERATOR_DOMAIN,
    GENERATORS,
    ShuffleProof,
    ShuffleStatement,
    shuffle_challenges,
)
from p2p_koikoi.fairness.transcript import proof_nonces

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"

IDENTITY_SEEDS = ("11" * 32, "22" * 32)

SCENARIOS: dict[str, dict[str, Any]] = {
    "deal-round-8-8-8": {
        "description": "A round dealt 8-8-8 by seat 0: shuffle, table and hands, two draws, "
        "seat 1 plays a hand card, seat 0 shows two for a claim, both secrets revealed.",
        "context": {"match_id": "000102030405060708090a0b0c0d0e0f", "round": 3, "redeal": 0, "purpose": 0},
        "secrets": ["a0" * 32, "b0" * 32],
        "pattern": "8-8-8",
        "dealer_seat": 0,
        "steps": [
            ["shuffle"],
            ["reveal_table"],
            ["reveal_hand"],
            ["draw"],
            ["show", 1, [2]],
            ["draw"],
            ["show", 0, [17, 20]],
            ["reveal_secret"],
        ],
    },
    "deal-round-4-4-exchange": {
        "description": "A redeal of round 7 dealt 4-4 by seat 1 with the rulebook's hand exchange "
        "after the table opened, one draw, then the audit.",
        "context": {"match_id": "6b6f696b6f692d6d61746368", "round": 7, "redeal": 1, "purpose": 0},
        "secrets": [
            "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0",
            "fedcba98765432100123456789abcdeffedcba98765432100123456789abcdef",
        ],
        "pattern": "4-4",
        "dealer_seat": 1,
        "steps": [["shuffle"], ["reveal_table"], ["exchange_hands"], ["reveal_hand"], ["draw"], ["reveal_secret"]],
    },
    "deal-dealer-draw": {
        "description": "Each seat draws one card to decide the first dealer: seat s gets position s.",
        "context": {"match_id": "6b6f696b6f692d6d61746368", "round": 0, "redeal": 0, "purpose": 1},
        "secrets": ["31" * 32, "32" * 32],
        "pattern": "8-8-8",
        "dealer_seat": 0,
        "steps": [["shuffle"], ["reveal_initial"], ["reveal_secret"]],
    },
}

COIN = {
    "description": "The first-dealer coin flip: commit, reveal, dealer = (v0[0] XOR v1[0]) & 1. The messages "
    "are in the order a match writes them: seat 0's commit, seat 1's, seat 0's reveal, seat 1's.",
    "match_id": "6b6f696b6f692d6d61746368",
    "values": ["c4" * 32, "5d" * 32],
}


def identity_keys() -> tuple[bytes, bytes]:
    keys = [SigningKey(bytes.fromhex(seed)).verify_key.encode() for seed in IDENTITY_SEEDS]
    return keys[0], keys[1]


def message_json(seat: int, message: Message) -> dict[str, Any]:
    return {"from": seat, "kind": type(message).__name__, "hex": message.to_bytes().hex()}


def build_deal(name: str) -> dict[str, Any]:
    spec = SCENARIOS[name]
    ids = identity_keys()
    c = spec["context"]
    context = DealContext(bytes.fromhex(c["match_id"]), c["round"], c["redeal"], Purpose(c["purpose"]))
    secrets = tuple(bytes.fromhex(s) for s in spec["secrets"])
    pattern = DealPattern(spec["pattern"])
    if context.purpose is Purpose.DEALER_DRAW:
        sides = tuple(dealer_draw(context.match_id, s, ids, secrets[s]) for s in (0, 1))
    else:
        sides = tuple(
            FairDeal(context, s, ids, secrets[s], pattern=pattern, dealer_seat=spec["dealer_seat"]) for s in (0, 1)
        )
    pipe = Pipe(sides=(sides[0], sides[1]))
    for step in spec["steps"]:
        verb = step[0]
        if verb == "shuffle":
            pipe.shuffle()
        elif verb == "exchange_hands":
            for side in pipe.sides:
                side.exchange_hands()
        elif verb == "show":
            seat, positions = step[1], step[2]
            pipe.step(seat, pipe.sides[seat].show(positions))
        else:
            pipe.both(getattr(FairDeal, verb))
    assert pipe.reports[0] == pipe.reports[1]
    seats = []
    for seat in (0, 1):
        contribution = derive_contribution(secrets[seat], context, ids[seat])
        seats.append(
            {
                "seat": seat,
                "role": "A" if seat == 0 else "B",
                "identity_seed": IDENTITY_SEEDS[seat],
                "identity_key": ids[seat].hex(),
                "secret": secrets[seat].hex(),
                "binding": binding(context, ids[seat]).hex(),
                "commitment": commitment(context, ids[seat], secrets[seat]).hex(),
                "permutation": list(contribution.permutation),
                "mask": contribution.mask.hex(),
                "unlock_keys": [k.hex() for k in contribution.unlock_keys],
                "lock_factors": [f.hex() for f in contribution.lock_factors],
                "plan_hand": list(pipe.sides[seat].plan.hand(seat)) if context.purpose is Purpose.ROUND_DEAL else [],
                "learned": {str(p): card.id for p, card in sorted(pipe.learned[seat].items())},
            }
        )
    return {
        "name": name,
        "description": spec["description"],
        "protocol_version": PROTOCOL_VERSION,
        "group": "ristretto255",
        "context": {**spec["context"], "bytes": context.to_bytes().hex()},
        "pattern": spec["pattern"],
        "dealer_seat": spec["dealer_seat"],
        **(dealer_draw_result(pipe.reports[0].deck) if context.purpose is Purpose.DEALER_DRAW else {}),
        "steps": spec["steps"],
        "seats": seats,
        "messages": [message_json(seat, parse_message(data)) for seat, data in pipe.wire],
        "final_deck": [card.id for card in pipe.reports[0].deck],
    }


def dealer_draw_result(deck: Sequence[Card]) -> dict[str, Any]:
    """What a dealer draw decides, beside the layout parameters its deal is built with (GAME.md,
    "The first dealer"): ``dealer_seat`` there is not the result."""
    drawn = [deck[position] for position in DRAW_POSITIONS]
    return {
        "layout_note": "pattern and dealer_seat are only the layout parameters the deal is built with: a "
        "dealer draw opens positions 0 and 1 alone and uses neither. dealer_seat is not the first dealer; "
        "first_dealer is.",
        "first_dealer": {
            "drawn": [card.id for card in drawn],
            **{
                rule.value: first_dealer_by_draw(rule, *drawn)
                for rule in (FirstDealer.DRAW_MONTH, FirstDealer.DRAW_MONTH_RANK)
            },
        },
    }


def build_card_points() -> dict[str, Any]:
    return {
        "name": "deal-card-points",
        "description": "Card i is ristretto255 from_hash(SHA-512(domain || 0x00 || canonical id)).",
        "domain": CARD_DOMAIN.decode(),
        "cards": [
            {
                "index": int(card),
                "id": card.id,
                "hash_input": card_point_input(card).hex(),
                "sha512": hashlib.sha512(card_point_input(card)).hexdigest(),
                "point": CARD_POINTS[card].hex(),
            }
            for card in Card
        ],
    }


def build_coin() -> dict[str, Any]:
    ids = identity_keys()
    values = tuple(bytes.fromhex(v) for v in COIN["values"])
    sides = tuple(CoinFlip(bytes.fromhex(COIN["match_id"]), s, ids, values[s]) for s in (0, 1))
    wire: list[tuple[int, Message]] = []
    queue: list[tuple[int, Message]] = []
    for seat, side in enumerate(sides):
        queue += [(seat, m) for m in side.start().send]
    while queue:
        sender, message = queue.pop(0)
        wire.append((sender, message))
        step = sides[1 - sender].receive(message)
        queue += [(1 - sender, m) for m in step.send]
    assert sides[0].dealer == sides[1].dealer == coin_result(*values)
    # In the order a match's first-dealer stage writes them (SPEC.md section 5): the commitments, then
    # the reveals, seat 0 first each time.
    wire.sort(key=lambda item: (not isinstance(item[1], Commit), item[0]))
    return {
        "name": "deal-coin",
        "description": COIN["description"],
        "match_id": COIN["match_id"],
        "context_bytes": sides[0].context.to_bytes().hex(),
        "identity_keys": [k.hex() for k in ids],
        "values": COIN["values"],
        "messages": [message_json(seat, message) for seat, message in wire],
        "dealer": sides[0].dealer,
    }


PROOFS = {
    "description": (
        "One proof of each kind for fixed secrets: seat 0's shuffle pass 1 over the card points, seat 1's "
        "shuffle pass 2, then seat 0's lock pass 3 over deck 2. Every intermediate value, in hex."
    ),
    "context": {"match_id": "70726f6f662d766563746f7273", "round": 1, "redeal": 0, "purpose": 0},
    "secrets": ["0f" * 32, "f0" * 32],
}


def hexes(values: Any) -> list[str]:
    return [v.hex() for v in values]


def build_proofs() -> dict[str, Any]:
    ids = identity_keys()
    c = PROOFS["context"]
    context = DealContext(bytes.fromhex(c["match_id"]), c["round"], c["redeal"], Purpose(c["purpose"]))
    secrets = [bytes.fromhex(h) for h in PROOFS["secrets"]]
    mine = [derive_contribution(secrets[s], context, ids[s]) for s in (0, 1)]
    deck1 = make_pass(1, context, ids[0], mine[0], secrets[0], CARD_POINTS)
    deck2 = make_pass(2, context, ids[1], mine[1], secrets[1], deck1.points)
    deck3 = make_pass(3, context, ids[0], mine[0], secrets[0], deck2.points)
    proof = ShuffleProof.from_bytes(deck1.proof)
    statement = ShuffleStatement(binding(context, ids[0]), 1, CARD_POINTS, deck1.points)
    digest = statement.transcript(proof.gamma).digest()
    u, e = shuffle_challenges(statement, proof)
    lock = LockProof.from_bytes(deck3.proof)
    lock_statement = LockStatement(binding(context, ids[0]), 3, deck2.points, deck3.points)
    lock_digest = lock_statement.transcript(lock.locks).digest()
    return {
        "name": "deal-proofs",
        "description": PROOFS["description"],
        "protocol_version": PROTOCOL_VERSION,
        "context": {**c, "bytes": context.to_bytes().hex()},
        "identity_keys": hexes(ids),
        "secrets": PROOFS["secrets"],
        "generators": {
            "domain": GENERATOR_DOMAIN.decode(),
            "chain_start_h": CHAIN_START.hex(),
            "h": hexes(GENERATORS),
        },
        "shuffle": {
            "author": 0,
            "pass": 1,
            "binding": statement.binding.hex(),
            "permutation": list(mine[0].permutation),
            "mask": mine[0].mask.hex(),
            "inputs": "the 48 card points (deal-card-points.json)",
            "outputs": hexes(deck1.points),
            "statement_digest": digest.hex(),
            "nonces": hexes(proof_nonces(secrets[0], digest, 4 * 48 + 4)),
            "gamma": proof.gamma.hex(),
            "permutation_commitment_c": hexes(proof.c),
            "challenges_u": hexes(u),
            "commitment_chain_c_hat": hexes(proof.c_hat),
            "t": hexes(proof.t),
            "t_hat": hexes(proof.t_hat),
            "challenge_c": e.hex(),
            "s": hexes(proof.s),
            "s_hat": hexes(proof.s_hat),
            "s_prime": hexes(proof.s_prime),
            "message": deck1.to_bytes().hex(),
        },
        "second_shuffle_message": deck2.to_bytes().hex(),
        "lock": {
            "author": 0,
            "pass": 3,
            "binding": lock_statement.binding.hex(),
            "unlock_keys": hexes(mine[0].unlock_keys),
            "inputs": "deck 2: the points of second_shuffle_message",
            "outputs": hexes(deck3.points),
            "locks_X": hexes(lock.locks),
            "statement_digest": lock_digest.hex(),
            "nonces": hexes(proof_nonces(secrets[0], lock_digest, 48)),
            "challenge_c": lock.c.hex(),
            "s": hexes(lock.s),
            "message": deck3.to_bytes().hex(),
        },
    }


P = 2**255 - 19
GENERATOR = "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76"  # B, RFC 9496 A.1


def with_bit_255(hex_: str) -> str:
    encoding = bytes.fromhex(hex_)
    return (encoding[:31] + bytes([encoding[31] | 0x80])).hex()


def field_hex(n: int) -> str:
    return n.to_bytes(32, "little").hex()


# Each case: (name, hex, the step of RFC 9496 section 4.3.1 that refuses it or None, why). The verdicts
# follow from the step alone: a case decodes if no step refuses it, and is a valid point (deck points,
# Gamma, the lock commitments X) if it also is not the identity.
DECODING_CASES: list[tuple[str, str, int | None, str]] = [
    ("generator", GENERATOR, None, "B, RFC 9496 Appendix A.1: a valid point"),
    (
        "generator-bit-255",
        with_bit_255(GENERATOR),
        1,
        "B with bit 255 set: s >= 2^255 > p; a decoder that masks bit 255 reads B",
    ),
    ("identity", "00" * 32, None, "the identity: decodes, but is no valid point (a proof element may be it)"),
    ("identity-bit-255", with_bit_255("00" * 32), 1, "the identity with bit 255 set (00..80): s = 2^255 >= p"),
    ("identity-as-p", field_hex(P), 1, "s = p, a non-canonical spelling of the identity (0 mod p)"),
    (
        "non-canonical-even",
        field_hex(P + 6),
        1,
        "s = p + 6 >= p: even, and 6 is a valid encoding, so only the comparison with p refuses it",
    ),
    ("short", GENERATOR[:62], 1, "31 bytes"),
    ("negative-one", field_hex(1), 2, "s = 1: IS_NEGATIVE(s)"),
    (
        "negative-generator-root",
        field_hex(P - int.from_bytes(bytes.fromhex(GENERATOR), "little")),
        2,
        "s = p - s(B): the other root, odd, so IS_NEGATIVE(s)",
    ),
]

# RFC 9496 Appendix A.2, "Invalid encodings", by group, with the step of section 4.3.1 that refuses them.
RFC9496_INVALID: list[tuple[str, int, list[str]]] = [
    (
        "non-canonical field encoding",
        1,
        [
            "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        ],
    ),
    (
        "negative field element",
        2,
        [
            "0100000000000000000000000000000000000000000000000000000000000000",
            "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20",
            "c34c4e1826e5d403b78e246e88aa051c36ccf0aafebffe137d148a2bf9104562",
            "c940e5a4404157cfb1628b108db051a8d439e1a421394ec4ebccb9ec92a8ac78",
            "47cfc5497c53dc8e61c91d17fd626ffb1c49e2bca94eed052281b510b1117a24",
            "f1c6165d33367351b0da8f6e4511010c68174a03b6581212c71c0e1d026c3c72",
            "87260f7a2f12495118360f02c26a470f450dadf34a413d21042b43b9d93e1309",
        ],
    ),
    (
        "non-square x^2",
        4,
        [
            "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
            "4eac077a713c57b4f4397629a4145982c661f48044dd3f96427d40b147d9742f",
            "de6a7b00deadc788eb6b6c8d20c0ae96c2f2019078fa604fee5b87d6e989ad7b",
            "bcab477be20861e01e4a0e295284146a510150d9817763caf1a6f4b422d67042",
            "2a292df7e32cababbd9de088d1d1abec9fc0440f637ed2fba145094dc14bea08",
            "f4a9e534fc0d216c44b218fa0c42d99635a0127ee2e53c712f70609649fdff22",
            "8268436f8c4126196cf64b3c7ddbda90746a378625f9813dd9b8457077256731",
            "2810e5cbc2cc4d4eece54f61c6f69758e289aa7ab440b3cbeaa21995c2f4232b",
        ],
    ),
    (
        "negative xy",
        4,
        [
            "3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e",
            "a45fdc55c76448c049a1ab33f17023edfb2be3581e9c7aade8a6125215e04220",
            "d483fe813c6ba647ebbfd3ec41adca1c6130c2beeee9d9bf065c8d151c5f396e",
            "8a2e1d30050198c65a54483123960ccc38aef6848e1ec8f5f780e8523769ba32",
            "32888462f8b486c68ad7dd9610be5192bbeaf3b443951ac1a8118419d9fa097b",
            "227142501b9d4355ccba290404bde41575b037693cef1f438c47f8fbf35d1165",
            "5c37cc491da847cfeb9281d407efc41e15144c876e0170b499a96a22ed31e01e",
            "445425117cb8c90edcbc7c1cc0e74f747f2c1efa5630a967c64f287792a48a4b",
        ],
    ),
    ("s = -1, which gives y = 0", 4, ["ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"]),
]


def decoding_case(name: str, hex_: str, step: int | None, why: str) -> dict[str, Any]:
    return {
        "name": name,
        "hex": hex_,
        "refused_at_step": step,
        "decodes": step is None,
        "valid_point": step is None and hex_ != "00" * 32,
        "why": why,
    }


def build_ristretto_decoding() -> dict[str, Any]:
    invalid = [
        decoding_case(f"rfc9496-a2-{n}", hex_, step, kind)
        for n, (kind, step, hex_) in enumerate(
            (kind, step, hex_) for kind, step, encodings in RFC9496_INVALID for hex_ in encodings
        )
    ]
    return {
        "name": "ristretto-decoding",
        "description": "Which byte strings a received point may be (DEAL.md section 1). RFC 9496 section 4.3.1 "
        "(Decode): step 1, the string is 32 bytes and its little-endian integer s is < p = 2^255 - 19 (bit 255 is "
        "not masked); step 2, s is not negative (s is even); steps 3 and 4, the square root exists, t is not "
        "negative and y is not 0. decodes: the RFC's decoding accepts it (what a proof element must do; it may be "
        "the identity). valid_point: it decodes and is not the identity (what a deck point, Gamma and a lock "
        "commitment X must do). refused_at_step: the first step that refuses it. A deck point that is not a valid "
        "point is invalid-point; a proof element that does not decode makes the proof malformed "
        "(bad-shuffle-proof, bad-lock-proof). The libsodium that rbcl 1.1 bundles ignores bit 255: it accepts "
        "generator-bit-255 and identity-bit-255.",
        "p": field_hex(P),
        "cases": [decoding_case(*case) for case in DECODING_CASES],
        "rfc9496_invalid": invalid,
    }


def build_all() -> dict[str, dict[str, Any]]:
    built = {name: build_deal(name) for name in SCENARIOS}
    built["deal-proofs"] = build_proofs()
    built["deal-card-points"] = build_card_points()
    built["deal-coin"] = build_coin()
    built["ristretto-decoding"] = build_ristretto_decoding()
    return built


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def test_every_vector_file_is_reproduced_byte_for_byte() -> None:
    built = build_all()
    on_disk = sorted(path.stem for pattern in ("deal-*.json", "ristretto-*.json") for path in VECTORS.glob(pattern))
    assert on_disk == sorted(built)
    for name, data in built.items():
        stored = json.loads((VECTORS / f"{name}.json").read_text())
        assert stored == data, name


def test_vector_messages_parse_and_reencode() -> None:
    for path in VECTORS.glob("deal-*.json"):
        for entry in json.loads(path.read_text()).get("messages", []):
            data = bytes.fromhex(entry["hex"])
            message = parse_message(data)
            assert type(message).__name__ == entry["kind"] and message.to_bytes() == data


def test_the_proof_vectors_check_out_on_their_own() -> None:
    """What another implementation does with deal-proofs.json: check each pass and its proof."""
    stored = json.loads((VECTORS / "deal-proofs.json").read_text())
    c = stored["context"]
    context = DealContext(bytes.fromhex(c["match_id"]), c["round"], c["redeal"], Purpose(c["purpose"]))
    ids = identity_keys()
    first, second, third = (
        parse_message(bytes.fromhex(data))
        for data in (stored["shuffle"]["message"], stored["second_shuffle_message"], stored["lock"]["message"])
    )
    assert isinstance(first, Deck) and isinstance(second, Deck) and isinstance(third, Deck)
    check_pass(context, ids[0], first, CARD_POINTS)
    check_pass(context, ids[1], second, first.points)
    check_pass(context, ids[0], third, second.points)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_vector_transcripts_audit_clean(name: str) -> None:
    from p2p_koikoi.fairness import audit_transcript

    stored = json.loads((VECTORS / f"{name}.json").read_text())
    c = stored["context"]
    context = DealContext(bytes.fromhex(c["match_id"]), c["round"], c["redeal"], Purpose(c["purpose"]))
    transcript = [(m["from"], parse_message(bytes.fromhex(m["hex"]))) for m in stored["messages"]]
    report = audit_transcript(context, identity_keys(), transcript)
    assert [card.id for card in report.deck] == stored["final_deck"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_fairness_vectors.py --write")
    VECTORS.mkdir(parents=True, exist_ok=True)
    for name, data in build_all().items():
        (VECTORS / f"{name}.json").write_text(dump(data))
        print(f"wrote {VECTORS / name}.json")

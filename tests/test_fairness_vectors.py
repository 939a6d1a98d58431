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


def build_all() -> dict[str, dict[str, Any]]:
    built = {name: build_deal(name) for name in SCENARIOS}
    built["deal-proofs"] = build_proofs()
    built["deal-card-points"] = build_card_points()
    built["deal-coin"] = build_coin()
    return built


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def test_every_vector_file_is_reproduced_byte_for_byte() -> None:
    built = build_all()
    on_disk = sorted(path.stem for path in VECTORS.glob("deal-*.json"))
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

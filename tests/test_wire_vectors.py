"""protocol/vectors/wire-match.json: every byte of the wire reproduced from fixed keys and secrets."""

from __future__ import annotations

import json
from pathlib import Path

from p2p_koikoi.testing import wire_vectors
from p2p_koikoi.wire import Chain, match_id_of, parse_frame

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "wire-match.json"


def test_the_code_reproduces_the_vectors_byte_for_byte() -> None:
    assert wire_vectors() == json.loads(VECTORS.read_text()), (
        "regenerate with: python -m p2p_koikoi.testing > protocol/vectors/wire-match.json"
    )


def test_the_vectors_check_out_on_their_own() -> None:
    """What another implementation would do with the file: parse each frame, check the chain."""
    data = json.loads(VECTORS.read_text())
    keys = tuple(bytes.fromhex(k) for k in data["public_keys"])
    nonces = tuple(bytes.fromhex(n) for n in data["nonces"])
    assert match_id_of(keys, nonces).hex() == data["match_id"]  # type: ignore[arg-type]
    chain = Chain(bytes.fromhex(data["match_id"]), keys)  # type: ignore[arg-type]
    for item in data["entries"]:
        frame = bytes.fromhex(item["frame"])
        assert int.from_bytes(frame[:4], "big") == len(frame) - 4
        signed = parse_frame(frame[4:])
        assert signed.data.hex() == item["entry"] and signed.digest.hex() == item["digest"]  # type: ignore[union-attr]
        chain.append_remote(signed, item["author"])  # type: ignore[arg-type]


def test_the_deal_secrets_derive_from_the_master_secrets() -> None:
    """SPEC.md section 8: a deal's secret is HKDF-SHA256 of the master secret, with the context as info."""
    from cryptography.hazmat.primitives.hashes import SHA256
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    data = json.loads(VECTORS.read_text())
    masters = [bytes.fromhex(m) for m in data["master_secrets"]]
    assert len(data["deal_secrets"]) >= 3
    for item in data["deal_secrets"]:
        info = bytes.fromhex(item["context_bytes"])
        for master, secret in zip(masters, item["secrets"], strict=True):
            hkdf = HKDF(algorithm=SHA256(), length=32, salt=b"p2p-koikoi/session-secrets/v1", info=info)
            assert hkdf.derive(master).hex() == secret


def test_every_entry_of_the_match_is_in_the_vectors_and_the_referee_finishes_it() -> None:
    from p2p_koikoi.referee import Ending, Referee, SpectatorKnowledge

    data = json.loads(VECTORS.read_text())
    assert len(data["entries"]) == data["entry_count"]
    referee = Referee(SpectatorKnowledge())
    for item in data["entries"]:
        referee.feed(parse_frame(bytes.fromhex(item["frame"])[4:]))  # type: ignore[arg-type]
    assert referee.end is not None and referee.end.how is Ending.FINISHED

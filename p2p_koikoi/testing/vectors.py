"""The byte-exact vectors of a whole match (``protocol/vectors/wire-match.json``), made again from fixed
keys and secrets."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing.sessions import SessionPair, deterministic_entropy, pipe_sessions
from p2p_koikoi.wire import public_bytes


def wire_vectors(entries_shown: int | None = None) -> dict[str, object]:
    """The wire test vectors: a whole 3-round ``lemme`` match between two seeded random bots, from fixed
    keys, nonces and secrets. Every byte is reproducible; ``protocol/vectors/wire-match.json`` holds them."""
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from p2p_koikoi.bots import RandomAgent
    from p2p_koikoi.engine import preset
    from p2p_koikoi.fairness import DealContext, Purpose
    from p2p_koikoi.fairness.coin import coin_context
    from p2p_koikoi.record.identity_names import fingerprint
    from p2p_koikoi.referee import deal_secret
    from p2p_koikoi.session.match_session import SOFTWARE
    from p2p_koikoi.wire import VERSION, Hello, encode
    from p2p_koikoi.wire.frames import Answer, Rematch

    seeds = (bytes(range(32)), bytes(range(32, 64)))
    keys = (Ed25519PrivateKey.from_private_bytes(seeds[0]), Ed25519PrivateKey.from_private_bytes(seeds[1]))
    entropy = deterministic_entropy(b"p2p-koikoi wire vectors")
    nonces = (entropy(32), entropy(32))
    rules = preset("lemme").with_option("rounds", "3")
    masters = (entropy(32), entropy(32))
    host = MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=masters[0], name="Hana")
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=masters[1], name="Tarō")
    contexts = {
        "coin": coin_context(host.match_id),
        "dealer draw 0": DealContext(host.match_id, 0, 0, Purpose.DEALER_DRAW),
        "round 1": DealContext(host.match_id, 1, 0),
        "round 2": DealContext(host.match_id, 2, 0),
    }
    pair = SessionPair(host, guest, keys)
    error = pipe_sessions(pair, (RandomAgent(1), RandomAgent(2)))
    assert error is None, error
    chain = host.chain.entries
    assert keys[0].private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()) == seeds[0]
    return {
        "description": "A 3-round lemme match between RandomAgent(1) (host, named Hana) and RandomAgent(2) "
        "(guest, named Tarō), "
        "master secrets from p2p_koikoi.testing.deterministic_entropy(b'p2p-koikoi wire vectors'), driven by "
        "p2p_koikoi.testing.pipe_sessions. "
        "Regenerate with: python -m p2p_koikoi.testing > protocol/vectors/wire-match.json",
        "private_keys": [s.hex() for s in seeds],
        "public_keys": [public_bytes(k).hex() for k in keys],
        "fingerprints": [fingerprint(public_bytes(k)) for k in keys],
        "nonces": [n.hex() for n in nonces],
        "match_id": host.match_id.hex(),
        "hello_frames": [
            encode(Hello(VERSION, public_bytes(keys[0]), nonces[0], SOFTWARE)).hex(),
            encode(Hello(VERSION, public_bytes(keys[1]), nonces[1], SOFTWARE)).hex(),
        ],
        "master_secrets": [m.hex() for m in masters],
        "deal_secrets": [
            {
                "context": name,
                "context_bytes": context.to_bytes().hex(),
                "secrets": [deal_secret(m, context).hex() for m in masters],
            }
            for name, context in contexts.items()
        ],
        "rematch_frames": {  # SPEC.md section 9: after this match, each side's answer about another
            answer.value: encode(Rematch(host.match_id, answer)).hex() for answer in Answer
        },
        "entry_count": len(chain),
        "head": host.chain.head.hex(),
        "entries": [
            {
                "seq": e.entry.seq,
                "author": e.entry.author,
                "kind": e.entry.kind,
                "entry": e.data.hex(),
                "signature": e.signature.hex(),
                "digest": e.digest.hex(),
                "frame": encode(e).hex(),
            }
            for e in chain[:entries_shown]
        ],
        "outcome": {
            "points": list(host.match.points) if host.match is not None else None,
            "rounds": len(host.match.results) if host.match is not None else 0,
        },
    }

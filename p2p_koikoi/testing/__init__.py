"""Test helpers we ship, as trio ships ``trio.testing``.

- ``pairs``: two peers playing a whole match through the runner over any streams (:func:`match_pair`);
- ``sessions``: two sessions piped in memory (:func:`pipe_sessions`), seeded entropy;
- ``streams``: a stream that trickles bytes; a TCP proxy that cuts a connection at a chosen point;
- ``processes``: real ``koikoi`` processes (environment, free port, waiting for a listener);
- ``vectors``: the byte-exact vectors of a whole match;
- ``adversary``: cheating peers built from our own session with one step altered, and the duel that
  plays one against the honest program.
"""

from p2p_koikoi.testing.pairs import PlayedPair, match_pair
from p2p_koikoi.testing.processes import KOIKOI, free_port, join_bot, koikoi_env, spawn_host, wait_listening
from p2p_koikoi.testing.sessions import SessionPair, decide, deterministic_entropy, pipe_sessions, session_pair
from p2p_koikoi.testing.streams import CuttingProxy, TrickleStream, trickle_stream_pair
from p2p_koikoi.testing.vectors import wire_vectors

__all__ = [
    "KOIKOI",
    "CuttingProxy",
    "PlayedPair",
    "SessionPair",
    "TrickleStream",
    "decide",
    "deterministic_entropy",
    "free_port",
    "join_bot",
    "koikoi_env",
    "match_pair",
    "pipe_sessions",
    "session_pair",
    "spawn_host",
    "trickle_stream_pair",
    "wait_listening",
    "wire_vectors",
]

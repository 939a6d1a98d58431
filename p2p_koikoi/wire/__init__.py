"""The wire: frames, canonical msgpack, signed hash-chained entries, and their schemas (no I/O)."""

from p2p_koikoi.wire.chain import Chain, match_id_of
from p2p_koikoi.wire.entry import SIGN_DOMAIN, VERSION, Entry, SignedEntry, public_bytes
from p2p_koikoi.wire.errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from p2p_koikoi.wire.frames import Frame, Hello, Ping, Pong, encode, parse_frame
from p2p_koikoi.wire.framing import MAX_FRAME, FrameDecoder, encode_frame

__all__ = [
    "MAX_FRAME",
    "SIGN_DOMAIN",
    "VERSION",
    "Chain",
    "Entry",
    "Frame",
    "FrameDecoder",
    "Hello",
    "LocalProtocolError",
    "Ping",
    "Pong",
    "ProtocolError",
    "RemoteProtocolError",
    "SignedEntry",
    "encode",
    "encode_frame",
    "match_id_of",
    "parse_frame",
    "public_bytes",
]

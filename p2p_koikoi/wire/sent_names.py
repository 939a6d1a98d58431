"""The names the two seats sent in the match setup: the host's in entry 0 (``match``), the guest's in
entry 1 (``accept``). Read from the entries themselves, so a record, a live seat and ``koikoi verify``
all see the one signed name, or None where a seat sent none (or the guest never accepted).

A name is only what its key says it is called: the screens put it next to the key and never use it
to find one (issue 29 item 2).
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p_koikoi.wire.bodies import AcceptBody, MatchBody
from p2p_koikoi.wire.entry import SignedEntry
from p2p_koikoi.wire.errors import RemoteProtocolError

__all__ = ["sent_names"]


def sent_names(entries: Sequence[SignedEntry]) -> tuple[str | None, str | None]:
    """(host's name, guest's name) as sent; None for a seat that sent none or whose entry is missing."""
    return _name(entries, 0, MatchBody), _name(entries, 1, AcceptBody)


def _name(entries: Sequence[SignedEntry], seq: int, kind: type[MatchBody] | type[AcceptBody]) -> str | None:
    if len(entries) <= seq or entries[seq].entry.kind != kind.KIND:
        return None
    try:
        body = entries[seq].entry.content
    except RemoteProtocolError:
        return None
    return body.name if isinstance(body, kind) else None

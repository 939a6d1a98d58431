"""A record's header in words, for ``koikoi verify``: told as what it is, the writer's own say-so.

No signature covers the header (protocol/RECORD.md section 2): its time, peer address and software are
what the writing program put in the file, and anyone with the file can change them without a signature
failing. So verify shows them apart from what it checked, marked unsigned, and rules on nothing in them.
"""

from __future__ import annotations

import time

from p2p_koikoi.record.verify import VerifyReport

__all__ = ["header_line"]

_ROLE = ("the host", "the guest")


def header_line(report: VerifyReport) -> str | None:
    """The header's line of a record's report (None for a transcript or a file with no header)."""
    header = report.header
    if header is None:
        return None
    begun = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(header.created))
    peer = f"peer {header.peer_address}" if header.peer_address else "no peer address"
    return (
        f"  unsigned header (its writer's say-so: no signature covers it, nothing was checked against it):"
        f" {_ROLE[header.writer_seat]}'s copy, begun {begun} by {header.software or 'unnamed software'}, {peer}"
    )

"""TCP hole punching: both sides connect to each other at once, each from the local port its STUN mapping
came from, so that each NAT sees an outgoing connection and lets the other's SYN in (a TCP
simultaneous open, RFC 9293 section 3.5).

Each side knows the other's public endpoint from the codes (the invite carries the host's, the answer
the guest's). The guest starts as soon as it has the host's: its SYNs open its own NAT's mapping toward
the host, and are dropped by the host's NAT until the host, given the answer code, sends its own; that
SYN finds the guest's mapping open and crosses, and the two SYNs make one connection. A NAT that maps
each destination to a new port (endpoint-dependent, "symmetric") defeats it: the ports in the codes are
not the ones the SYNs leave from.

Each attempt is one ``connect`` (the kernel retransmits the SYN meanwhile); one that fails (refused,
unreachable, timed out) is made again after a pause, until the deadline. The first connection made is
the punch's; the greeting then decides, as on every path, whether it reached the key the code named.
"""

from __future__ import annotations

import errno
import socket

import trio

from p2p_koikoi.net.stun import bound_socket

__all__ = ["ATTEMPT", "PAUSE", "simultaneous_open"]

ATTEMPT = 5.0  # one connect's patience: SYNs retransmitted at 1 and 3 s within it
PAUSE = 0.2  # between a failed attempt and the next


async def simultaneous_open(
    local_port: int, peer: tuple[str, int], *, deadline: float, attempt: float = ATTEMPT
) -> trio.SocketStream:
    """A TCP connection from ``local_port`` to ``peer``, tried until ``deadline`` (Trio time), each socket
    for ``attempt`` s; raises :class:`OSError` (``ETIMEDOUT``) when none was made by then."""
    family = socket.AF_INET6 if ":" in peer[0] else socket.AF_INET
    last: OSError | None = None
    while trio.current_time() < deadline:
        sock = bound_socket(family, local_port)
        try:
            await sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", local_port))
            with trio.move_on_at(min(deadline, trio.current_time() + attempt)):
                await sock.connect(peer)
                return trio.SocketStream(sock)
            last = OSError(errno.ETIMEDOUT, "no answer to the punch")
        except OSError as exc:
            last = exc
        except BaseException:
            sock.close()
            raise
        sock.close()
        await trio.sleep(PAUSE)
    raise last or OSError(errno.ETIMEDOUT, "no answer to the punch")

"""A wire between two network namespaces that holds every frame for a few milliseconds, in user space.

The NAT tests' links are where simultaneous sends meet: a punch's two SYNs, the spray's guesses, a
relay's allocation. Over a bare veth they cross in microseconds, far faster than over any real internet
path, so a punch could pass here that would miss between two homes. The usual tool, ``tc qdisc netem``,
needs a kernel module that machines like CI's may lack, so this is the other way: each end of the
link is a TAP device, made here and moved into its namespace, and this process copies every Ethernet
frame from one end to the other after ``--delay-ms`` (ARP and neighbour discovery included: to the two
namespaces it is a plain cable, only slower).

    python tests/delay_link.py --delay-ms 5 DEV1 NS1 DEV2 NS2

It prints ``ready`` once both ends are in their namespaces, and runs until its standard input closes
(the test that started it ended, however it ended) or it is terminated. A constant delay keeps each
direction in order; a direction holding more than ``QUEUE_LIMIT`` frames drops new ones, as a full
router queue would, so memory stays bounded under a flood.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fcntl
import os
import select
import struct
import subprocess
import sys
import time

TUNSETIFF = 0x400454CA  # _IOW('T', 202, int): attach this file to a named TUN/TAP device
IFF_TAP = 0x0002  # Ethernet frames, not IP packets: ARP and neighbour discovery cross too
IFF_NO_PI = 0x1000  # no packet-information header before each frame
QUEUE_LIMIT = 4096  # frames held per direction
FRAME_MAX = 65536


def open_tap(name: str) -> int:
    """A new TAP device called ``name`` in this namespace, and the file its frames are read and written on."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


class Direction:
    """Frames read from one end, each written to the other end once its delay has passed."""

    def __init__(self, source: int, sink: int, delay: float) -> None:
        self.source, self.sink, self.delay = source, sink, delay
        self.held: collections.deque[tuple[float, bytes]] = collections.deque()

    def take(self, now: float) -> None:
        """Read every frame waiting at the source (each a whole frame: a TAP read never splits one)."""
        while True:
            try:
                frame = os.read(self.source, FRAME_MAX)
            except BlockingIOError:
                return
            except OSError:  # the device went away with its namespace
                return
            if not frame:
                return
            if len(self.held) < QUEUE_LIMIT:
                self.held.append((now + self.delay, frame))

    def give(self, now: float) -> float | None:
        """Write the frames that are due; the time the next one is due, or None when none is held."""
        while self.held and self.held[0][0] <= now:
            _, frame = self.held.popleft()
            with contextlib.suppress(OSError):  # the far end is down or full: the frame is lost, as on a wire
                os.write(self.sink, frame)
        return self.held[0][0] if self.held else None


def forward(ends: tuple[int, int], delay: float) -> None:
    """Copy frames both ways until standard input closes."""
    directions = {ends[0]: Direction(ends[0], ends[1], delay), ends[1]: Direction(ends[1], ends[0], delay)}
    poller = select.poll()
    for fd in (*ends, sys.stdin.fileno()):
        poller.register(fd, select.POLLIN)
    due: float | None = None
    while True:
        now = time.monotonic()
        wait_ms = -1 if due is None else max(0, int((due - now) * 1000) + 1)
        for fd, _ in poller.poll(wait_ms):
            if fd == sys.stdin.fileno():
                return
            directions[fd].take(time.monotonic())
        now = time.monotonic()
        times = [t for t in (d.give(now) for d in directions.values()) if t is not None]
        due = min(times) if times else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay-ms", type=float, required=True)
    parser.add_argument("ends", nargs=4, metavar="DEV NS")
    args = parser.parse_args()
    dev1, ns1, dev2, ns2 = args.ends
    fds = open_tap(dev1), open_tap(dev2)
    for dev, ns in ((dev1, ns1), (dev2, ns2)):
        subprocess.run(["ip", "link", "set", dev, "netns", ns], check=True, timeout=20)
    print("ready", flush=True)
    forward(fds, args.delay_ms / 1000)


if __name__ == "__main__":
    main()

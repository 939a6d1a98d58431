"""Knocking again: a guest whose host was busy retries with back-off, for up to 30 s in all.

A host whose door is full of connections that have not greeted pushes the oldest out, and one whose
greeted half is full turns a newcomer away; either way it resets the connection (TCP RST) before
greeting (:mod:`p2p_koikoi.net.door`). A guest takes the reset as "busy, come back": a flood's
slots churn, and a connection that knocks again soon gets one. An orderly close before greeting is
a refusal (``--guest``, the invite token), which knocking again would not change, so it is not
retried; nor is anything else :func:`~p2p_koikoi.net.tcp.dial_any` reports.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.tcp import Address, CouldNotJoin, Pin, dial_any

__all__ = ["BACKOFF", "PATIENCE", "dial_patiently"]

PATIENCE = 30.0
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0)  # then 8 s apart: knocks at 0, 0.5, 1.5, 3.5, 7.5, 15.5, 23.5 s


async def dial_patiently(
    addresses: list[Address],
    key: bytes,
    pin: Pin | None,
    *,
    timeout: float,
    say: Callable[[str], None],
    patience: float = PATIENCE,
) -> tuple[FramedChannel, Greeting, Address]:
    """:func:`dial_any`, again and again while the host is busy, for up to ``patience`` seconds from
    the first busy answer; says so once, in one line. The last failure is raised as it was, with how
    long it was tried."""
    give_up_at: float | None = None
    attempt = 0
    while True:
        left = timeout if give_up_at is None else min(timeout, give_up_at - trio.current_time())
        try:
            return await dial_any(addresses, key, pin, timeout=max(left, 0.1))
        except CouldNotJoin as exc:
            if not exc.busy:
                raise
            if give_up_at is None:
                give_up_at = trio.current_time() + patience
                say(f"The host is busy (it reset the connection before greeting): trying again for {patience:g} s...")
            pause = BACKOFF[min(attempt, len(BACKOFF) - 1)]
            if trio.current_time() + pause >= give_up_at:
                raise CouldNotJoin(f"{exc} (tried again for {patience:g} s)", exc.failures) from None
            await trio.sleep(pause)
            attempt += 1

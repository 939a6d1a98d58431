"""Seat 0's first pass of the next deal, made while the current round is played.

Pass 1 (seat 0's mask and shuffle of the card points, with its proof) is the
one pass that depends on nothing the other seat sends: only on seat 0's
secret for that deal and the deal's context. Seat 0 derives every secret
from its master secret by context, so as soon as a round's deck is locked it
knows the secret of the next round's first deal and can make that pass, and
prove it, on a background thread while the round is played. When the next
deal starts, the pass is ready: about 20 ms per round comes off the time in
which the other seat waits.

Nothing changes on the wire or in the record: :func:`make_pass` is a pure
function, and :meth:`PassAhead.take` hands back a deck only if it was made
for exactly the context, identity and secret asked for (a redeal, a restored
session or a test's other secret simply computes the pass as before). A pass
made for a round that never comes (the match ends) is dropped.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from concurrent.futures import Future

from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import DealContext, Purpose, derive_contribution
from p2p_koikoi.fairness.messages import Deck
from p2p_koikoi.fairness.passproof import make_pass
from p2p_koikoi.fairness.spread import Worker

__all__ = ["PassAhead", "next_round"]

_background = Worker("p2p-koikoi-ahead")


def next_round(context: DealContext) -> DealContext:
    """The context of the first deal of the round after ``context``'s."""
    return DealContext(context.match_id, context.round + 1, 0, Purpose.ROUND_DEAL)


def _first_pass(context: DealContext, identity: bytes, secret: bytes) -> Deck:
    contribution = derive_contribution(secret, context, identity)
    return make_pass(1, context, identity, contribution, secret, CARD_POINTS)


class PassAhead:
    """One seat-0 pass 1 in the making at a time, for the deal its owner will most likely play next."""

    def __init__(self, identity: bytes, secret_for: Callable[[DealContext], bytes]) -> None:
        self._identity = identity
        self._secret_for = secret_for
        self._pending: tuple[tuple[DealContext, bytes], Future[Deck]] | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> PassAhead:
        """A copy of a seat (tests fork whole sessions) starts with nothing in the making: it is only a cache."""
        return PassAhead(self._identity, copy.deepcopy(self._secret_for, memo))

    def prepare(self, context: DealContext) -> None:
        """Start making pass 1 of ``context`` in the background (replacing any pass in the making)."""
        secret = self._secret_for(context)
        future = _background.submit(_first_pass, context, self._identity, secret)
        self._pending = ((context, secret), future)

    def finish(self) -> None:
        """Wait until the pass in the making, if any, is made (a benchmark keeps it out of its clock)."""
        if self._pending is not None:
            self._pending[1].result()

    def take(self, context: DealContext, identity: bytes, secret: bytes) -> Deck | None:
        """The pass made for exactly this deal and secret (waiting for it if need be), or ``None``."""
        pending, self._pending = self._pending, None
        if pending is None or identity != self._identity or pending[0] != (context, secret):
            return None
        return pending[1].result()

"""Shared helpers of the fairness tests: two FairDeal sides piped in memory.

Every message crosses as bytes (``to_bytes`` then ``parse_message``), as it
will on the wire. A cheater is an honest state machine whose outgoing messages
a ``tamper`` function alters (one step altered, as DESIGN.md asks); the
cheater's own state machine is then out of step with what it sent, so errors
it raises are recorded and it goes quiet, while errors of the honest side
propagate to the test.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from nacl.signing import SigningKey

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.engine.deal import DealPattern
from p2p_koikoi.fairness import (
    AuditReport,
    CheatingDetected,
    DealContext,
    FairDeal,
    Message,
    Phase,
    Step,
    parse_message,
)

IDENTITY_KEYS: tuple[bytes, bytes] = (
    SigningKey(bytes([0x11]) * 32).verify_key.encode(),
    SigningKey(bytes([0x22]) * 32).verify_key.encode(),
)
CONTEXT = DealContext(match_id=bytes(range(16)), round=3, redeal=0)
SECRETS: tuple[bytes, bytes] = (bytes([0xA0]) * 32, bytes([0xB0]) * 32)

Tamper = Callable[[int, Message], Message | None]


class Pipe:
    """Two sides of one deal, with an in-memory link between them."""

    def __init__(
        self,
        secrets: tuple[bytes, bytes] = SECRETS,
        *,
        context: DealContext = CONTEXT,
        pattern: DealPattern = DealPattern.EIGHT,
        dealer_seat: int = 0,
        tamper: Tamper | None = None,
        cheater: int | None = None,
        sides: tuple[FairDeal, FairDeal] | None = None,
    ) -> None:
        self.sides = sides or (
            FairDeal(context, 0, IDENTITY_KEYS, secrets[0], pattern=pattern, dealer_seat=dealer_seat),
            FairDeal(context, 1, IDENTITY_KEYS, secrets[1], pattern=pattern, dealer_seat=dealer_seat),
        )
        self.tamper = tamper
        self.cheater = cheater
        self.cheater_error: CheatingDetected | None = None
        self.learned: tuple[dict[int, Card], dict[int, Card]] = ({}, {})
        self.reports: dict[int, AuditReport] = {}
        self.wire: list[tuple[int, bytes]] = []  # every message sent, as bytes
        self._queue: deque[tuple[int, Message]] = deque()

    def step(self, seat: int, step: Step) -> None:
        """Take what a local call on ``seat`` produced, and deliver until quiet."""
        self._absorb(seat, step)
        self.flush()

    def flush(self) -> None:
        while self._queue:
            sender, message = self._queue.popleft()
            receiver = 1 - sender
            if receiver == self.cheater and self.cheater_error is not None:
                continue
            try:
                step = self.sides[receiver].receive(parse_message(message.to_bytes()))
            except CheatingDetected as error:
                if receiver != self.cheater:
                    raise
                self.cheater_error = error
                continue
            self._absorb(receiver, step)

    def _absorb(self, seat: int, step: Step) -> None:
        for learned in step.learned:
            self.learned[seat][learned.position] = learned.card
        if step.report is not None:
            self.reports[seat] = step.report
        for message in step.send:
            if self.tamper is not None and seat == self.cheater:
                altered = self.tamper(seat, message)
                if altered is None:
                    continue
                message = altered
            self.wire.append((seat, message.to_bytes()))
            self._queue.append((seat, message))

    # -- the usual calls, on both sides ---------------------------------------------

    def both(self, call: Callable[[FairDeal], Step]) -> None:
        steps = [call(side) if side.phase is not Phase.FAILED else Step() for side in self.sides]
        for seat in (0, 1):
            self._absorb(seat, steps[seat])
        self.flush()

    def shuffle(self) -> None:
        self.both(FairDeal.start)

    def initial(self) -> None:
        self.both(FairDeal.reveal_initial)

    def draw(self) -> None:
        self.both(FairDeal.draw)

    def audit(self) -> None:
        self.both(FairDeal.reveal_secret)


def honest_round(**kwargs: object) -> Pipe:
    """A whole honest round: shuffle, initial reveals, three draws, audit."""
    pipe = Pipe(**kwargs)  # type: ignore[arg-type]
    pipe.shuffle()
    pipe.initial()
    for _ in range(3):
        pipe.draw()
    pipe.audit()
    return pipe

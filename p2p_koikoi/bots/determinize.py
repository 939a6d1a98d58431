"""Guess the cards a seat cannot see: turn its view into one full world the rest of the round can be played in.

A seat's view knows its own hand, the table, both capture piles and how many
cards the other hand holds; the other hand and the stock are a pool of unseen
cards (:attr:`Round.unseen`). Every way of splitting that pool into the other
hand and a stock order is equally likely given what the seat saw (the deal is
a fair shuffle), so a world is one uniform split: the other hand is revealed
through the public :meth:`Round.reveal`, and the stock comes back as the order
in which the rollout will draw it.

With ``weights`` (:func:`~p2p_koikoi.bots.inference.lacking_weights`: the
months the other seat has shown it probably lacks) the split is no longer
uniform: the other hand is drawn by weighted sampling without replacement
(each card gets the key ``u ** (1 / w)`` and the hand is the cards with the
largest keys; Efraimidis and Spirakis, "Weighted random sampling with a
reservoir", Information Processing Letters 97(5), 2006), so a card the other
seat has passed over is more likely in the stock. The stock order stays
uniform.

The sample reads nothing but the view: not its stock (all unknown) and not the
real round, which the search never gets.
"""

from __future__ import annotations

import random

from p2p_koikoi.engine import Round, cards_of

__all__ = ["Determinizer"]


class Determinizer:
    """Samples worlds consistent with ``view`` as seen by ``seat``; set up once per decision."""

    __slots__ = ("_hidden", "_other", "_unseen", "_view", "_weights")

    def __init__(self, view: Round, seat: int, weights: list[float] | None = None) -> None:
        if view.hidden[seat]:
            raise ValueError("a seat must know its own hand before it can search")
        self._view = view
        self._other = 1 - seat
        self._hidden = view.hidden[self._other]
        self._unseen = [int(c) for c in cards_of(view.unseen)]
        if len(self._unseen) != self._hidden + view.stock_left:
            raise ValueError("the unseen cards do not fill the other hand and the stock")
        self._weights: list[float] | None = None
        if weights is not None and any(weights[c] != 1.0 for c in self._unseen):
            self._weights = [1.0 / max(weights[c], 1e-6) for c in self._unseen]  # exponents of the keys

    def sample(self, rng: random.Random) -> tuple[int, list[int]]:
        """One uniform guess: the other hand (a mask) and the stock's cards in draw order."""
        cards = self._unseen.copy()
        exponents = self._weights
        if exponents is not None:
            random_float = rng.random
            keyed = sorted(zip([random_float() ** e for e in exponents], cards, strict=True), reverse=True)
            cards = [card for _key, card in keyed]
            rest = cards[self._hidden :]
            rng.shuffle(rest)
            cards[self._hidden :] = rest
        else:
            rng.shuffle(cards)
        hand = 0
        for card in cards[: self._hidden]:
            hand |= 1 << card
        return hand, cards[self._hidden :]

    def world(self, hand: int) -> Round:
        """A fresh full copy of the view in which the other seat holds ``hand`` (a guess from :meth:`sample`).

        Kept apart from :meth:`sample` so that a search can try several moves in
        one guessed world, each on its own copy, for the price of one copy each.
        """
        world = self._view.copy()
        if hand:
            world.reveal(self._other, hand)
        return world

"""Glicko-2 ratings, step by step as Mark E. Glickman's "Example of the Glicko-2 system" (Boston
University, 2013) gives them; the step numbers below are the paper's.

Why not a package: the maintained ``glicko2`` package on PyPI (2.1.0) was tried first. Its step 5 function
``f(x)`` uses the squared *rating* μ² where the paper has the squared *deviation* φ², which the paper's own
example cannot show (its player is rated 1500, so μ = 0): for a player rated 1800 against the same three
opponents it gives volatility 0.0600016 where the paper's steps give 0.0600044. ``openskill`` is a
Weng-Lin Bayesian rating, not Glicko-2. A rating is arithmetic, not a cryptographic primitive, so the
paper's eight steps are written out here, and ``tests/test_history.py`` reproduces its worked example
(1500/200/0.06 against 1400/30, 1550/100 and 1700/300, results 1, 0, 0: 1464.06, 151.52, 0.05999).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT", "SCALE", "TAU", "Game", "Rating", "rate"]

SCALE = 173.7178  # step 2: the Glicko-2 scale is the Glicko scale divided by this
TAU = 0.5  # the system constant τ (step 1: "reasonable choices are between 0.3 and 1.2")
EPSILON = 0.000001  # step 5.1: the convergence tolerance


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating on the Glicko scale: ``rating`` r, ``deviation`` RD, ``volatility`` σ."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    def format(self) -> str:
        """``1464 ± 152``: the rating and its deviation, as people read them."""
        return f"{self.rating:.0f} ± {self.deviation:.0f}"


DEFAULT = Rating()  # step 1: an unrated player


@dataclass(frozen=True, slots=True)
class Game:
    """One result of a rating period: the opponent's rating before it, and the score (1 win, 0.5 draw, 0 loss)."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(player: Rating, games: Sequence[Game], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``games`` (none: only its deviation grows, step 6)."""
    mu, phi, sigma = (player.rating - 1500) / SCALE, player.deviation / SCALE, player.volatility  # step 2
    if not games:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    scaled = [((g.opponent.rating - 1500) / SCALE, g.opponent.deviation / SCALE, g.score) for g in games]
    v = 1 / sum(_g(pj) ** 2 * _e(mu, mj, pj) * (1 - _e(mu, mj, pj)) for mj, pj, _ in scaled)  # step 3
    total = sum(_g(pj) * (s - _e(mu, mj, pj)) for mj, pj, s in scaled)
    delta = v * total  # step 4
    sigma = _volatility(phi, sigma, v, delta, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma * sigma)  # step 6
    phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)  # step 7
    mu = mu + phi * phi * total
    return Rating(SCALE * mu + 1500, SCALE * phi, sigma)  # step 8


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility σ', the root of ``f`` found by the Illinois algorithm (steps 5.1 to 5.5)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:  # step 5.1
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a  # step 5.2
    big_b = math.log(delta * delta - phi * phi - v) if delta * delta > phi * phi + v else _step_down(f, a, tau)
    return math.exp(_illinois(f, big_a, big_b) / 2)  # step 5.5


def _step_down(f: Callable[[float], float], a: float, tau: float) -> float:
    """Step 5.2, the other case: the first ``a - kτ`` (k = 1, 2, ...) where ``f`` is not negative."""
    k = 1
    while f(a - k * tau) < 0:
        k += 1
    return a - k * tau


def _illinois(f: Callable[[float], float], big_a: float, big_b: float) -> float:
    """Steps 5.3 and 5.4: narrow [A, B] around the root of ``f`` until it is narrower than ε."""
    f_a, f_b = f(big_a), f(big_b)  # step 5.3
    while abs(big_b - big_a) > EPSILON:  # step 5.4
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2
        big_b, f_b = big_c, f_c
    return big_a

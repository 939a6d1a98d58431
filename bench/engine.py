"""Random-playout rounds per second on one core, per preset.

Each round starts from a fresh deal (dealt outside the timed part) and is played
to its end by :func:`random_playout`, the engine's fast path that search bots
use, which runs the same core steps as the checked ``Round.apply``. The checked
path (legal_actions + apply for every move, with events) is timed too.

    python bench/engine.py [--rounds N]

Target: at least 10,000 rounds/s. For comparison (from the issue): an existing
Python engine does about 1,900 and a C engine with a simple AI about 8,300.
"""

from __future__ import annotations

import argparse
import random
import time

from p2p_koikoi.engine import PRESETS, Deal, Round, preset
from p2p_koikoi.engine.playout import random_playout
from p2p_koikoi.engine.yaku import YakuTable


def deals(name: str, count: int, seed: int) -> list[Deal]:
    rules = preset(name)
    rng = random.Random(seed)
    out = []
    for i in range(count):
        deck = list(range(48))
        rng.shuffle(deck)
        out.append(Deal.from_deck(deck, rules.deal_pattern, i & 1))
    return out


def fast(name: str, count: int) -> float:
    rules = preset(name)
    table = YakuTable(rules)
    rng = random.Random(7)
    work = deals(name, count, 1)
    start = time.process_time()
    for i, deal in enumerate(work):
        rnd = Round.start(rules, i & 1, deal.hands, deal.table, deal.stock, yaku_table=table)
        random_playout(rnd, rng)
    return count / (time.process_time() - start)


def checked(name: str, count: int) -> float:
    rules = preset(name)
    rng = random.Random(7)
    work = deals(name, count, 2)
    start = time.process_time()
    for i, deal in enumerate(work):
        rnd = Round.from_deal(rules, i & 1, deal)
        while not rnd.over:
            legal = rnd.legal_actions()
            rnd.apply(legal[int(rng.random() * len(legal))])
    return count / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    args = parser.parse_args()
    print(f"random-playout rounds per CPU second, {args.rounds} rounds per preset (target >= 10,000)")
    print(f"{'preset':<10} {'playout':>9} {'checked':>9}  vs 1,900 (Python)  vs 8,300 (C)")
    for name in PRESETS:
        f = fast(name, args.rounds)
        c = checked(name, max(1000, args.rounds // 5))
        print(f"{name:<10} {f:>9,.0f} {c:>9,.0f}  {f / 1900:>15.1f}x  {f / 8300:>10.2f}x")


if __name__ == "__main__":
    main()

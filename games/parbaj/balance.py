"""Balance report for the starter decks: greedy bots play every pairing from both seats.

    python -m games.parbaj.balance [games_per_pairing] [seed]

The main balance measure is now the lab with the strong bot on both sides
(``duelhall simulate parbaj --bots strong,strong``; docs/parbaj-balance.md has the report the
starter decks were tuned with). This greedy report stays as a second opinion from a different
player: the decks keep within the 60% rule here too (tests/games/parbaj/test_parbaj_balance.py).

Prints each deck's win rate against the field (mirror matches left out), the draw rate and how
often each card of the pool was used (placed, evolved, attached, ability declared, coach used)
per game in which it was in a deck. Ruling: no starter deck may win more than 60%."""
from __future__ import annotations

import random
import sys
from collections import Counter

from games.parbaj.bots import greedy_action
from games.parbaj.cardpool import CARDS, POOL
from games.parbaj.engine import GAME


def play(deck_a: list[str], deck_b: list[str], seed: int, bot=greedy_action):
    st = GAME.setup({"decks": {"A": deck_a, "B": deck_b}}, ["A", "B"], seed)
    rnd = random.Random(seed)
    used: Counter = Counter()
    while GAME.result(st) is None:
        seat = sorted(GAME.pending(st))[0]
        act = bot(GAME, st, seat, rnd)
        if act["type"] in ("place", "evolve", "attach", "place_field", "place_coach"):
            used[(seat, act["card"])] += 1
        elif act["type"] == "declare":
            used[(seat, st["creatures"][act["creature"]]["card"])] += 1
        elif act["type"] == "coach":
            used[(seat, st["players"][seat]["coach"])] += 1
        st, _ = GAME.apply(st, seat, act)
    return GAME.result(st), used


def report(n: int = 40, seed: int = 1) -> dict:
    decks = POOL.decks
    wins: Counter = Counter()
    pair: Counter = Counter()
    games: Counter = Counter()
    draws: Counter = Counter()
    use: Counter = Counter()
    present: Counter = Counter()
    rounds = []
    k = 0
    for da in decks:
        for db in decks:
            if da == db:
                continue
            for _ in range(n):
                k += 1
                res, used = play(decks[da]["cards"], decks[db]["cards"], seed * 100003 + k)
                rounds.append(res["games"][0]["rounds"])
                for seat, d in (("A", da), ("B", db)):
                    games[d] += 1
                    if res["draw"]:
                        draws[d] += 1
                    elif res["winner"] == seat:
                        wins[d] += 1
                        pair[(d, db if d == da else da)] += 1
                    for c in set(decks[d]["cards"]):
                        present[c] += 1
                for (_seat, c), m in used.items():
                    use[c] += m
    return {"wins": wins, "pair": pair, "n": n, "games": games, "draws": draws, "use": use, "present": present,
            "rounds": sum(rounds) / max(1, len(rounds))}


def main(argv: list[str]) -> None:
    n = int(argv[1]) if len(argv) > 1 else 40
    seed = int(argv[2]) if len(argv) > 2 else 1
    r = report(n, seed)
    print(f"Starter decks, greedy bots, {n} games per ordered pairing, mean rounds {r['rounds']:.1f}")
    print(f"{'deck':<12} {'games':>6} {'win%':>6} {'draw%':>6}")
    for d in POOL.decks:
        g = r["games"][d]
        print(f"{d:<12} {g:>6} {100 * r['wins'][d] / g:>6.1f} {100 * r['draws'][d] / g:>6.1f}")
    names = list(POOL.decks)
    print("\nwin% of row deck against column deck (both seats)")
    print(" " * 12 + "".join(f"{d[:9]:>10}" for d in names))
    for d in names:
        cells = "".join(f"{'-':>10}" if d == e else f"{50 * r['pair'][(d, e)] / r['n']:>10.0f}"
                        for e in names)
        print(f"{d:<12}{cells}")
    print("\ncard uses per game in which the card was in a deck")
    for cid in sorted(CARDS, key=lambda c: (CARDS[c]["kind"], c)):
        if r["present"][cid]:
            print(f"  {cid:<22} {r['use'][cid] / r['present'][cid]:6.2f}")
        else:
            print(f"  {cid:<22}  (in no starter deck)")


if __name__ == "__main__":
    main(sys.argv)

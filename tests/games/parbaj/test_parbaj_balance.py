"""Balance guard (rulings: no starter deck above 60% against the field) on a fixed bot sample,
and the greedy bot plays legal moves only."""
import random

import pytest

from games.parbaj.balance import play, report
from games.parbaj.cardpool import POOL
from games.parbaj.engine import GAME


@pytest.mark.slow
def test_no_starter_deck_wins_more_than_60_percent():
    r = report(6, 1)
    for d in POOL.decks:
        assert r["games"][d] == 6 * 2 * (len(POOL.decks) - 1)
        assert r["wins"][d] / r["games"][d] <= 0.60, d
    assert r["rounds"] < 30  # games are decided, not run into the round cap
    # Every card of every starter deck gets used by the bots.
    for d in POOL.decks.values():
        for c in d["cards"]:
            assert r["use"][c] > 0, c


def test_greedy_bot_plays_legal_moves():
    from games.parbaj.bots import greedy_action

    decks = list(POOL.decks.values())
    for seed in range(6):
        rnd = random.Random(seed)
        a, b = rnd.sample(decks, 2)
        st = GAME.setup({"decks": {"A": a["cards"], "B": b["cards"]}, "best_of": 3}, ["A", "B"], seed)
        while GAME.result(st) is None:
            seat = sorted(GAME.pending(st))[0]
            act = greedy_action(GAME, st, seat, rnd)
            assert act in GAME.legal(st, seat)
            st, _ = GAME.apply(st, seat, act)
    res, used = play(decks[0]["cards"], decks[1]["cards"], 3)
    assert res is not None and used

"""Every cell of the seed's 9x9 counter table, played through the engine: the two pieces are
placed so that after both technique steps they stand 2 apart (both attacks reach; Advancing
Thrust needs exactly 2), using the wall to stop a backward step when both step back."""
from __future__ import annotations

import pytest
from duel_kit import OWN_STEP, hp, make, of, play, pos, sta

# Typed in from the seed (row = yours, column = theirs); independent of games/duel/tables.py.
SEED_TABLE = """
DC | Clash | −5 | +5 | +5 | −5 | +5 | 0 | +5 | +5
AC | +5 | Clash | +5 | +5 | −5 | +5 | −5 | +5 | −5
RC | −5 | −5 | 2:2 | +1 | +2 | 0 | +2 | +2 | +2
CA | −5 | −5 | −1 | 0 | +1 | 0 | −1 | −1 | +1
AT | +5 | +5 | −2 | −1 | 2:2 | 0 | +5 | −2 | +5
B | −5 | −5 | 0 | 0 | 0 | 0 | 0 | 0 | 0
HC | 0 | +5 | −2 | +1 | −5 | 0 | 1:1 | 0 | +1
RH | −5 | −5 | −2 | +1 | +2 | 0 | 0 | 1:1 | −5
LT | −5 | +5 | −2 | −1 | −5 | 0 | −1 | +5 | 2:2
"""
COLS = ["DC", "AC", "RC", "CA", "AT", "B", "HC", "RH", "LT"]
CELLS = {}
for line in SEED_TABLE.strip().splitlines():
    row, *cells = [c.strip().replace("−", "-") for c in line.split("|")]
    for col, c in zip(COLS, cells):
        CELLS[row, col] = c
COST = {"DC": 2, "AC": 2, "RC": 2, "CA": 1, "AT": 2, "B": 1, "HC": 1, "RH": 2, "LT": 2}
DEFENSIVE = {"CA", "B"}


def placement(x, y):
    a_step, b_step = OWN_STEP[x], OWN_STEP[y]
    a = 1 if a_step < 0 else 6  # at the wall a backward step does not happen
    eff_a = 0 if a_step < 0 else a_step
    return a, a + 2 + eff_a + b_step


def expected(cell):
    """(damage to A, damage to B, clash)."""
    if cell == "Clash":
        return 0, 0, True
    if ":" in cell:
        dealt, taken = map(int, cell.split(":"))
        return taken, dealt, False
    n = int(cell)
    return (0, n, False) if n > 0 else (-n, 0, False)


@pytest.mark.parametrize("x,y", [(r, c) for r in COLS for c in COLS])
def test_counter_table_cell(x, y):
    a, b = placement(x, y)
    st = make("ronin", "ronin", pos=(a, b), options={"health": 10})
    st, ev = play(st, x, y)
    dA, dB, clash = expected(CELLS[x, y])
    after = of(ev, "slot_end")[0]
    assert (10 - after["health"]["A"], 10 - after["health"]["B"]) == (dA, dB)
    assert bool(of(ev, "clash")) == clash
    if not (x in DEFENSIVE and y in DEFENSIVE):
        # both really reached at distance 2 (no knock-back yet when there was no clash)
        assert clash or pos(st)[1] - pos(st)[0] == 2
    # stamina: the technique's cost; Counterattack/Block only when they work; clash +2 each
    for seat, t, taken, opp in (("A", x, dA, y), ("B", y, dB, x)):
        cost = COST[t]
        if t in DEFENSIVE:
            cost = 1 if opp not in DEFENSIVE and taken == 0 else 0
        if clash:
            cost += 2
        assert after["stamina"][seat] == 20 - cost, (seat, t)
    assert hp(st) == (after["health"]["A"], after["health"]["B"])
    assert sta(st)[0] <= 20

"""Drive whole tournaments with random results and random drops, logging every round."""
from __future__ import annotations

import random

import networkx as nx

import app.tournaments as T

# Property tests: few examples, sizes sampled over 2..256 with small fields over-represented.
EXAMPLES = 30


def entries(n: int, rnd: random.Random | None = None) -> list[dict]:
    rnd = rnd or random.Random(n)
    return [{"id": f"p{i:03d}", "rating": rnd.randint(1000, 2000)} for i in range(n)]


def random_result(rnd: random.Random, p: dict, draw_rate: float = 0.1) -> dict:
    a, b = p["players"]
    bo = p["best_of"]
    need = bo // 2 + 1
    draw_ok = p["stage"] in ("swiss", "round_robin")
    if draw_ok and rnd.random() < draw_rate:
        k = rnd.randint(0, need - 1)
        return {"winner": None, "games": [k, k], "draws": min(1, bo - 2 * k)}
    w = rnd.choice([0, 1])
    lost = rnd.randint(0, need - 1)
    games = [need, lost] if w == 0 else [lost, need]
    return {"winner": p["players"][w], "games": games}


def run(fmt: str, n: int, options: dict | None = None, *, seed: int = 0, drop_rate: float = 0.0,
        mid_round_drop_rate: float = 0.0, draw_rate: float = 0.1, keep_one: bool = True,
        log_standings: bool = True):
    """Play a tournament to the end. Returns ``(state, log)``; each log entry is one
    ``next_pairings`` call: ``{"active", "standings", "pairings", "round"}`` where
    ``active``/``standings`` are taken just before pairing."""
    rnd = random.Random(seed)
    state = T.create(fmt, entries(n, rnd), options or {})
    log = []
    guard = 0
    while not T.is_finished(state):
        guard += 1
        assert guard < 500, "tournament does not end"
        active = {p["id"] for p in state["players"] if not p["dropped"]}
        before = T.standings(state) if log_standings else None
        state, pairings = T.next_pairings(state, copy=False)
        log.append({"active": active, "standings": before, "pairings": pairings, "round": state["round"]})
        for p in pairings:
            if p["status"] != "pending":
                continue
            if mid_round_drop_rate and rnd.random() < mid_round_drop_rate and _may_drop(state, keep_one):
                T.drop(state, rnd.choice(p["players"]), copy=False)  # forfeits the pairing
                continue
            T.report(state, p["id"], random_result(rnd, p, draw_rate), copy=False)
        if drop_rate and not T.is_finished(state):
            for pid in sorted(p["id"] for p in state["players"] if not p["dropped"]):
                if rnd.random() < drop_rate and _may_drop(state, keep_one):
                    T.drop(state, pid, copy=False)
    return state, log


def _may_drop(state: dict, keep_one: bool) -> bool:
    if T.is_finished(state):
        return False
    active = sum(1 for p in state["players"] if not p["dropped"])
    return active > (2 if keep_one else 0)


def appearances(pairings: list[dict]) -> dict:
    seen: dict = {}
    for p in pairings:
        for x in p["players"]:
            if x is not None:
                seen[x] = seen.get(x, 0) + 1
    return seen


def rematch_free_pairing_exists(players: list, met: set, bye_ok: set | None) -> bool:
    """Can ``players`` be paired with no repeated pairing, the bye (odd count) going to one
    of ``bye_ok``?"""
    g = nx.Graph()
    g.add_nodes_from(players)
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            if frozenset((a, b)) not in met:
                g.add_edge(a, b)
    nodes = len(players)
    if nodes % 2:
        g.add_node("__bye__")
        for p in bye_ok or ():
            g.add_edge(p, "__bye__")
        nodes += 1
    return 2 * len(nx.max_weight_matching(g, maxcardinality=True)) == nodes

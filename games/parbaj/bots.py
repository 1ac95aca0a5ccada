"""Bots for Párbaj: a uniform random player and a simple greedy one (used for balance runs)."""
from __future__ import annotations

import random

from games.parbaj.cardpool import CARDS


def _expand(action: dict, rnd: random.Random) -> dict:
    out = {}
    for k, v in action.items():
        if isinstance(v, dict) and set(v) == {"one_of"}:
            out[k] = rnd.choice(v["one_of"])
        else:
            out[k] = v
    return out


def random_action(legal: list, rnd: random.Random) -> dict:
    """A uniformly random entry of ``legal`` (templates expanded)."""
    return _expand(rnd.choice(legal), rnd)


# ------------------------------------------------------------------------------------------
# A simple greedy player: good enough to compare decks (balance runs), not to win tournaments.
# ------------------------------------------------------------------------------------------
def _abilities(cr: dict) -> list[dict]:
    ab = CARDS[cr["card"]]["abilities"]
    return ab + [CARDS[cr["attached"]]["ability"]] if cr["attached"] else ab


def _left(cr: dict) -> int:
    return CARDS[cr["card"]]["endurance"] - cr["injuries"]


def _visible_guard(state: dict, owner: str, uid: str) -> tuple[int, bool]:
    """Armor and shroud the opponent has already put on ``uid`` this round (public)."""
    p = state["players"][owner]
    armor, shroud = 0, False
    mine = ([p["front"]] if p["front"] else []) + p["reserve"]
    if p["coach"]:
        c = CARDS[p["coach"]]
        pas = c["passive"]
        if pas and (pas["to"] == "all" or uid == p["front"]):
            armor += pas["armor"]
        cu = p["coach_use"]
        if cu and (c["active"]["area"] or cu["target"] == uid):
            armor += c["active"]["armor"]
            shroud = shroud or c["active"]["shroud"]
    for d in p["declared"]:
        ab = _abilities(state["creatures"][d["creature"]])[d["ability"]]
        if ab["kind"] == "attack":
            continue
        if (ab["kind"] == "passive" and d["creature"] == uid) or d["target"] == uid or (
                ab["area"] and uid in mine):
            armor += ab["armor"]
            shroud = shroud or ab["shroud"]
    return armor, shroud


def _score_declare(state: dict, seat: str, a: dict) -> float:
    crs = state["creatures"]
    p = state["players"][seat]
    cr = crs[a["creature"]]
    ab = _abilities(cr)[a["ability"]]
    cost = sum(ab["cost"].values())
    s = -0.7 * cost
    if ab["kind"] == "attack":
        opp = state["players"]["B" if seat == "A" else "A"]
        tgt = a["target"] or opp["front"]
        tc = CARDS[crs[tgt]["card"]]
        dtype = CARDS[cr["card"]]["type"]
        base = ab["damage"]
        if tc["weakness"] == dtype:
            base *= 2
        elif tc["immunity"] == dtype:
            base = 0
        guard, hidden = _visible_guard(state, "B" if seat == "A" else "A", tgt)
        if ab["area"] and hidden:
            return -1.0
        dmg = max(0, base + (ab["boost"] if ab["damage"] else 0) - guard) if ab["damage"] else 0
        stun_ok = ab["stun"] and crs[tgt]["stun"] != state["round"]
        s += dmg + 1.5 * ab["poison"] + (1.5 if stun_ok else 0)
        if dmg >= _left(crs[tgt]):
            s += 3
    else:
        rec = [a["target"]] if a["target"] else [a["creature"]]
        if ab["area"]:
            rec = ([p["front"]] if p["front"] else []) + p["reserve"]
        for r in rec:
            inj = crs[r]["injuries"]
            s += min(ab["heal"], inj)
            if r == p["front"]:
                s += 0.6 * ab["armor"] + (0.5 if ab["shroud"] else 0)
                if ab["boost"] and any(d["ability_kind"] == "attack" for d in p["declared"]):
                    s += ab["boost"]
    if ab["token"]:
        s += 1
    return s


def _want(state: dict, seat: str) -> dict:
    """Token types the frontline's attacks need most (reserve abilities count less)."""
    p = state["players"][seat]
    want: dict[str, float] = {}
    for uid in ([p["front"]] if p["front"] else []) + p["reserve"]:
        w = 3.0 if uid == p["front"] else 1.0
        for ab in _abilities(state["creatures"][uid]):
            for t, n in ab["cost"].items():
                want[t] = want.get(t, 0) + w * n * (ab["damage"] + 1)
    return want


def greedy_action(game, state: dict, seat: str, rnd: random.Random) -> dict:
    legal = game.legal(state, seat)
    ph = state["phase"]
    p = state["players"][seat]
    crs = state["creatures"]
    if ph == "first":
        return {"type": "choose_first", "seat": seat}
    if ph == "place":
        res = [a for a in legal if a["slot"] == "reserve"]
        if res:
            return rnd.choice(res)
        return max(legal, key=lambda a: (CARDS[a["card"]]["endurance"], a["card"]))
    if ph == "cards":
        return legal[0]
    if ph == "prep":
        if legal[0]["type"] == "take_token":
            want = _want(state, seat)
            return max(legal, key=lambda a: (want.get(a["token"], 0) - p["tokens"].get(a["token"], 0),
                                             a["token"]))
        evo = [a for a in legal if a["type"] == "evolve"]
        if evo:
            return max(evo, key=lambda a: a["creature"] == p["front"])
        att = [a for a in legal if a["type"] == "attach"]
        if att:
            def fit(a):
                kind = CARDS[a["card"]]["ability"]["kind"]
                front = a["creature"] == p["front"]
                return (kind == "attack") == front or kind == "passive"
            return max(att, key=fit)
        co = [a for a in legal if a["type"] == "coach"]
        if co and sum(p["tokens"].values()) >= 3:
            return max(co, key=lambda a: crs[a["target"]]["injuries"] if a["target"] else 0)
        return {"type": "done"}
    if ph == "combat":
        dec = [a for a in legal if a["type"] == "declare"]
        if dec:
            best = max(dec, key=lambda a: _score_declare(state, seat, a))
            if _score_declare(state, seat, best) > 0.9:
                return best
        passes = [a for a in legal if a["type"] == "pass"]
        if len(passes) > 1:
            want = _want(state, seat)
            return max(passes, key=lambda a: (want.get(a["token"], 0) - p["tokens"].get(a["token"], 0),
                                              a["token"]))
        return passes[0]
    if ph == "promote":
        return max(legal, key=lambda a: (_left(crs[a["creature"]]), a["creature"]))
    return rnd.choice(legal)

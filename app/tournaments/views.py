"""What the API shows of a tournament: public summaries and details, a round's pairings and
standings, a player's own page, deck lists by visibility, and the exports. Pure: an event dict
(``app/db/tournaments.as_event``) and the viewer in, JSON-able data out.

Never shown publicly: deck lists (see ``lifecycle.deck_visible``), the core's seed, disputes
of other players.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from app.clock import iso

from . import core
from . import lifecycle as L


def names(ev: dict) -> dict[str, str]:
    return {e["user"]["id"]: e["user"]["name"] for e in ev["entrants"]}


def manages(ev: dict, user) -> bool:
    """An admin, or this event's organiser while they hold the organiser role (a demoted
    organiser manages nothing)."""
    return user is not None and (user.role == "admin" or (
        user.role == "organiser" and user.id == ev["organiser"]["id"]))


def summary(ev: dict) -> dict:
    entrants = ev["entrants"]
    state = ev.get("state")
    return {
        "id": ev["id"], "name": ev["name"], "game": ev["game"], "format": ev["format"],
        "status": ev["status"], "organiser": ev["organiser"], "revision": ev["revision"],
        "cap": ev["settings"]["cap"], "best_of": ev["settings"]["best_of"],
        "players": sum(1 for e in entrants if e["status"] in ("registered", "checked_in", "playing")),
        "waitlisted": sum(1 for e in entrants if e["status"] == "waitlisted"),
        "round": state["round"] if state else 0,
        "created_at": ev["created_at"], "started_at": ev.get("started_at"),
        "finished_at": ev.get("finished_at"),
        # A test event: computer players take part (their results say little about people).
        "test": is_test(ev),
    }


def is_test(ev: dict) -> bool:
    return any(e["user"].get("bot") and e["status"] != "withdrawn" for e in ev["entrants"])


def _entrant_public(ev: dict, e: dict) -> dict:
    out = {
        "user": e["user"], "status": e["status"], "late": e["late"],
        "checked_in": e["checked_in_at"] is not None, "has_deck": bool(e["deck"]),
        "deck_locked": e["deck_locked"],
    }
    if e["status"] == "waitlisted":
        queue = [x for x in ev["entrants"] if x["status"] == "waitlisted"]
        out["waitlist_position"] = queue.index(e) + 1
    state = ev.get("state")
    if state:
        p = next((p for p in state["players"] if p["id"] == e["user"]["id"]), None)
        if p is not None:
            out.update(seed=p["seed"], dropped=p["dropped"])
    return out


def pairing_view(ev: dict, p: dict) -> dict:
    """A core pairing plus its live matches and how its result came about."""
    mp = ev["meta"]["pairings"].get(p["id"], {})
    out = dict(p)
    out["matches"] = [{"id": m["id"], "game": m["no"], "seat_a": m["seat_a"], "recorded": m["recorded"],
                       "result": m.get("result")} for m in mp.get("matches", [])]
    out["how"] = mp.get("how")
    if mp.get("override"):
        out["override"] = {"reason": mp["override"]["reason"], "at": iso(mp["override"]["at"])}
    return out


def round_view(ev: dict, n: int, after: list | None = None) -> dict:
    """Round ``n``: its pairings, and ``after`` (the standings stored when the round closed,
    ``app/db/tournaments.standings_after``) or, for the round under way, the standings now."""
    state = ev.get("state")
    if not state or not 1 <= n <= state["round"]:
        return {"round": n, "pairings": [], "standings": None, "final": False}
    live = after is None and n == state["round"]
    return {
        "round": n,
        "pairings": [pairing_view(ev, p) for p in core.pairings(state, round=n)],
        # After the round (a snapshot taken when the next round was paired or the event ended);
        # for the round under way, the standings as they stand.
        "standings": after if after is not None else (core.standings(state) if live else None),
        "final": after is not None,
    }


def brackets(ev: dict) -> dict:
    state = ev.get("state")
    if not state:
        return {}
    return {which: core.bracket(state, which) for which in state["brackets"]}


def detail(ev: dict, viewer=None, final: list | None = None) -> dict:
    """Everything public about an event. ``final``: the stored standings after the last round
    (a finished event's current round shows them)."""
    state = ev.get("state")
    meta = ev["meta"]
    out = summary(ev)
    settings = dict(ev["settings"])
    out.update(
        description=settings.pop("description", ""), settings=settings,
        entrants=[_entrant_public(ev, e) for e in ev["entrants"]], names=names(ev),
        rounds=state["round"] if state else 0, phase=state["phase"] if state else None,
        current_round=round_view(ev, state["round"], final) if state and state["round"] else None,
        standings=core.standings(state) if state else [],
        brackets=brackets(ev),
        champion=state.get("champion") if state and state["finished"] else None,
        timers={
            "round_started_at": iso(meta["round_started_at"]),
            "round_ends_at": iso(meta["round_ends_at"]),
            "round_completed_at": iso(meta["round_completed_at"]),
            "next_round_at": iso(meta["round_completed_at"] + ev["settings"]["round_break_seconds"])
            if meta["round_completed_at"] is not None and ev["settings"]["pairing"] == "auto"
            and ev["status"] == "running" else None,
        },
        notes=meta["notes"],
    )
    mine = viewer is not None and manages(ev, viewer)
    out["disputes"] = [_dispute(d) for d in meta["disputes"]
                       if mine or (viewer is not None and d["by"] == viewer.id)]
    me = L.entrant(ev, viewer.id) if viewer is not None else None
    out["viewer"] = {"can_manage": mine, "entrant": _entrant_public(ev, me) if me else None}
    return out


def _dispute(d: dict) -> dict:
    return {**d, "at": iso(d["at"]), "resolved_at": iso(d.get("resolved_at"))}


def _my_pairings(ev: dict, uid: str) -> list[dict]:
    state = ev.get("state")
    if not state:
        return []
    return [pairing_view(ev, p) for p in core.pairings(state) if uid in p["players"]]


def me_view(ev: dict, uid: str) -> dict:
    """A player's own page: their entry (with their deck), the pairing to play now (opponent,
    match to open), their results so far and what they may do next."""
    e = L.entrant(ev, uid)
    state = ev.get("state")
    mine = _my_pairings(ev, uid)
    current = None
    if state and state["rounds"]:
        now_ids = set(state["rounds"][-1])
        current = next((p for p in mine if p["id"] in now_ids), None)
    opponent = None
    if current is not None:
        other = [x for x in current["players"] if x not in (uid, None)]
        if other:
            opponent = {"id": other[0], "name": names(ev).get(other[0], other[0])}
    live = None
    if current is not None and current["status"] == "pending" and current["matches"]:
        live = current["matches"][-1]["id"]
    dropped = bool(state and any(p["id"] == uid and p["dropped"] for p in state["players"]))
    status = ev["status"]
    entry = None
    if e is not None:
        entry = {**_entrant_public(ev, e), "deck": e["deck"], "deck_name": e["deck_name"]}
    held = e is not None and e["status"] in ("registered", "checked_in", "waitlisted")
    disputable = None
    if current is not None and current["status"] == "done" and not current["bye"]:
        open_ = any(d["pairing"] == current["id"] and d["status"] == "open" for d in ev["meta"]["disputes"])
        disputable = None if open_ else current["id"]
    return {
        "tournament": summary(ev),
        "names": names(ev),
        "entrant": entry,
        "current": current,
        "opponent": opponent,
        "match": live,
        "pairings": mine,
        "can": {
            "register": (e is None or e["status"] == "withdrawn") and (
                status in L.OPEN_FOR_ENTRY or (status == "running" and ev["format"] == "swiss"
                                               and ev["settings"]["late_entry"])),
            "withdraw": held and status in L.OPEN_FOR_ENTRY,
            "check_in": held and status == "check_in" and e["checked_in_at"] is None,
            "change_deck": held and L.needs_deck(ev) and not e["deck_locked"] and status in L.OPEN_FOR_ENTRY,
            "drop": e is not None and e["status"] == "playing" and status == "running" and not dropped,
            "dispute": disputable,
        },
        "disputes": [_dispute(d) for d in ev["meta"]["disputes"] if d["by"] == uid],
    }


def played_against(ev: dict, a: str, b: str) -> bool:
    state = ev.get("state")
    if not state:
        return False
    return any(p["status"] == "done" and not p["bye"] and a in p["players"] and b in p["players"]
               for p in state["matches"].values())


def decks_view(ev: dict, viewer) -> list[dict]:
    """The deck lists the viewer may see (``lifecycle.deck_visible``)."""
    out = []
    for e in ev["entrants"]:
        uid = e["user"]["id"]
        if not e["deck"] or e["status"] == "withdrawn":
            continue
        if L.deck_visible(ev, uid, viewer.id if viewer else None, viewer.role if viewer else None,
                          viewer is not None and played_against(ev, uid, viewer.id)):
            out.append({"user": e["user"], "deck_name": e["deck_name"], "deck": e["deck"],
                        "locked": e["deck_locked"]})
    return out


# ------------------------------------------------------------------------------ exports


def export_json(ev: dict, after: dict[int, list]) -> dict:
    """Everything needed to publish the event: players, every round (pairings with results and
    match ids, standings after the round: ``after``), the final or current standings and the
    champion."""
    state = ev.get("state")
    players = []
    if state:
        nm = names(ev)
        players = [{"id": p["id"], "name": nm.get(p["id"], p["id"]), "seed": p["seed"],
                    "rating": p["rating"], "dropped": p["dropped"], "late": p["late"]}
                   for p in state["players"]]
    return {
        "tournament": {**summary(ev), "settings": ev["settings"]},
        "players": players,
        "rounds": [round_view(ev, n, after.get(n)) for n in range(1, (state["round"] if state else 0) + 1)],
        "standings": core.standings(state) if state else [],
        "champion": state.get("champion") if state and state["finished"] else None,
    }


CSV_COLUMNS = [
    "kind", "round", "pairing", "stage", "table", "player_a", "player_b", "winner", "games_a",
    "games_b", "draws", "forfeit", "how", "matches",
    "rank", "player", "points", "mw", "omw", "gw", "ogw", "h2h", "wins", "losses", "match_draws",
    "place", "dropped",
]


def export_csv(ev: dict) -> str:
    """One table: a ``standing`` row per player (current or final standings, with every
    tie-breaker) and a ``pairing`` row per pairing of every round, with its result."""
    state = ev.get("state")
    nm = names(ev)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    if not state:
        return buf.getvalue()
    for row in core.standings(state):
        w.writerow({
            "kind": "standing", "rank": row["rank"], "player": nm.get(row["player"], row["player"]),
            "points": row.get("points"), "mw": row.get("mw"), "omw": row.get("omw"), "gw": row.get("gw"),
            "ogw": row.get("ogw"), "h2h": row.get("h2h"), "wins": row.get("wins"),
            "losses": row.get("losses"), "match_draws": row.get("draws"), "place": row.get("place"),
            "dropped": row.get("dropped"),
        })
    for p in core.pairings(state):
        pv = pairing_view(ev, p)
        a, b = p["players"]
        res = p.get("result") or {}
        games = res.get("games") or [None, None]
        w.writerow({
            "kind": "pairing", "round": p["round"], "pairing": p["id"], "stage": p["stage"],
            "table": p["table"], "player_a": _name(nm, a), "player_b": _name(nm, b),
            "winner": _name(nm, p.get("winner")) if p["status"] == "done" else "",
            "games_a": games[0], "games_b": games[1], "draws": res.get("draws"),
            "forfeit": p.get("forfeit"), "how": pv["how"],
            "matches": " ".join(m["id"] for m in pv["matches"]),
        })
    return buf.getvalue()


def _name(nm: dict, uid: Any) -> str:
    if uid is None:
        return ""
    return nm.get(uid, str(uid))

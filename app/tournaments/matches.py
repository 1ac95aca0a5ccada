"""The live matches of a tournament's pairings, in Redis (``MatchStore``): create a pairing's
match, end one whose pairing was decided otherwise or by a rule (no-show, time called), abort
those of a cancelled event, and tell this process's sockets about a change made here.

A match is tagged ``{"tournament": {"id", "pairing", "game"}}`` and its id is derived from
tournament, pairing and game number, so every process (and a retry after a crash) names the same
match and creating it twice makes one. Everything here is idempotent and logs its errors instead
of raising: the write path runs it after a change is stored, and the sweep redoes what was lost.
"""
from __future__ import annotations

import hashlib
import logging

from app.errors import ApiError
from app.tournaments import matchplay as MP

log = logging.getLogger("duelhall.tournaments")


def match_id_for(tournament_id: str, pairing_id: str, game: int) -> str:
    """The live match of game ``game`` of a pairing: derived, so every process (and a retry
    after a crash) names the same match and creating it twice makes one."""
    return hashlib.sha256(f"{tournament_id}:{pairing_id}:{game}".encode()).hexdigest()[:12]


def pairing_of_match(ev: dict, mid: str) -> str | None:
    for pid, mp in ev["meta"].get("pairings", {}).items():
        if any(m["id"] == mid for m in mp["matches"]):
            return pid
    return None


def match_setup(ev: dict, p: dict, entry: dict) -> tuple[list[dict], dict]:
    """The seated users and the engine options of the match ``entry`` of pairing ``p``."""
    names = {e["user"]["id"]: e["user"]["name"] for e in ev["entrants"]}
    bot_levels = {e["user"]["id"]: e["user"]["bot"] for e in ev["entrants"] if e["user"].get("bot")}
    a = entry["seat_a"]
    b = p["players"][1] if a == p["players"][0] else p["players"][0]
    # A bot entrant sits as its bot user dict, so the bot runner plays its turns.
    users = [{"id": u, "name": names.get(u, u), "role": "player",
              **({"bot": bot_levels[u]} if u in bot_levels else {})} for u in (a, b)]
    options = dict(ev["settings"]["game_options"])
    if ev["game"] in MP.IN_ENGINE_BEST_OF:
        decks = {e["user"]["id"]: e["deck"] for e in ev["entrants"]}
        # Game 1 plays the pairing's whole best-of; a later match is a sudden-death decider.
        options["best_of"] = p["best_of"] if entry["no"] == 1 else 1
        options["decks"] = {"A": decks[a], "B": decks[b]}
        options["open_deck_lists"] = bool(ev["settings"]["open_lists"])
    return users, options


async def create_match(svc, ev: dict, pid: str, game: int) -> dict | None:
    """Create (or find) the live match of game ``game`` of pairing ``pid``; errors are logged
    and left to the sweep."""
    try:
        p = ev["state"]["matches"][pid]
        entry = ev["meta"]["pairings"][pid]["matches"][game - 1]
        users, options = match_setup(ev, p, entry)
        tags = {"tournament": {"id": ev["id"], "pairing": pid, "game": game}}
        doc = await svc.store.create_seated(ev["game"], options, users, tags, match_id=entry["id"])
        bots = getattr(svc, "bots", None)
        if bots is not None and any(u.get("bot") for u in users):
            # create_seated tells no observer: hand the match to the bot runner (idempotent).
            await bots.observe(svc, doc)
        return doc
    except Exception:
        log.exception("could not create a tournament match", extra={"tournament": ev["id"], "pairing": pid})
        return None


async def end_decided(svc, ev: dict, mid: str) -> None:
    """End a match whose pairing was decided elsewhere (override, drop, time): the pairing's
    winner takes it, reason ``decided``."""
    pid = pairing_of_match(ev, mid)
    if pid is None:
        return
    p = ev["state"]["matches"][pid]
    if p["status"] != "done":
        return

    def decide(doc: dict):
        seats = {s["seat"]: s["user"]["id"] for s in doc["seats"]}
        return MP.match_places(p["result"], seats), "decided", {}

    try:
        await svc.store.end_match(mid, decide)
    except ApiError:
        pass  # the match is gone (never created, or expired): nothing to end
    except Exception:
        log.exception("could not end a tournament match", extra={"tournament": ev["id"], "match": mid})


async def abort_cancelled(svc, ev: dict, mid: str) -> None:
    """Stop a match of a cancelled event: it would count for nothing."""
    try:
        ch = await svc.store.abort_match(mid, "tournament_cancelled")
    except ApiError:
        return  # never created, or gone from Redis: nothing to stop
    except Exception:
        log.exception("could not abort a tournament match", extra={"tournament": ev["id"], "match": mid})
        return
    if ch.write:
        await push(svc, ch)


def noshow_decider(p: dict):
    """For ``end_match``: end the match as a no-show if, now, a seat the match is waiting for has
    not made a move of its own (the engine's pending seats minus ``doc["moved"]``)."""
    from games.registry import get_game

    def decide(doc: dict):
        game = get_game(doc["game"])
        moved = doc.get("moved") or {}
        absent = [s for s in sorted(game.pending(doc["state"])) if s not in moved]
        if not absent:
            return None
        seats = {s["seat"]: s["user"]["id"] for s in doc["seats"]}
        res = MP.no_show(p, [seats[s] for s in absent])
        return MP.match_places(res, seats), "no_show", {"absent": absent}
    return decide


def time_decider(p: dict, ledger: list):
    """For ``end_match``: end the match by the end-of-round rule (``matchplay.time_called``)."""
    def decide(doc: dict):
        seats = {s["seat"]: s["user"]["id"] for s in doc["seats"]}
        games = MP.match_games(doc["game"], None, doc.get("state"), seats)
        res = MP.time_called(p, list(ledger) + games)
        extra = {}
        if doc["game"] in MP.IN_ENGINE_BEST_OF and doc.get("state"):
            extra = {"games": doc["state"].get("games", []), "wins": doc["state"].get("wins", {})}
        return MP.match_places(res, seats), "time", extra
    return decide


async def push(svc, ch) -> None:
    """Tell this process's sockets of a match about a change made here (as lobby changes do)."""
    try:
        await svc.hub.push_doc(ch.doc, ch.events)
    except Exception:
        log.exception("push failed", extra={"match": ch.doc.get("id")})

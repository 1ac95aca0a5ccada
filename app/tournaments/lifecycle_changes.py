"""The life cycle of an event as changes for the write path (``writes.change``): create and
edit a draft, open registration and check-in, sign up (late entries too), add computer players,
withdraw, check in, register a deck, drop, start, pair the next round, advance after a result,
finish, cancel.

Each ``*_fn`` returns ``fn(event, effects, t)``: it applies the pure rules (``lifecycle``, the
core) to the event in place and lists in ``effects`` what the write path does with the change
(audit entries, standings, matches to create and end). ``advance`` is the one place that
decides what follows a result: finish the event, or close the round and pair the next one.
"""
from __future__ import annotations

import secrets
import uuid

from app import clock
from app.db import accounts
from app.db import tournaments as db
from app.live.bots import bot_user
from app.tournaments import core
from app.tournaments import lifecycle as L
from app.tournaments import matchplay as MP
from app.tournaments.errors import TournamentError
from app.tournaments.matches import match_id_for
from app.tournaments.writes import Effects, api_error, audit_entry

# ------------------------------------------------------------------------------ creating and editing


async def create_event(svc, user, name: str, game: str, fmt: str, settings: dict) -> dict:
    try:
        clean = L.validate_settings(game, fmt, settings)
    except TournamentError as e:
        raise api_error(e) from None
    ev = {
        "id": "t_" + uuid.uuid4().hex[:16], "name": name, "game": game, "format": fmt,
        "status": "draft", "organiser": {"id": user.id, "name": user.name}, "settings": clean,
        "entrants": [], "state": None, "meta": _new_meta(), "revision": 1,
        "redis_prefix": svc.store.k.p,
    }
    return await db.insert(svc.maker, ev)


def _new_meta() -> dict:
    return {"pairings": {}, "round_started_at": None, "round_ends_at": None,
            "round_completed_at": None, "disputes": [], "notes": []}


def update_fn(name: str | None, game: str | None, fmt: str | None, settings: dict | None):
    def fn(ev, fx, t):
        if ev["status"] != "draft":
            raise TournamentError("wrong_status", "Only a draft can be edited; this tournament is "
                                  f"{ev['status'].replace('_', '-')}.")
        merged = {**ev["settings"], **(settings or {})}
        new_game, new_fmt = game or ev["game"], fmt or ev["format"]
        ev["settings"] = L.validate_settings(new_game, new_fmt, merged)
        ev["game"], ev["format"] = new_game, new_fmt
        if name:
            ev["name"] = name
    return fn


def transition_fn(to: str, actor=None, reason: str | None = None):
    def fn(ev, fx, t):
        L.transition(ev, to)
        if to == "cancelled":
            ev["finished_at"] = clock.iso(t)
            fx.audits.append(audit_entry(actor, "tournament_cancel", ev, {"reason": reason}))
            # Its matches stop too: they would count for nothing, and a player who leaves one
            # should not lose on the clock (and in the ratings) for it.
            fx.abort += [m["id"] for mp in ev["meta"].get("pairings", {}).values()
                         for m in mp["matches"] if not m["recorded"]]
    return fn


# ------------------------------------------------------------------------------ players


def register_fn(user, deck: dict | None, rating: float | None):
    def fn(ev, fx, t):
        if deck is not None and not L.needs_deck(ev):
            raise TournamentError("invalid_options", "This tournament's game has no decks to register.")
        if ev["status"] == "running":
            return _late_entry(ev, fx, t, user, deck, rating)
        L.register(ev, {"id": user.id, "name": user.name}, deck, t)
    return fn


def _late_entry(ev, fx, t, user, deck, rating):
    if ev["format"] != "swiss" or not ev["settings"]["late_entry"]:
        raise TournamentError("registration_closed", "The tournament has started.")
    old = L.entrant(ev, user.id)
    if old is not None and old["status"] == "playing":
        raise TournamentError("already_registered", "You are already playing in this tournament.")
    if L.needs_deck(ev) and deck is None:
        raise TournamentError("deck_required", "A late entry needs a deck: send it with the sign-up.")
    cap = ev["settings"]["cap"]
    if cap is not None and len(ev["state"]["players"]) >= cap:
        raise TournamentError("event_full", f"The tournament is full ({cap} players).")
    if any(p["id"] == user.id for p in ev["state"]["players"]):
        raise TournamentError("already_registered", "You already took part in this tournament.")
    ev["state"] = core.add_late(ev["state"], {"id": user.id, "rating": rating})
    if old is not None:
        ev["entrants"].remove(old)
    ev["entrants"].append({
        "user": {"id": user.id, "name": user.name}, "status": "playing", "registered_at": t,
        "checked_in_at": t, "deck": deck["cards"] if deck else None,
        "deck_name": deck["name"] if deck else None, "deck_locked": True, "late": True,
    })


def add_bots_fn(actor, level: str, count: int, decks: list[dict] | None):
    """The organiser seats ``count`` computer players of ``level`` (registration or check-in).
    They are checked in at once (a bot has nothing to confirm) and take places, so they never
    go on the waitlist: more bots than free places is refused. ``decks`` (Párbaj): the starter
    decks, ``{"cards", "name"}``, handed out in turn. An event with bots is a test event."""
    def fn(ev, fx, t):
        if ev["status"] not in L.OPEN_FOR_ENTRY:
            raise TournamentError("registration_closed", "Computer players can be added only while "
                                  "registration or check-in is open.")
        cap = ev["settings"]["cap"]
        free = None if cap is None else cap - L.places_taken(ev)
        if free is not None and count > free:
            raise TournamentError("event_full", f"The tournament is full ({cap} players): "
                                  f"{free} place(s) left for computer players.")
        taken = {e["user"]["id"] for e in ev["entrants"]}
        handed_out = sum(1 for e in ev["entrants"] if e["user"].get("bot"))
        added = []
        for i in range(count):
            n = 1
            while f"bot-{level}-{n}" in taken:  # ids like the bots of live matches, unique here
                n += 1
            bot = bot_user(level, n)
            taken.add(bot["id"])
            deck = decks[(handed_out + i) % len(decks)] if decks else None
            ev["entrants"].append({
                "user": {"id": bot["id"], "name": bot["name"], "bot": level},
                "status": "checked_in", "registered_at": t, "checked_in_at": t,
                "deck": list(deck["cards"]) if deck else None, "deck_name": deck["name"] if deck else None,
                "deck_locked": True, "late": False,
            })
            added.append(bot["id"])
        fx.audits.append(audit_entry(actor, "tournament_add_bots", ev, {"level": level, "bots": added}))
    return fn


def withdraw_fn(user_id: str, actor=None, reason: str | None = None):
    def fn(ev, fx, t):
        L.withdraw(ev, user_id)
        if actor is not None:
            fx.audits.append(audit_entry(actor, "tournament_remove", ev, {"user": user_id, "reason": reason}))
    return fn


def check_in_fn(user_id: str):
    def fn(ev, fx, t):
        L.check_in(ev, user_id, t)
    return fn


def deck_fn(user_id: str, deck: dict):
    def fn(ev, fx, t):
        L.set_deck(ev, user_id, deck)
    return fn


def drop_fn(user_id: str, actor=None, reason: str | None = None):
    """Drop a player from a running event: never paired again; an open pairing of theirs is a
    forfeit loss at once (its live match is ended)."""
    def fn(ev, fx, t):
        if ev["status"] != "running":
            if ev["status"] in L.OPEN_FOR_ENTRY:
                raise TournamentError("wrong_status", "The tournament has not started; withdraw instead.")
            raise TournamentError("wrong_status", f"The tournament is {ev['status']}.")
        if L.entrant(ev, user_id) is None:
            raise TournamentError("not_registered", "That player is not in this tournament.")
        before = {pid: p["status"] for pid, p in ev["state"]["matches"].items()}
        ev["state"] = core.drop(ev["state"], user_id)
        for pid in ev["state"]["rounds"][-1] if ev["state"]["rounds"] else ():
            if before.get(pid) == "pending" and ev["state"]["matches"][pid]["status"] == "done":
                mark_decided(ev, fx, pid, "drop", t)
        if actor is not None and actor.id != user_id:
            fx.audits.append(audit_entry(actor, "tournament_drop", ev, {"user": user_id, "reason": reason}))
        advance(ev, fx, t)
    return fn


def mark_decided(ev: dict, fx: Effects, pid: str, how: str, t: float) -> None:
    """A pairing decided without its match ending: note how, and end its live match."""
    mp = ev["meta"]["pairings"].get(pid)
    if mp is None:
        return
    mp["how"], mp["reported_at"] = how, t
    fx.end += [m["id"] for m in mp["matches"] if not m["recorded"]]


# ------------------------------------------------------------------------------ starting and pairing


def start_fn(ratings: dict[str, float], seed: int):
    def fn(ev, fx, t):
        L.transition(ev, "running")
        players = L.select_players(ev)
        if len(players) < 2:
            raise TournamentError("too_few_players", "A tournament needs at least two checked-in "
                                  f"players to start; {len(players)} checked in.")
        n = len(players)
        opts = L.core_options(ev["format"], ev["settings"], seed, players=n)
        if ev["format"] == "swiss" and opts["top_cut"] != ev["settings"]["top_cut"]:
            ev["meta"]["notes"].append({"code": "top_cut_lowered", "from": ev["settings"]["top_cut"],
                                        "to": opts["top_cut"], "players": n})
        entries = [{"id": e["user"]["id"], "rating": ratings.get(e["user"]["id"])} for e in players]
        ev["state"] = core.create(ev["format"], entries, opts)
        ev["started_at"] = clock.iso(t)
        _pair_next(ev, fx, t)
        advance(ev, fx, t)
    return fn


def next_round_fn(actor):
    def fn(ev, fx, t):
        if ev["status"] != "running":
            raise TournamentError("wrong_status", f"The tournament is {ev['status'].replace('_', '-')}, not running.")
        if open_disputes(ev):
            raise TournamentError("dispute_open", "Resolve the open disputes of this round first.")
        _pair_next(ev, fx, t)
        advance(ev, fx, t)
    return fn


def open_disputes(ev: dict) -> list[dict]:
    return [d for d in ev["meta"]["disputes"] if d["status"] == "open"]


def _pair_next(ev: dict, fx: Effects, t: float) -> None:
    state = ev["state"]
    if state["round"]:
        fx.standings[state["round"]] = core.standings(state)
    state, pairings = core.next_pairings(state)
    ev["state"] = state
    meta = ev["meta"]
    meta["round_started_at"], meta["round_completed_at"] = t, None
    minutes = ev["settings"]["round_minutes"]
    meta["round_ends_at"] = t + 60 * minutes if minutes else None
    noshow = ev["settings"]["noshow_seconds"]
    for p in pairings:
        if p["status"] != "pending":
            meta["pairings"][p["id"]] = {"matches": [], "ledger": [], "how": "bye" if p["bye"] else "walkover",
                                         "reported_at": t}
            continue
        meta["pairings"][p["id"]] = {"matches": [], "ledger": [], "how": None, "reported_at": None}
        open_game(ev, fx, p, t, noshow_seconds=noshow)
    if core.is_finished(state):
        _finish(ev, fx, t)


def open_game(ev: dict, fx: Effects, p: dict, t: float, noshow_seconds: int | None = None) -> None:
    """The next game of pairing ``p``: its match entry, and the match to create."""
    mp = ev["meta"]["pairings"][p["id"]]
    n = len(mp["matches"]) + 1
    mp["matches"].append({
        "id": match_id_for(ev["id"], p["id"], n), "no": n, "seat_a": MP.starter_of_game(p, n),
        # The no-show rule applies to a pairing's first match only (later games: the game clock).
        "noshow_at": t + noshow_seconds if noshow_seconds and n == 1 else None,
        "noshow_checked": False, "recorded": False, "result": None,
    })
    fx.create.append((p["id"], n))


def _finish(ev: dict, fx: Effects, t: float) -> None:
    state = ev["state"]
    ev["status"] = "finished"
    ev["finished_at"] = clock.iso(t)
    fx.standings[state["round"]] = core.standings(state)
    ev["meta"]["round_ends_at"] = None


def _round_complete(state: dict) -> bool:
    return bool(state["rounds"]) and all(
        state["matches"][mid]["status"] != "pending" for mid in state["rounds"][-1])


def advance(ev: dict, fx: Effects, t: float) -> None:
    """After a result: finish the event, or note the round's end and pair the next round when
    pairing is automatic, its break is over and no dispute is open (the sweep pairs after a
    break)."""
    while ev["status"] == "running":
        state = ev["state"]
        if core.is_finished(state):
            _finish(ev, fx, t)
            return
        if not _round_complete(state):
            return
        meta = ev["meta"]
        if meta["round_completed_at"] is None:
            meta["round_completed_at"], meta["round_ends_at"] = t, None
        if ev["settings"]["pairing"] != "auto" or open_disputes(ev):
            return
        if t < meta["round_completed_at"] + ev["settings"]["round_break_seconds"]:
            return
        _pair_next(ev, fx, t)


def advance_fn():
    def fn(ev, fx, t):
        if ev["status"] != "running":
            return False
        before = (ev["state"]["round"], ev["status"], ev["meta"]["round_completed_at"])
        advance(ev, fx, t)
        return (ev["state"]["round"], ev["status"], ev["meta"]["round_completed_at"]) != before
    return fn


# ------------------------------------------------------------------------------ for the start and late entries


async def ratings_for(svc, game: str, user_ids: list[str]) -> dict[str, float]:
    """Each player's rating for seeding: the openskill ordinal (mu - 3 sigma) for the game."""
    out = {}
    for uid in user_ids:
        for r in await accounts.ratings_for(svc.maker, uid):
            if r["game"] == game:
                out[uid] = r["ordinal"]
    return out


def new_seed() -> int:
    return secrets.randbits(31)

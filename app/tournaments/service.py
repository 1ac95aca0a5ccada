"""Tournaments as a service: the life cycle, the live matches of each pairing, results that
report themselves, no-shows, the round timer, disputes and overrides.

Where things live:

* the event row in SQL (``app/db/tournaments.py``): settings, entrants, the core's JSON state
  (``app/tournaments/core.py``) and ``meta``, this module's bookkeeping per pairing;
* the rules as pure functions: ``lifecycle`` (registration, waitlist, check-in), ``matchplay``
  (games to results, no-show, time called), ``corrections`` (overrides);
* live matches in Redis (``MatchStore.create_seated``), tagged ``{"tournament": {"id",
  "pairing", "game"}}``.

**Every change** is :func:`change`: read the row, apply one pure function to it, write it back
with ``UPDATE ... WHERE revision = :read`` and retry on a conflict, so two organiser clicks or two
reports never lose an update, on one process or many. After the write it publishes the new
revision on ``<prefix>tour:<id>`` (live pages) and carries out the change's *effects*: create the
matches of new pairings and end live matches whose pairing was decided otherwise. Effects are
idempotent (match ids are derived from tournament, pairing and game number, and creating an
existing match returns it) and the sweep redoes any that a crash skipped.

**Results** report themselves: a match observer (``on_match_change``, registered in
``Services.start``) records a finished tournament match in the process that finished it, and a
periodic sweep (:func:`run_sweep`) reconciles every running tournament's open pairings with their
matches, so nothing is lost when a process dies between the match's end and the observer.
Recording is idempotent: each match is recorded once (``recorded`` in its pairing entry, set in
the same compare-and-set as the result).

The time source is :func:`now` (tests replace it).
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.db import tournaments as db
from app.errors import STATUS, ApiError
from app.live.bots import bot_user
from app.live.loops import pause
from app.tournaments import core, corrections
from app.tournaments import lifecycle as L
from app.tournaments import matchplay as MP
from app.tournaments.errors import TournamentError

log = logging.getLogger("duelhall.tournaments")

MAX_CAS_RETRIES = 40


def now() -> float:
    return time.time()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def api_error(e: TournamentError) -> ApiError:
    return ApiError(e.code, e.message, STATUS.get(e.code, 409))


def channel(svc, tournament_id: str) -> str:
    return f"{svc.store.k.p}tour:{tournament_id}"


def match_id_for(tournament_id: str, pairing_id: str, game: int) -> str:
    """The live match of game ``game`` of a pairing: derived, so every process (and a retry
    after a crash) names the same match and creating it twice makes one."""
    return hashlib.sha256(f"{tournament_id}:{pairing_id}:{game}".encode()).hexdigest()[:12]


# ------------------------------------------------------------------------------ the one write path


@dataclass
class Effects:
    """What a change asks for once it is stored."""

    create: list[tuple[str, int]] = field(default_factory=list)   # (pairing, game number)
    end: list[str] = field(default_factory=list)                  # matches whose pairing is decided
    abort: list[str] = field(default_factory=list)                # matches of a cancelled event
    audits: list[dict] = field(default_factory=list)              # written with the change
    standings: dict[int, list] = field(default_factory=dict)      # round -> standings after it


async def change(svc, tournament_id: str, fn: Callable[[dict, Effects, float], Any]) -> dict:
    """Apply ``fn(event, effects, t)`` to the stored event and store it with compare-and-set on
    the revision, retrying on a conflict. ``fn`` changes the event in place (it gets a fresh copy
    on every try) and returns False to write nothing. Returns the event as stored."""
    for attempt in range(MAX_CAS_RETRIES):
        ev = await db.get(svc.maker, tournament_id)
        if ev is None:
            raise ApiError("not_found", "There is no tournament with that id.")
        read = ev["revision"]
        fx = Effects()
        try:
            wrote = fn(ev, fx, now())
        except TournamentError as e:
            raise api_error(e) from None
        if wrote is False:
            return ev
        if await db.save(svc.maker, ev, read, fx.audits, fx.standings):
            await _after_write(svc, ev, fx)
            return ev
        await asyncio.sleep(random.uniform(0, 0.005 * (attempt + 1)))  # let the winner finish
    raise ApiError("unavailable", "The tournament is too busy right now; try again.", 503)


async def _after_write(svc, ev: dict, fx: Effects) -> None:
    try:
        await svc.redis.publish(channel(svc, ev["id"]), str(ev["revision"]))
    except Exception:  # live pages also poll; a lost notice only delays them
        log.exception("tournament notice failed", extra={"tournament": ev["id"]})
    for pid, game in fx.create:
        await _create_match(svc, ev, pid, game)
    for mid in fx.end:
        await _end_decided(svc, ev, mid)
    for mid in fx.abort:
        try:
            ch = await svc.store.abort_match(mid, "tournament_cancelled")
        except ApiError:
            continue  # never created, or gone from Redis: nothing to stop
        except Exception:
            log.exception("could not abort a tournament match", extra={"tournament": ev["id"], "match": mid})
            continue
        if ch.write:
            await _push(svc, ch)


async def _create_match(svc, ev: dict, pid: str, game: int) -> dict | None:
    """Create (or find) the live match of game ``game`` of pairing ``pid``; errors are logged
    and left to the sweep."""
    try:
        p = ev["state"]["matches"][pid]
        entry = ev["meta"]["pairings"][pid]["matches"][game - 1]
        users, options = _match_setup(ev, p, entry)
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


def _match_setup(ev: dict, p: dict, entry: dict) -> tuple[list[dict], dict]:
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


async def _end_decided(svc, ev: dict, mid: str) -> None:
    """End a match whose pairing was decided elsewhere (override, drop, time): the pairing's
    winner takes it, reason ``decided``."""
    pid = _pairing_of_match(ev, mid)
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


def _pairing_of_match(ev: dict, mid: str) -> str | None:
    for pid, mp in ev["meta"].get("pairings", {}).items():
        if any(m["id"] == mid for m in mp["matches"]):
            return pid
    return None


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
            ev["finished_at"] = iso(t)
            fx.audits.append(_audit(actor, "tournament_cancel", ev, {"reason": reason}))
            # Its matches stop too: they would count for nothing, and a player who leaves one
            # should not lose on the clock (and in the ratings) for it.
            fx.abort += [m["id"] for mp in ev["meta"].get("pairings", {}).values()
                         for m in mp["matches"] if not m["recorded"]]
    return fn


def _audit(actor, action: str, ev: dict, details: dict) -> dict:
    return {"actor_id": actor.id, "action": action, "target": f"tournament:{ev['id']}", "details": details}


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
        fx.audits.append(_audit(actor, "tournament_add_bots", ev, {"level": level, "bots": added}))
    return fn


def withdraw_fn(user_id: str, actor=None, reason: str | None = None):
    def fn(ev, fx, t):
        L.withdraw(ev, user_id)
        if actor is not None:
            fx.audits.append(_audit(actor, "tournament_remove", ev, {"user": user_id, "reason": reason}))
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
                _mark_decided(ev, fx, pid, "drop", t)
        if actor is not None and actor.id != user_id:
            fx.audits.append(_audit(actor, "tournament_drop", ev, {"user": user_id, "reason": reason}))
        _advance(ev, fx, t)
    return fn


def _mark_decided(ev: dict, fx: Effects, pid: str, how: str, t: float) -> None:
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
        ev["started_at"] = iso(t)
        _pair_next(ev, fx, t)
        _advance(ev, fx, t)
    return fn


def next_round_fn(actor):
    def fn(ev, fx, t):
        if ev["status"] != "running":
            raise TournamentError("wrong_status", f"The tournament is {ev['status'].replace('_', '-')}, not running.")
        if _open_disputes(ev):
            raise TournamentError("dispute_open", "Resolve the open disputes of this round first.")
        _pair_next(ev, fx, t)
        _advance(ev, fx, t)
    return fn


def _open_disputes(ev: dict) -> list[dict]:
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
        _open_game(ev, fx, p, t, noshow_seconds=noshow)
    if core.is_finished(state):
        _finish(ev, fx, t)


def _open_game(ev: dict, fx: Effects, p: dict, t: float, noshow_seconds: int | None = None) -> None:
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
    ev["finished_at"] = iso(t)
    fx.standings[state["round"]] = core.standings(state)
    ev["meta"]["round_ends_at"] = None


def _round_complete(state: dict) -> bool:
    return bool(state["rounds"]) and all(
        state["matches"][mid]["status"] != "pending" for mid in state["rounds"][-1])


def _advance(ev: dict, fx: Effects, t: float) -> None:
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
        if ev["settings"]["pairing"] != "auto" or _open_disputes(ev):
            return
        if t < meta["round_completed_at"] + ev["settings"]["round_break_seconds"]:
            return
        _pair_next(ev, fx, t)


def advance_fn():
    def fn(ev, fx, t):
        if ev["status"] != "running":
            return False
        before = (ev["state"]["round"], ev["status"], ev["meta"]["round_completed_at"])
        _advance(ev, fx, t)
        return (ev["state"]["round"], ev["status"], ev["meta"]["round_completed_at"]) != before
    return fn


# ------------------------------------------------------------------------------ results


def record_fn(doc: dict):
    """Record a finished tournament match (from the observer, the sweep or a player's nudge):
    its games go into the pairing's ledger; a decided pairing is reported to the core, an
    undecided one gets its next game. Recording the same match again changes nothing."""
    tag = doc["tournament"]

    def fn(ev, fx, t):
        if ev["status"] != "running":
            return False
        mp = ev["meta"]["pairings"].get(tag["pairing"])
        entry = next((m for m in mp["matches"] if m["id"] == doc["id"]), None) if mp else None
        if entry is None or entry["recorded"] or doc.get("status") != "finished":
            return False
        result = doc.get("result") or {}
        entry["recorded"] = True
        entry["result"] = {k: result.get(k) for k in ("places", "winner", "draw", "reason", "wins", "absent")
                           if k in result}
        p = ev["state"]["matches"][tag["pairing"]]
        if p["status"] != "pending":
            return True  # decided already (override, drop, time): only the bookkeeping
        seats = {s["seat"]: s["user"]["id"] for s in doc["seats"] if s.get("user")}
        match_bo = int((doc.get("options") or {}).get("best_of") or 1)
        mp["ledger"], res = MP.after_match(ev["game"], p, mp["ledger"], result, doc.get("state"), seats, match_bo)
        if res is None:
            if result.get("reason") != "decided":
                _open_game(ev, fx, p, t)
            return True
        how = {"no_show": "no_show", "time": "time"}.get(result.get("reason"), "played")
        ev["state"] = core.report(ev["state"], p["id"], res)
        mp["how"], mp["reported_at"] = how, t
        _advance(ev, fx, t)
        return True

    return fn


async def record_match(svc, doc: dict) -> dict | None:
    tag = doc.get("tournament")
    if not tag or doc.get("status") != "finished":
        return None
    try:
        return await change(svc, tag["id"], record_fn(doc))
    except ApiError as e:
        if e.code == "not_found":
            return None
        raise


async def on_match_change(svc, doc: dict) -> None:
    """The match observer (``Services.observers``): a finished tournament match reports itself."""
    if doc.get("tournament") and doc.get("status") == "finished":
        await record_match(svc, doc)


def override_fn(actor, pid: str, result: dict, reason: str, dispute_id: int | None = None):
    """The organiser sets a pairing's result (pending: reported; already reported in the current
    round: corrected). Audited with the old and new result and the reason."""
    def fn(ev, fx, t):
        if ev["status"] not in ("running", "finished"):
            raise TournamentError("wrong_status", f"The tournament is {ev['status'].replace('_', '-')}.")
        state = ev["state"]
        old = state["matches"].get(pid, {}).get("result") if isinstance(pid, str) else None
        was_finished = ev["status"] == "finished"
        ev["state"] = corrections.correct(state, pid, result)
        if was_finished:
            ev["status"], ev["finished_at"] = "running", None
        _mark_decided(ev, fx, pid, "override", t)
        mp = ev["meta"]["pairings"].get(pid)
        if mp is not None:
            mp["override"] = {"by": actor.id, "reason": reason, "at": t}
        for d in ev["meta"]["disputes"]:
            if d["pairing"] == pid and d["status"] == "open":
                d.update(status="overridden", resolved_by=actor.id, resolved_at=t, resolution=reason)
        fx.audits.append(_audit(actor, "tournament_override", ev, {
            "pairing": pid, "old": old, "new": ev["state"]["matches"][pid]["result"], "reason": reason,
            "dispute": dispute_id}))
        _advance(ev, fx, t)
    return fn


def dispute_fn(user_id: str, pid: str, reason: str):
    """A player disputes their pairing's result while it can still change (its round is the
    current one). An open dispute holds automatic pairing until the organiser resolves it."""
    def fn(ev, fx, t):
        if ev["status"] not in ("running", "finished"):
            raise TournamentError("wrong_status", f"The tournament is {ev['status'].replace('_', '-')}.")
        state = ev["state"]
        p = state["matches"].get(pid)
        if p is None:
            raise TournamentError("unknown_pairing", f"There is no pairing {pid!r} in this tournament.")
        if user_id not in p["players"]:
            raise TournamentError("forbidden", "You can only dispute the result of your own match.")
        if p["status"] != "done" or p["bye"]:
            raise TournamentError("not_pending", f"Pairing {pid} has no result to dispute yet.")
        if pid not in state["rounds"][-1]:
            raise TournamentError("dispute_closed", "The next round has been paired; this result can "
                                  "no longer be disputed.")
        if any(d["pairing"] == pid and d["status"] == "open" for d in ev["meta"]["disputes"]):
            raise TournamentError("dispute_open", "This result is already disputed; the organiser will decide.")
        ev["meta"]["disputes"].append({
            "id": len(ev["meta"]["disputes"]) + 1, "pairing": pid, "by": user_id, "reason": reason,
            "status": "open", "at": t, "resolved_by": None, "resolved_at": None, "resolution": None})
    return fn


def resolve_fn(actor, dispute_id: int, decision: str, result: dict | None, reason: str):
    def fn(ev, fx, t):
        d = next((d for d in ev["meta"]["disputes"] if d["id"] == dispute_id), None)
        if d is None:
            raise TournamentError("not_found", "There is no dispute with that number.")
        if d["status"] != "open":
            raise TournamentError("dispute_closed", "That dispute is already resolved.")
        if decision == "override":
            if result is None:
                raise TournamentError("invalid_result", "An override needs the result.")
            override_fn(actor, d["pairing"], result, reason, dispute_id)(ev, fx, t)
            return
        d.update(status="upheld", resolved_by=actor.id, resolved_at=t, resolution=reason)
        fx.audits.append(_audit(actor, "tournament_dispute_upheld", ev,
                                {"pairing": d["pairing"], "dispute": dispute_id, "reason": reason}))
        _advance(ev, fx, t)
    return fn


# ------------------------------------------------------------------------------ the sweep


def _noshow_decider(p: dict):
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


def _time_decider(p: dict, ledger: list):
    def decide(doc: dict):
        seats = {s["seat"]: s["user"]["id"] for s in doc["seats"]}
        games = MP.match_games(doc["game"], None, doc.get("state"), seats)
        res = MP.time_called(p, list(ledger) + games)
        extra = {}
        if doc["game"] in MP.IN_ENGINE_BEST_OF and doc.get("state"):
            extra = {"games": doc["state"].get("games", []), "wins": doc["state"].get("wins", {})}
        return MP.match_places(res, seats), "time", extra
    return decide


def time_fn():
    """The round is over: every pairing still open gets the time-called result (its live match
    was ended first when there was one; this covers pairings between games)."""
    def fn(ev, fx, t):
        if ev["status"] != "running" or not ev["meta"]["round_ends_at"] or t < ev["meta"]["round_ends_at"]:
            return False
        for pid in ev["state"]["rounds"][-1]:
            p = ev["state"]["matches"][pid]
            if p["status"] != "pending":
                continue
            mp = ev["meta"]["pairings"][pid]
            ev["state"] = core.report(ev["state"], pid, MP.time_called(p, mp["ledger"]))
            _mark_decided(ev, fx, pid, "time", t)
        ev["meta"]["round_ends_at"] = None
        _advance(ev, fx, t)
    return fn


def mark_noshow_checked_fn(pid: str, mid: str):
    def fn(ev, fx, t):
        mp = ev["meta"]["pairings"].get(pid)
        entry = next((m for m in mp["matches"] if m["id"] == mid), None) if mp else None
        if entry is None or entry["noshow_checked"]:
            return False
        entry["noshow_checked"] = True
    return fn


async def sweep_tournament(svc, tournament_id: str) -> None:
    """Reconcile one running tournament with its matches: create missing matches, record
    finished ones (observer missed), apply the no-show rule, end live matches of decided
    pairings, call time, and pair after the round break."""
    from app.db import history

    ev = await db.get(svc.maker, tournament_id)
    if ev is None or ev["status"] != "running":
        return
    t = now()
    state, meta = ev["state"], ev["meta"]
    current = state["rounds"][-1] if state["rounds"] else []
    entries = [(pid, m) for pid in current for m in meta["pairings"].get(pid, {}).get("matches", [])
               if not m["recorded"]]
    docs = {d["id"]: d for d in await svc.store.load_many([m["id"] for _, m in entries])}
    for pid, entry in entries:
        p = state["matches"][pid]
        doc = docs.get(entry["id"])
        if doc is None:
            if p["status"] != "pending":
                continue
            old = await history.match_summary(svc.maker, entry["id"])
            if old is not None and old["status"] == "finished":
                old["tournament"] = {"id": ev["id"], "pairing": pid, "game": entry["no"]}
                await record_match(svc, old)
            elif old is None:
                await _create_match(svc, ev, pid, entry["no"])
            continue
        if doc["status"] == "finished":
            await record_match(svc, doc)
        elif doc["status"] == "live" and p["status"] != "pending":
            await _end_decided(svc, ev, doc["id"])
        elif doc["status"] == "live" and entry["noshow_at"] and not entry["noshow_checked"] \
                and t >= entry["noshow_at"]:
            ch = await svc.store.end_match(doc["id"], _noshow_decider(p))
            if ch.write:
                await _push(svc, ch)
                await record_match(svc, ch.doc)
            else:
                await change(svc, ev["id"], mark_noshow_checked_fn(pid, doc["id"]))
    if meta["round_ends_at"] and t >= meta["round_ends_at"]:
        await call_time(svc, ev["id"])
        return
    if meta["round_completed_at"] is not None and not _open_disputes(ev) and ev["settings"]["pairing"] == "auto" \
            and t >= meta["round_completed_at"] + ev["settings"]["round_break_seconds"]:
        await change(svc, ev["id"], advance_fn())


async def call_time(svc, tournament_id: str) -> dict:
    """Time is up for the current round: end its live matches by the end-of-round rule, then
    give every pairing still open its time-called result."""
    ev = await db.get(svc.maker, tournament_id)
    if ev is None or ev["status"] != "running":
        return ev
    state, meta = ev["state"], ev["meta"]
    for pid in state["rounds"][-1] if state["rounds"] else ():
        p = state["matches"][pid]
        mp = meta["pairings"].get(pid)
        if p["status"] != "pending" or not mp or not mp["matches"]:
            continue
        entry = mp["matches"][-1]
        if entry["recorded"]:
            continue
        try:
            ch = await svc.store.end_match(entry["id"], _time_decider(p, mp["ledger"]))
        except ApiError:
            continue
        if ch.write:
            await _push(svc, ch)
        if ch.doc.get("status") == "finished":
            await record_match(svc, ch.doc)
    return await change(svc, tournament_id, time_fn())


async def _push(svc, ch) -> None:
    """Tell this process's sockets of a match about a change made here (as lobby changes do)."""
    try:
        await svc.hub.push_doc(ch.doc, ch.events)
    except Exception:
        log.exception("push failed", extra={"match": ch.doc.get("id")})


async def sweep_once(svc) -> None:
    for tid in await db.ids_with_status(svc.maker, "running", svc.store.k.p):
        try:
            await sweep_tournament(svc, tid)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("tournament sweep failed", extra={"tournament": tid})


async def take_sweep_turn(svc, poll_seconds: float) -> bool:
    """Whether this process sweeps now. Every process runs the loop, but the sweep reads every
    running tournament: one sweep per interval for the whole deployment is enough, so the
    first process to set a lease key sweeps and the others skip until it expires (a little
    before the next tick, so a process that died hands over at once)."""
    lease_ms = max(1, int(poll_seconds * 900))
    key = f"{svc.store.k.p}tour:sweep-lease"
    return bool(await svc.redis.set(key, svc.settings.instance_name, nx=True, px=lease_ms))


async def run_sweep(svc, poll_seconds: float, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            if await take_sweep_turn(svc, poll_seconds):
                await sweep_once(svc)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("tournament sweep loop error")
        await pause(stop, poll_seconds)


# ------------------------------------------------------------------------------ helpers for the API


async def ratings_for(svc, game: str, user_ids: list[str]) -> dict[str, float]:
    """Each player's rating for seeding: the openskill ordinal (mu - 3 sigma) for the game."""
    from app.db import accounts

    out = {}
    for uid in user_ids:
        for r in await accounts.ratings_for(svc.maker, uid):
            if r["game"] == game:
                out[uid] = r["ordinal"]
    return out


def new_seed() -> int:
    return secrets.randbits(31)

"""The periodic sweep: reconciles every running tournament's open pairings with their matches,
so nothing is lost when a process dies between a match's end and its observer. It creates
missing matches, records finished ones, applies the no-show rule, ends live matches of decided
pairings, calls time at the end of a round and pairs the next round after the break.

Every process runs :func:`run_sweep`; a Redis lease lets one of them sweep per interval.
"""
from __future__ import annotations

import asyncio
import logging

from app import clock
from app.db import history
from app.db import tournaments as db
from app.errors import ApiError
from app.live.loops import pause
from app.tournaments import core, matches
from app.tournaments import matchplay as MP
from app.tournaments.lifecycle_changes import advance, advance_fn, mark_decided, open_disputes
from app.tournaments.results import record_match
from app.tournaments.writes import change

log = logging.getLogger("duelhall.tournaments")


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
            mark_decided(ev, fx, pid, "time", t)
        ev["meta"]["round_ends_at"] = None
        advance(ev, fx, t)
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
    ev = await db.get(svc.maker, tournament_id)
    if ev is None or ev["status"] != "running":
        return
    t = clock.now()
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
                await matches.create_match(svc, ev, pid, entry["no"])
            continue
        if doc["status"] == "finished":
            await record_match(svc, doc)
        elif doc["status"] == "live" and p["status"] != "pending":
            await matches.end_decided(svc, ev, doc["id"])
        elif doc["status"] == "live" and entry["noshow_at"] and not entry["noshow_checked"] \
                and t >= entry["noshow_at"]:
            ch = await svc.store.end_match(doc["id"], matches.noshow_decider(p))
            if ch.write:
                await matches.push(svc, ch)
                await record_match(svc, ch.doc)
            else:
                await change(svc, ev["id"], mark_noshow_checked_fn(pid, doc["id"]))
    if meta["round_ends_at"] and t >= meta["round_ends_at"]:
        await call_time(svc, ev["id"])
        return
    if meta["round_completed_at"] is not None and not open_disputes(ev) and ev["settings"]["pairing"] == "auto" \
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
            ch = await svc.store.end_match(entry["id"], matches.time_decider(p, mp["ledger"]))
        except ApiError:
            continue
        if ch.write:
            await matches.push(svc, ch)
        if ch.doc.get("status") == "finished":
            await record_match(svc, ch.doc)
    return await change(svc, tournament_id, time_fn())


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

"""The authoritative live-match store.

A match is one JSON document in Redis under ``m:<id>``, carrying a ``version``. Every change
goes through :meth:`MatchStore.mutate`: WATCH the key, read, compute the new document with the
engine, and write it back in a MULTI/EXEC that also

* appends that change's events (with their visibility) to ``m:<id>:ev``,
* appends a history record to the outbox stream (drained into SQL by ``outbox``),
* updates the lobby sets and the clock's deadline set,
* publishes the new version on ``mch:<id>`` so every process re-renders its own sockets.

If another writer moved the version in between, EXEC fails and the change is recomputed from
the fresh document: no lost update, on one process or many.
"""
from __future__ import annotations

import json
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from app.errors import ApiError
from games.base import GameError, event, seat_names
from games.registry import get_game

# Events kept per match for resuming clients; older ones are in SQL history.
EVENTS_KEPT = 100
MAX_CAS_RETRIES = 100
# Per seat, the last actions with their client_seq: enough to tell a retry from a reuse.
RECENT_ACTIONS_KEPT = 8


def now() -> float:
    return time.time()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass
class Change:
    """What one transaction produced."""

    doc: dict
    events: list[dict] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    duplicate: bool = False
    write: bool = True


class Keys:
    def __init__(self, prefix: str):
        self.p = prefix
        self.open = f"{prefix}open"
        self.live = f"{prefix}live"
        self.deadlines = f"{prefix}deadlines"
        self.outbox = f"{prefix}outbox"

    def match(self, mid: str) -> str:
        return f"{self.p}m:{mid}"

    def events(self, mid: str) -> str:
        return f"{self.p}m:{mid}:ev"

    def channel(self, mid: str) -> str:
        return f"{self.p}mch:{mid}"


def header(doc: dict) -> dict:
    """The part of the document history needs (no engine state)."""
    return {k: doc[k] for k in (
        "id", "game", "status", "version", "options", "seed", "seats", "host",
        "created_at", "started_at", "finished_at", "result", "steps",
    )}


def summary(doc: dict) -> dict:
    """Public summary of a match (no seed, no state)."""
    game = get_game(doc["game"])
    return {
        "id": doc["id"],
        "game": doc["game"],
        "game_name": game.name if game else doc["game"],
        "status": doc["status"],
        "version": doc["version"],
        "seats": doc["seats"],
        "options": doc["options"],
        "host": doc["host"],
        "min_players": game.min_players if game else 2,
        "max_players": doc["max_seats"],
        "created_at": iso(doc["created_at"]),
        "started_at": iso(doc.get("started_at")),
        "finished_at": iso(doc.get("finished_at")),
        "result": doc.get("result"),
        "rematch": doc.get("rematch"),
    }


def seat_of(doc: dict, user_id: str) -> str | None:
    for s in doc["seats"]:
        if s["user"] and s["user"]["id"] == user_id:
            return s["seat"]
    return None


class MatchStore:
    def __init__(self, redis: aioredis.Redis, prefix: str = "dh:", finished_ttl: int = 86400):
        self.r = redis
        self.k = Keys(prefix)
        self.finished_ttl = finished_ttl

    # ------------------------------------------------------------------ reading
    async def load(self, mid: str) -> dict:
        raw = await self.r.get(self.k.match(mid))
        if raw is None:
            raise ApiError("not_found", "There is no match with that id.")
        return json.loads(raw)

    async def load_many(self, ids: list[str]) -> list[dict]:
        if not ids:
            return []
        raws = await self.r.mget([self.k.match(i) for i in ids])
        return [json.loads(r) for r in raws if r]

    async def events_since(self, mid: str, since: int) -> list[dict]:
        """Event batches with version > since, oldest first (each: {version, at, events})."""
        raws = await self.r.lrange(self.k.events(mid), 0, -1)
        batches = [json.loads(r) for r in raws]
        return [b for b in batches if b["version"] > since]

    async def list_status(self, status: str, limit: int = 100) -> list[dict]:
        key = {"open": self.k.open, "live": self.k.live}.get(status)
        if key is None:
            return []
        ids = await self.r.zrevrange(key, 0, limit - 1)
        return await self.load_many(ids)

    # ------------------------------------------------------------------ the one write path
    async def mutate(self, mid: str, compute: Callable[[dict], Change]) -> Change:
        key = self.k.match(mid)
        for _ in range(MAX_CAS_RETRIES):
            async with self.r.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    if raw is None:
                        raise ApiError("not_found", "There is no match with that id.")
                    doc = json.loads(raw)
                    change = compute(doc)
                    if not change.write:
                        await pipe.unwatch()
                        return change
                    pipe.multi()
                    self._queue_write(pipe, change)
                    await pipe.execute()
                    return change
                except WatchError:
                    continue
        raise ApiError("unavailable", "The match is too busy right now; try again.", 503)

    def _queue_write(self, pipe, change: Change) -> None:
        doc = change.doc
        mid = doc["id"]
        k = self.k
        pipe.set(k.match(mid), dumps(doc))
        if doc["status"] in ("finished", "aborted"):
            pipe.expire(k.match(mid), self.finished_ttl)
            pipe.expire(k.events(mid), self.finished_ttl)
        batch = {"version": doc["version"], "at": now(), "events": change.events}
        pipe.rpush(k.events(mid), dumps(batch))
        pipe.ltrim(k.events(mid), -EVENTS_KEPT, -1)
        for rec in change.history:
            pipe.xadd(k.outbox, {"data": dumps(rec)})
        # Lobby indexes, scored by creation time so the newest come first.
        if doc["status"] == "open":
            pipe.zadd(k.open, {mid: doc["created_at"]})
        else:
            pipe.zrem(k.open, mid)
        if doc["status"] == "live":
            pipe.zadd(k.live, {mid: doc["created_at"]})
        else:
            pipe.zrem(k.live, mid)
        if doc["deadlines"]:
            pipe.zadd(k.deadlines, {mid: min(doc["deadlines"].values())})
        else:
            pipe.zrem(k.deadlines, mid)
        pipe.publish(k.channel(mid), str(doc["version"]))

    # ------------------------------------------------------------------ lobby
    async def create(self, game_id: str, options: dict, user: dict) -> dict:
        game = get_game(game_id)
        if game is None:
            raise ApiError("not_found", f"There is no game called '{game_id}'.")
        try:
            options = game.validate_options(options, None)
        except GameError as e:
            raise ApiError.from_game(e) from None
        fixed = options.get("seats") or (game.max_players if game.min_players == game.max_players else None)
        max_seats = fixed or game.max_players
        t = now()
        doc = {
            "id": uuid.uuid4().hex[:12],
            "game": game_id,
            "status": "open",
            "version": 1,
            "options": options,
            # As asked for, before the engine fills in table-size defaults (for rematches).
            "requested_options": options,
            # 63 bits so it fits a signed BIGINT in SQL.
            "seed": secrets.randbits(63),
            "seats": [{"seat": "A", "user": user}],
            "fixed_seats": fixed,
            "max_seats": max_seats,
            "host": user["id"],
            "created_at": t,
            "started_at": None,
            "finished_at": None,
            "result": None,
            "state": None,
            "cseq": {},
            "deadlines": {},
            "decisions": {},
            # Engine steps applied (actions, timeouts, resignations): the record is complete
            # when SQL holds this many.
            "steps": 0,
        }
        change = Change(doc, [event("created", by=user["name"])], [self._history(doc, "match")])
        async with self.r.pipeline(transaction=True) as pipe:
            self._queue_write(pipe, change)
            await pipe.execute()
        return doc

    async def join(self, mid: str, user: dict) -> dict:
        def compute(doc: dict) -> Change:
            if seat_of(doc, user["id"]):
                raise ApiError("already_seated", "You already have a seat in this match.")
            if doc["status"] != "open":
                raise ApiError("match_not_open", "This match is not open for joining.")
            if len(doc["seats"]) >= doc["max_seats"]:
                raise ApiError("match_full", "This match is full.")
            taken = {s["seat"] for s in doc["seats"]}
            seat = next(s for s in seat_names(doc["max_seats"]) if s not in taken)
            doc["seats"].append({"seat": seat, "user": user})
            doc["seats"].sort(key=lambda s: s["seat"])
            doc["version"] += 1
            events = [event("joined", seat=seat, name=user["name"])]
            history = [self._history(doc, "match")]
            if doc["fixed_seats"] and len(doc["seats"]) == doc["fixed_seats"]:
                events += self._start(doc)
            return Change(doc, events, history)

        return (await self.mutate(mid, compute)).doc

    async def leave(self, mid: str, user: dict) -> dict:
        def compute(doc: dict) -> Change:
            seat = seat_of(doc, user["id"])
            if seat is None:
                raise ApiError("forbidden", "You do not have a seat in this match.")
            if doc["status"] != "open":
                raise ApiError("match_not_open", "The match has started; resign instead.")
            doc["seats"] = [s for s in doc["seats"] if s["seat"] != seat]
            doc["version"] += 1
            events = [event("left", seat=seat, name=user["name"])]
            if not doc["seats"]:
                doc["status"] = "aborted"
                doc["finished_at"] = now()
            else:
                # Re-letter the seats so they stay A, B, C... in joining order.
                for s, name in zip(doc["seats"], seat_names(len(doc["seats"]))):
                    s["seat"] = name
                if doc["host"] == user["id"]:
                    doc["host"] = doc["seats"][0]["user"]["id"]
            return Change(doc, events, [self._history(doc, "match")])

        return (await self.mutate(mid, compute)).doc

    async def rematch(self, mid: str, user: dict) -> dict:
        """Open a new match with the same game and options and point the old one at it, so
        the other players' clients (watching the old match) see the offer at once. Offered
        twice, the first offer stands."""
        old = await self.load(mid)
        if old.get("rematch"):
            return await self.load(old["rematch"])
        new = await self.create(old["game"], dict(old.get("requested_options", old["options"])), user)

        def compute(doc: dict) -> Change:
            if doc.get("rematch"):
                return Change(doc, write=False)
            doc["rematch"] = new["id"]
            doc["version"] += 1
            return Change(doc, [event("rematch", match=new["id"], by=user["name"])], [])

        change = await self.mutate(mid, compute)
        if change.doc.get("rematch") != new["id"]:  # someone else's offer won the race
            await self.leave(new["id"], user)
            return await self.load(change.doc["rematch"])
        return new

    async def start(self, mid: str, user: dict) -> dict:
        def compute(doc: dict) -> Change:
            if doc["host"] != user["id"]:
                raise ApiError("forbidden", "Only the host can start the match.")
            if doc["status"] != "open":
                raise ApiError("match_not_open", "This match has already started.")
            if doc["fixed_seats"]:
                raise ApiError("table_not_full", f"This table starts by itself when all "
                               f"{doc['fixed_seats']} seats are taken.")
            game = get_game(doc["game"])
            if len(doc["seats"]) < game.min_players:
                raise ApiError(
                    "illegal_action", f"{game.name} needs at least {game.min_players} players."
                )
            doc["version"] += 1
            events = self._start(doc)
            return Change(doc, events, [self._history(doc, "match")])

        return (await self.mutate(mid, compute)).doc

    def _start(self, doc: dict) -> list[dict]:
        game = get_game(doc["game"])
        seats = [s["seat"] for s in doc["seats"]]
        try:
            state = game.setup(doc["options"], seats, doc["seed"])
        except GameError as e:
            raise ApiError.from_game(e) from None
        doc["state"] = state
        doc["options"] = state["options"]
        doc["status"] = "live"
        doc["started_at"] = now()
        doc["cseq"] = {s: 0 for s in seats}
        self._after_engine_step(doc, game, actor=None)
        return [event("started", seats=seats)]

    # ------------------------------------------------------------------ playing
    async def act(
        self,
        mid: str,
        user_id: str,
        action: Any,
        client_seq: int | None = None,
        expected_version: int | None = None,
    ) -> Change:
        def compute(doc: dict) -> Change:
            seat = seat_of(doc, user_id)
            if seat is None:
                raise ApiError("forbidden", "You do not have a seat in this match.")
            if client_seq is not None and client_seq <= doc["cseq"].get(seat, 0):
                # Already used. The same action again is a retry after a dropped connection:
                # acknowledge without redoing it. A different action under a used number (a
                # second tab that had not seen the first one's move) is refused, not dropped.
                sent = dict((k, a) for k, a in doc.get("recent", {}).get(seat, []))
                if sent.get(client_seq, action) != action:
                    raise ApiError("client_seq_reused",
                                   "That move number was already used for another move (from "
                                   "another tab?); look at the match again and retry.")
                return Change(doc, duplicate=True, write=False)
            if doc["status"] == "open":
                raise ApiError("not_your_turn", "The match has not started yet.")
            if doc["status"] != "live":
                raise ApiError("match_over", "The match is over.")
            if expected_version is not None and expected_version != doc["version"]:
                raise ApiError(
                    "stale_version",
                    f"The match has moved on (version {doc['version']}, you sent "
                    f"{expected_version}); look at the new position and try again.",
                )
            game = get_game(doc["game"])
            try:
                state, events = game.apply(doc["state"], seat, action)
            except GameError as e:
                raise ApiError.from_game(e) from None
            kind = "resign" if action.get("type") == "resign" else "action"
            rec = self._commit_step(doc, game, state, seat, user_id, kind, action, client_seq)
            return Change(doc, events, [rec])

        return await self.mutate(mid, compute)

    async def fire_timeouts(self, mid: str, at: float | None = None) -> Change:
        """Play the clock's move for every seat whose deadline has passed. Safe to call from
        every process at once: the compare-and-set lets exactly one of them do it."""
        at = now() if at is None else at

        def compute(doc: dict) -> Change:
            if doc["status"] != "live":
                return Change(doc, write=False)
            due = sorted(s for s, d in doc["deadlines"].items() if d <= at)
            game = get_game(doc["game"])
            events, history = [], []
            for seat in due:
                state = doc["state"]
                if state.get("result") is not None or seat not in game.pending(state):
                    continue
                state, evs = game.timeout(state, seat)
                events += evs
                history.append(self._commit_step(doc, game, state, seat, None, "timeout", None, None))
            if not history:
                return Change(doc, write=False)
            return Change(doc, events, history)

        return await self.mutate(mid, compute)

    def _commit_step(self, doc, game, state, seat, user_id, kind, action, client_seq) -> dict:
        """Put an engine step into the document; returns its history record."""
        doc["state"] = state
        doc["version"] += 1
        doc["steps"] += 1
        if client_seq is not None:
            doc["cseq"][seat] = client_seq
            recent = doc.setdefault("recent", {}).setdefault(seat, [])
            recent.append([client_seq, action])
            del recent[:-RECENT_ACTIONS_KEPT]
        result = game.result(state)
        if result is not None:
            doc["status"] = "finished"
            doc["result"] = result
            doc["finished_at"] = now()
        self._after_engine_step(doc, game, actor=seat)
        return self._history(doc, kind, seat=seat, user_id=user_id, action=action)

    def _after_engine_step(self, doc: dict, game, actor: str | None) -> None:
        """Refresh the per-seat decision deadlines. A seat still facing the same decision
        keeps its running clock when somebody else acted (simultaneous decisions)."""
        clock = doc["options"].get("clock_seconds")
        if doc["status"] != "live":
            doc["deadlines"], doc["decisions"] = {}, {}
            return
        pending = game.pending(doc["state"])
        old_d, old_dec = doc.get("deadlines", {}), doc.get("decisions", {})
        t = now()
        deadlines = {}
        for seat, decision in pending.items():
            if clock is None:
                continue
            if seat != actor and seat in old_d and old_dec.get(seat) == decision:
                deadlines[seat] = old_d[seat]
            else:
                deadlines[seat] = t + clock
        doc["deadlines"] = deadlines
        doc["decisions"] = dict(pending)

    def _history(self, doc: dict, kind: str, **extra: Any) -> dict:
        return {"kind": kind, "at": now(), "match": header(doc), **extra}

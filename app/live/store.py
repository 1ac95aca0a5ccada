"""The authoritative live-match store.

A match is one JSON document in Redis under ``m:<id>``, carrying a ``version``. Every change
goes through :meth:`MatchStore.mutate`: read the document, compute the new one with the engine,
and hand both to one Lua script (``CAS_LUA``) that writes only if the stored document is still
exactly the one read, and in the same atomic step

* appends that change's events (with their visibility) to ``m:<id>:ev``,
* appends a history record to the outbox stream (drained into SQL by ``outbox``),
* updates the lobby sets and the clock's deadline set,
* publishes the new version on ``mch:<id>`` so every process re-renders its own sockets.

If another writer got there first, the script writes nothing and returns the current document,
and the change is recomputed from it: no lost update, on one process or many. That is one round
trip per change when the document is already known: each process keeps the raw document of the
matches it last wrote or read (``_raw``), and a stale copy costs only a recomputation.
"""
from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis.asyncio as aioredis

from app.errors import ApiError
from app.secret_options import check_lobby_options, without_secrets
from games import fairness
from games.base import GameError, event, seat_names
from games.registry import get_game

# Event batches kept per match for resuming clients (a change is one batch). A client away
# for longer gets the whole current view with the newest 16 batches; older ones are in SQL
# history. (100 made a live Duell match cost ~20 KiB of Redis; 16 keeps it under 8.)
EVENTS_KEPT = 16
MAX_CAS_RETRIES = 100
# Per seat, the last actions with their client_seq: enough to tell a retry from a reuse.
RECENT_ACTIONS_KEPT = 4
# Raw documents kept per process for the one-round-trip compare-and-set.
RAW_CACHE_SIZE = 4096

# Compare-and-set: ARGV[1] is the document as read, ARGV[2] the new document, ARGV[3] a JSON
# list of the other commands that make the change ([CMD, arg, ...]; an argument that is a
# number n stands for ARGV[n]: the document and the other large values travel on their own,
# so they are not escaped into that list and decoded again). If the stored document is not
# ARGV[1] any more, nothing is written and the current one comes back for a retry.
#
# ARGV[4]: how many subscriptions to the match's change channel the writing process holds
# itself (0 or 1, see ``Hub.listening``). Its own sockets get the change from the writer
# directly, so the notice is published only when somebody else listens too (PUBSUB NUMSUB,
# in the same atomic step, so a process that subscribes later reads the new document).
#
# With a guard (``Guard``: KEYS[2] the acting user's status, KEYS[3] their token's sign-out mark,
# ARGV[5] the token's generation, ARGV[6] "1" for an account), the user's standing is checked in
# the same step, before anything else: signed out, suspended, or a token from before a password
# change returns {2}, as does an account whose status is not cached (the caller looks it up in
# SQL). That saves a socket's every action a round trip of its own for the check.
CAS_LUA = """
if #KEYS > 1 then
  if redis.call('EXISTS', KEYS[3]) == 1 then
    return {2, false}
  end
  local st = redis.call('GET', KEYS[2])
  if st then
    local s = cjson.decode(st)
    if s['suspended'] or tonumber(s['gen']) ~= tonumber(ARGV[5]) then
      return {2, false}
    end
  elseif ARGV[6] == '1' then
    return {2, false}
  end
end
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then
  return {0, cur or false}
end
redis.call('SET', KEYS[1], ARGV[2])
local mine = tonumber(ARGV[4])
for _, c in ipairs(cjson.decode(ARGV[3])) do
  for i = 2, #c do
    if type(c[i]) == 'number' then c[i] = ARGV[c[i]] end
  end
  if c[1] == 'PUBLISH' and mine > 0 then
    if redis.call('PUBSUB', 'NUMSUB', c[2])[2] > mine then
      redis.call(unpack(c))
    end
  else
    redis.call(unpack(c))
  end
end
return {1, false}
"""


def now() -> float:
    return time.time()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"


def dumps(value: Any) -> str:
    """Compact JSON text (orjson: JSON is a large share of the CPU per action)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # what orjson refuses (e.g. integers beyond 64 bits), json still writes
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN and the like, which json (and so our clients) allow
        return json.loads(text)


@dataclass(frozen=True)
class Guard:
    """The acting user's standing, checked inside the compare-and-set (see ``CAS_LUA``); built
    by ``app.auth.standing_guard``."""

    status_key: str
    revoked_key: str
    gen: int
    account: bool


class StandingChanged(Exception):
    """The guard refused: the user may be signed out or suspended, or their status is not
    cached. Nothing was written; the caller runs the full check (``app.auth.authenticate``),
    which says why, and may try again."""


@dataclass
class Change:
    """What one transaction produced."""

    doc: dict
    events: list[dict] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    duplicate: bool = False
    write: bool = True


class _Commands:
    """Collects what ``_queue_write`` asks of a pipeline as ``[COMMAND, arg, ...]`` lists for
    ``CAS_LUA`` (only the pipeline methods ``_queue_write`` uses). Large values (the event
    batch, history records) travel as script arguments of their own: in the list they are the
    number of that argument, so they are neither escaped into it nor parsed out of it again."""

    def __init__(self, first_blob_arg: int):
        self.out: list[list] = []
        self.blobs: list[str] = []
        self.first = first_blob_arg

    def _blob(self, value: str) -> int:
        self.blobs.append(value)
        return self.first + len(self.blobs) - 1

    def set(self, key: str, value: str) -> None:
        self.out.append(["SET", key, value])

    def expire(self, key: str, seconds: int) -> None:
        self.out.append(["EXPIRE", key, str(int(seconds))])

    def persist(self, key: str) -> None:
        self.out.append(["PERSIST", key])

    def rpush(self, key: str, value: str) -> None:
        self.out.append(["RPUSH", key, self._blob(value)])

    def ltrim(self, key: str, start: int, end: int) -> None:
        self.out.append(["LTRIM", key, str(start), str(end)])

    def xadd(self, key: str, fields: dict) -> None:
        self.out.append(["XADD", key, "*", *[x for f, v in fields.items() for x in (f, self._blob(v))]])

    def zadd(self, key: str, mapping: dict) -> None:
        for member, score in mapping.items():
            self.out.append(["ZADD", key, repr(float(score)), member])

    def zrem(self, key: str, member: str) -> None:
        self.out.append(["ZREM", key, member])

    def publish(self, channel: str, message: str) -> None:
        self.out.append(["PUBLISH", channel, message])


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

    def hosting(self, user_id: str) -> str:
        """The open tables a user hosts (scored by creation time): the per-host cap."""
        return f"{self.p}hosting:{user_id}"


def header(doc: dict) -> dict:
    """The part of the document history needs (no engine state; the server seed only once the
    match is over, so SQL never holds it before then)."""
    out = {k: doc[k] for k in (
        "id", "game", "status", "version", "options", "seed", "seats", "host",
        "created_at", "started_at", "finished_at", "result", "steps",
    )}
    out["fairness"] = public_fairness(doc)
    return out


OVER = ("finished", "aborted")


def draw_server_seed() -> str:
    """The server's secret seed for a new match (docs/fairness.md)."""
    return secrets.token_hex(fairness.SERVER_SEED_BYTES)


def draw_player_seed() -> str:
    """A seed for a seat whose player brought none (bots, tournament seats, older clients)."""
    return secrets.token_hex(16)


def public_fairness(doc: dict) -> dict | None:
    """The ``fairness`` block of summaries, views and history: the commitment and the players'
    seeds from creation on; the server seed (and the match seed it gave, as a decimal string:
    JavaScript numbers cannot hold 63 bits) only once the match is over. None for a document
    from before provably fair chance."""
    f = doc.get("fairness")
    if f is None:
        return None
    by_user = f["player_seeds"]
    over = doc["status"] in OVER
    return {
        "server_seed_sha256": f["server_seed_sha256"],
        "player_seeds": {s["seat"]: by_user[s["user"]["id"]] for s in doc["seats"]
                         if s["user"] and s["user"]["id"] in by_user},
        "server_seed": f["server_seed"] if over else None,
        "match_seed": str(doc["seed"]) if over and doc.get("seed") is not None else None,
    }


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
        "options": game.public_options(doc["options"]) if game else doc["options"],
        "host": doc["host"],
        "min_players": game.min_players if game else 2,
        "max_players": doc["max_seats"],
        "created_at": iso(doc["created_at"]),
        "started_at": iso(doc.get("started_at")),
        "finished_at": iso(doc.get("finished_at")),
        "result": doc.get("result"),
        "abort_reason": doc.get("abort_reason"),
        "rematch": doc.get("rematch"),
        "fairness": public_fairness(doc),
    }


def new_document(game_id: str, options: dict, seats: list[dict], fixed_seats: int | None,
                 max_seats: int, match_id: str | None = None,
                 player_seeds: dict[str, str | None] | None = None) -> dict:
    """A new open match; the first seat's user hosts it. ``player_seeds``: user id -> the seed
    that player sent (None or missing: the server draws one)."""
    server_seed = draw_server_seed()
    given = player_seeds or {}
    return {
        "id": match_id or uuid.uuid4().hex[:12],
        "game": game_id,
        "status": "open",
        "version": 1,
        "options": options,
        # As asked for, before the engine fills in table-size defaults (for rematches).
        "requested_options": options,
        # The engine's seed: derived when the match starts, from the server's seed and every
        # seat's seed (games/fairness.py), so nobody alone chooses the deal.
        "seed": None,
        # The server's seed stays in this document until the match is over; only its hash and
        # the players' seeds (by user id) are shown before then (``public_fairness``).
        "fairness": {
            "server_seed": server_seed,
            "server_seed_sha256": fairness.commitment(server_seed),
            "player_seeds": {s["user"]["id"]: given.get(s["user"]["id"]) or draw_player_seed()
                             for s in seats},
        },
        "seats": seats,
        "fixed_seats": fixed_seats,
        "max_seats": max_seats,
        "host": seats[0]["user"]["id"],
        "created_at": now(),
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


def _add_player_seed(doc: dict, user_id: str, seed: str) -> None:
    if doc.get("fairness"):
        doc["fairness"]["player_seeds"][user_id] = seed


def _span(seconds: int) -> str:
    """'24 hours', '1 hour', '90 minutes': a duration for a sentence."""
    n, unit = (seconds // 3600, "hour") if seconds % 3600 == 0 else (max(1, seconds // 60), "minute")
    return f"{n} {unit}{'' if n == 1 else 's'}"


def seat_of(doc: dict, user_id: str) -> str | None:
    for s in doc["seats"]:
        if s["user"] and s["user"]["id"] == user_id:
            return s["seat"]
    return None


class MatchStore:
    def __init__(self, redis: aioredis.Redis, prefix: str = "dh:", finished_ttl: int = 86400,
                 line=None, open_ttl: int = 0, max_open_per_host: int = 0):
        """``line``: a ``MultiplexedRedis`` on the same server for the hot path (the
        compare-and-set and document reads); without one (embedded mode) redis-py does it.
        ``open_ttl``: seconds after which an open table that has not started is aborted (0:
        never); ``max_open_per_host``: open tables one user may host at once (0: any number)."""
        self.r = redis
        self.k = Keys(prefix)
        self.finished_ttl = finished_ttl
        self.open_ttl = open_ttl
        self.max_open_per_host = max_open_per_host
        # The time open tables expire by (tests move it forward instead of waiting).
        self.clock: Callable[[], float] = now
        self.line = line
        self._cas_script = redis.register_script(CAS_LUA)
        # match id -> the raw document last written or read here (insertion-ordered: LRU-ish).
        self._raw: dict[str, str] = {}

    async def _get(self, key: str) -> str | None:
        if self.line is not None:
            return await self.line.get(key)
        return await self.r.get(key)

    async def _cas(self, keys: list[str], args: list[str]):
        if self.line is not None:
            return await self.line.run_script(CAS_LUA, keys, args)
        return await self._cas_script(keys=keys, args=args)

    async def close(self) -> None:
        if self.line is not None:
            await self.line.aclose()

    def _remember(self, mid: str, raw: str) -> None:
        self._raw.pop(mid, None)
        self._raw[mid] = raw
        if len(self._raw) > RAW_CACHE_SIZE:
            del self._raw[next(iter(self._raw))]

    # ------------------------------------------------------------------ reading
    async def load(self, mid: str) -> dict:
        raw = await self._get(self.k.match(mid))
        if raw is None:
            self._raw.pop(mid, None)
            raise ApiError("not_found", "There is no match with that id.")
        self._remember(mid, raw)
        return loads(raw)

    async def load_many(self, ids: list[str]) -> list[dict]:
        if not ids:
            return []
        raws = await self.r.mget([self.k.match(i) for i in ids])
        return [loads(r) for r in raws if r]

    async def events_since(self, mid: str, since: int) -> list[dict]:
        """Event batches with version > since, oldest first (each: {version, events})."""
        raws = await self.r.lrange(self.k.events(mid), 0, -1)
        batches = [loads(r) for r in raws]
        return [b for b in batches if b["version"] > since]

    async def list_status(self, status: str, limit: int = 100) -> list[dict]:
        key = {"open": self.k.open, "live": self.k.live}.get(status)
        if key is None:
            return []
        if status == "open" and self.open_ttl:
            await self.expire_open_tables()  # lazily, when somebody looks at the lobby
            ids = await self.r.zrevrangebyscore(key, "+inf", f"({self._open_cutoff()!r}",
                                                start=0, num=limit)
        else:
            ids = await self.r.zrevrange(key, 0, limit - 1)
        return await self.load_many(ids)

    def _open_cutoff(self) -> float:
        """Open tables created at or before this time have expired."""
        return self.clock() - self.open_ttl if self.open_ttl else float("-inf")

    async def expire_open_tables(self, batch: int = 20) -> int:
        """Abort the (at most ``batch``) oldest open tables past ``open_ttl``; each leaves the
        lobby and its host's count, and its keys expire like a finished match's. A table whose
        keys are gone already only loses its lobby entry. Returns how many were handled."""
        cutoff = self._open_cutoff()
        ids = await self.r.zrangebyscore(self.k.open, "-inf", cutoff, start=0, num=batch)
        reason = f"Nobody started this table within {_span(self.open_ttl)}."

        def compute(doc: dict) -> Change:
            if doc["status"] != "open" or doc["created_at"] > cutoff:  # started meanwhile
                return Change(doc, write=False)
            return self._abort(doc, reason)

        for mid in ids:
            try:
                await self.mutate(mid, compute)
            except ApiError as e:
                if e.code != "not_found":
                    raise
                await self.r.zrem(self.k.open, mid)
        return len(ids)

    # ------------------------------------------------------------------ the one write path
    async def mutate(self, mid: str, compute: Callable[[dict], Change],
                     guard: Guard | None = None, listening: int = 0) -> Change:
        """Compute a change from the current document and store it atomically (see CAS_LUA).

        ``compute`` gets a fresh dict each try and may change it in place; it may run more
        than once, so it must not have side effects outside the change it returns. With a
        ``guard`` a write happens only while the acting user is in good standing; otherwise
        :class:`StandingChanged` is raised. (A change that writes nothing is not guarded.)
        ``listening``: this process's own confirmed subscriptions to the match's channel (see
        ``CAS_LUA``); 0 always publishes."""
        key = self.k.match(mid)
        keys = [key] if guard is None else [key, guard.status_key, guard.revoked_key]
        extra = [str(listening)]
        if guard is not None:
            extra += [str(guard.gen), "1" if guard.account else "0"]
        raw = self._raw.get(mid)
        verified = raw is None  # a cached copy may be stale until Redis has confirmed it
        if raw is None:
            raw = await self._get(key)
        for _ in range(MAX_CAS_RETRIES):
            if raw is None:
                self._raw.pop(mid, None)
                raise ApiError("not_found", "There is no match with that id.")
            try:
                doc = loads(raw)
                before = (doc["status"], dict(doc["deadlines"]), doc["host"])
                change = compute(doc)
            except ApiError:
                # A refusal must be decided on the stored document, not on a stale copy.
                if verified:
                    raise
                change = None
            if change is None or not change.write:
                if not verified:
                    fresh = await self._get(key)
                    verified = True
                    if fresh != raw:
                        raw = fresh
                        continue
                    if change is None:  # the same document: the refusal stands
                        change = compute(loads(raw))
                if raw is not None:
                    self._remember(mid, raw)
                return change
            commands = _Commands(first_blob_arg=4 + len(extra))
            self._queue_write(commands, change, before)
            # _queue_write's first command stores the document: the script does that itself.
            (_, _, new_raw), rest = commands.out[0], commands.out[1:]
            ok, current = await self._cas(keys=keys, args=[raw, new_raw, dumps(rest), *extra,
                                                           *commands.blobs])
            if ok == 1:
                self._remember(mid, new_raw)
                return change
            if ok == 2:
                raise StandingChanged(mid)
            raw = current  # somebody else wrote first: recompute from their document
            verified = True
        raise ApiError("unavailable", "The match is too busy right now; try again.", 503)

    def _queue_write(self, pipe, change: Change, before: tuple | None = None) -> None:
        """``before``: the stored document's (status, deadlines, host) that this change
        replaces; the lobby, host and clock indexes are then touched only where they change (a
        plain move in a live match without a clock changes none)."""
        doc = change.doc
        mid = doc["id"]
        k = self.k
        pipe.set(k.match(mid), dumps(doc))
        if doc["status"] in ("finished", "aborted"):
            pipe.expire(k.match(mid), self.finished_ttl)
            pipe.expire(k.events(mid), self.finished_ttl)
        batch = {"version": doc["version"], "events": change.events}
        pipe.rpush(k.events(mid), dumps(batch))
        pipe.ltrim(k.events(mid), -EVENTS_KEPT, -1)
        self._queue_open_table(pipe, doc, before)
        for rec in change.history:
            pipe.xadd(k.outbox, {"data": dumps(rec)})
        # Lobby indexes, scored by creation time so the newest come first.
        if before is None or before[0] != doc["status"]:
            if doc["status"] == "open":
                pipe.zadd(k.open, {mid: doc["created_at"]})
            else:
                pipe.zrem(k.open, mid)
            if doc["status"] == "live":
                pipe.zadd(k.live, {mid: doc["created_at"]})
            else:
                pipe.zrem(k.live, mid)
        if before is None or before[1] != doc["deadlines"]:
            if doc["deadlines"]:
                pipe.zadd(k.deadlines, {mid: min(doc["deadlines"].values())})
            else:
                pipe.zrem(k.deadlines, mid)
        pipe.publish(k.channel(mid), str(doc["version"]))

    def _queue_open_table(self, pipe, doc: dict, before: tuple | None) -> None:
        """An open table is in its host's index (the per-host cap), and its keys expire
        ``open_ttl`` plus a finished match's keep after it was made: a backstop, since
        ``expire_open_tables`` aborts it first when the lobby is read. Once it starts it leaves
        the index and its keys stay."""
        k, mid = self.k, doc["id"]
        was_open = before is not None and before[0] == "open"
        old_host = before[2] if before is not None and was_open else None
        if doc["status"] != "open":
            if was_open:
                pipe.zrem(k.hosting(old_host), mid)
                if doc["status"] == "live":
                    pipe.persist(k.events(mid))  # the document's SET dropped its own expiry
            return
        if old_host != doc["host"]:  # new, or the host left and the role passed on
            if was_open:
                pipe.zrem(k.hosting(old_host), mid)
            pipe.zadd(k.hosting(doc["host"]), {mid: doc["created_at"]})
            if self.open_ttl:
                pipe.expire(k.hosting(doc["host"]), self.open_ttl + self.finished_ttl)
        if self.open_ttl:
            left = max(1, int(doc["created_at"] + self.open_ttl + self.finished_ttl - self.clock()))
            pipe.expire(k.match(mid), left)  # every write: SET drops a key's expiry
            pipe.expire(k.events(mid), left)

    # ------------------------------------------------------------------ lobby
    async def create(self, game_id: str, options: dict, user: dict, seed: str | None = None) -> dict:
        """A new open match with ``user`` at seat A; ``seed``: their own entropy (checked by the
        router), or None for one drawn here."""
        game = get_game(game_id)
        if game is None:
            raise ApiError("not_found", f"There is no game called '{game_id}'.")
        try:
            options = game.validate_options(options, None)
        except GameError as e:
            raise ApiError.from_game(e) from None
        check_lobby_options(game, options, "A")  # the creator takes seat A
        fixed = options.get("seats") or (game.max_players if game.min_players == game.max_players else None)
        doc = new_document(game_id, options, [{"seat": "A", "user": user}], fixed,
                           fixed or game.max_players, player_seeds={user["id"]: seed})
        change = Change(doc, [event("created", by=user["name"])], [self._history(doc, "match")])
        await self._insert_open_table(change)
        return doc

    async def _insert_open_table(self, change: Change) -> None:
        """Store a new open table within its host's cap: the count and the write are one
        transaction (WATCH on the host's index, which every change of the host's open tables
        writes, so a concurrent creation or start makes this one count again)."""
        from redis.exceptions import WatchError

        doc = change.doc
        hosting = self.k.hosting(doc["host"])
        for _ in range(MAX_CAS_RETRIES):
            async with self.r.pipeline(transaction=True) as pipe:
                try:
                    if self.max_open_per_host:
                        await pipe.watch(hosting)
                        cutoff = self._open_cutoff()
                        live_from = f"({cutoff!r}" if self.open_ttl else "-inf"
                        hosted = await pipe.zcount(hosting, live_from, "+inf")
                        if hosted >= self.max_open_per_host:
                            await pipe.unwatch()
                            raise ApiError("too_many_open_matches", (
                                f"You already have {hosted} open tables waiting (at most "
                                f"{self.max_open_per_host}); start or leave one first."))
                        pipe.multi()
                        if self.open_ttl:
                            pipe.zremrangebyscore(hosting, "-inf", cutoff)  # expired entries
                    self._queue_write(pipe, change)
                    await pipe.execute()
                    return
                except WatchError:
                    continue
        raise ApiError("unavailable", "The lobby is too busy right now; try again.", 503)

    async def join(self, mid: str, user: dict, seed: str | None = None) -> dict:
        seed = seed or draw_player_seed()

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
            _add_player_seed(doc, user["id"], seed)
            doc["version"] += 1
            events = [event("joined", seat=seat, name=user["name"])]
            if doc["fixed_seats"] and len(doc["seats"]) == doc["fixed_seats"]:
                events += self._start(doc)
            # After the start, so SQL sees the match live (with started_at) at this version.
            return Change(doc, events, [self._history(doc, "match")])

        return (await self.mutate(mid, compute)).doc

    async def leave(self, mid: str, user: dict) -> dict:
        def compute(doc: dict) -> Change:
            seat = seat_of(doc, user["id"])
            if seat is None:
                raise ApiError("forbidden", "You do not have a seat in this match.")
            if doc["status"] != "open":
                raise ApiError("match_not_open", "The match has started; resign instead.")
            doc["seats"] = [s for s in doc["seats"] if s["seat"] != seat]
            if doc.get("fairness"):
                doc["fairness"]["player_seeds"].pop(user["id"], None)
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

    async def rematch(self, mid: str, user: dict, seed: str | None = None) -> dict:
        """Open a new match with the same game and options (secret ones left out) and point the
        old one at it, so the other players' clients (watching the old match) see the offer at
        once. Offered twice, the first offer stands."""
        old = await self.load(mid)
        if old.get("rematch"):
            return await self.load(old["rematch"])
        # No secret option (a fixed deck) is carried over: the seats choose again.
        options = without_secrets(get_game(old["game"]), old.get("requested_options", old["options"]))
        new = await self.create(old["game"], options, user, seed)

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
        if doc.get("fairness"):  # (a document from before provably fair chance has its seed)
            for s in doc["seats"]:
                doc["fairness"]["player_seeds"].setdefault(s["user"]["id"], draw_player_seed())
            public = public_fairness(doc)
            assert public is not None
            doc["seed"] = fairness.match_seed(doc["fairness"]["server_seed"], public["player_seeds"])
        try:
            state = game.setup(doc["options"], seats, doc["seed"])
        except GameError as e:
            raise ApiError.from_game(e) from None
        doc["state"] = state
        doc["options"] = state["options"]
        doc["status"] = "live"
        doc["started_at"] = now()
        doc["cseq"] = dict.fromkeys(seats, 0)
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
        guard: Guard | None = None,
        listening: int = 0,
    ) -> Change:
        def compute(doc: dict) -> Change:
            seat = seat_of(doc, user_id)
            if seat is None:
                raise ApiError("forbidden", "You do not have a seat in this match.")
            if client_seq is not None and client_seq <= doc["cseq"].get(seat, 0):
                # Already used. The same action again is a retry after a dropped connection:
                # acknowledge without redoing it. A different action under a used number (a
                # second tab that had not seen the first one's move) is refused, not dropped.
                sent = dict(doc.get("recent", {}).get(seat, []))
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
                # In place: ``doc`` is this try's own fresh parse of the stored document, and a
                # refused action (which may leave it half-changed) discards it. Saves a deep
                # copy of the engine state per move.
                state, events = game.apply(doc["state"], seat, action, copy=False)
            except GameError as e:
                raise ApiError.from_game(e) from None
            kind = "resign" if action.get("type") == "resign" else "action"
            rec = self._commit_step(doc, game, state, seat, user_id, kind, action, client_seq,
                                    events)
            return Change(doc, events, [rec])

        return await self.mutate(mid, compute, guard, listening)

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
                history.append(self._commit_step(doc, game, state, seat, None, "timeout", None, None,
                                                 evs))
            if not history:
                return Change(doc, write=False)
            return Change(doc, events, history)

        return await self.mutate(mid, compute)

    def _commit_step(self, doc, game, state, seat, user_id, kind, action, client_seq,
                     events) -> dict:
        """Put an engine step into the document; returns its history record, which carries the
        step's events as the engine made them (with their visibility) so the finished match's
        record can be checked step by step (``duelhall verify``, docs/fairness.md)."""
        doc["state"] = state
        doc["version"] += 1
        doc["steps"] += 1
        if client_seq is not None:
            doc["cseq"][seat] = client_seq
            recent = doc.setdefault("recent", {}).setdefault(seat, [])
            recent.append([client_seq, action])
            del recent[:-RECENT_ACTIONS_KEPT]
        if user_id is not None:  # the seat's first own move (not the clock's): no-show rules
            doc.setdefault("moved", {}).setdefault(seat, doc["version"])
        result = game.result(state)
        if result is not None:
            doc["status"] = "finished"
            doc["result"] = result
            doc["finished_at"] = now()
        self._after_engine_step(doc, game, actor=seat)
        return self._history(doc, kind, seat=seat, user_id=user_id, action=action, events=events)

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

    # ------------------------------------------------------------------ computer players
    async def add_bots(self, mid: str, host_id: str | None,
                       bots_for: Callable[[dict], list[dict]], start: bool = False) -> Change:
        """Seat computer players (user dicts with a ``bot`` level, see app/live/bots.py) at an
        open table in one change: all or none. ``bots_for(doc)`` names them from the current
        document (ids unique in the match); none: nothing is written. ``host_id`` None skips
        the host check (the server seating bots for a rematch). A fixed-size table that fills
        up starts, as on a join; ``start`` also starts a table with a player range."""
        def compute(doc: dict) -> Change:
            if host_id is not None and doc["host"] != host_id:
                raise ApiError("not_host", "Only the host can add computer players.")
            if doc["status"] != "open":
                raise ApiError("match_not_open", "This match has already started.")
            bots = bots_for(doc)
            if not bots:
                return Change(doc, write=False)
            free = doc["max_seats"] - len(doc["seats"])
            if len(bots) > free:
                raise ApiError("match_full", "There is no free seat for a computer player."
                               if free == 0 else f"There is room for {free} more player(s) only.")
            taken = {s["seat"] for s in doc["seats"]}
            events = []
            for bot in bots:
                seat = next(s for s in seat_names(doc["max_seats"]) if s not in taken)
                taken.add(seat)
                doc["seats"].append({"seat": seat, "user": bot})
                _add_player_seed(doc, bot["id"], draw_player_seed())
                events.append(event("joined", seat=seat, name=bot["name"], bot=bot["bot"]))
            doc["seats"].sort(key=lambda s: s["seat"])
            doc["version"] += 1
            full = len(doc["seats"]) == doc["max_seats"]
            if (doc["fixed_seats"] and full) or (start and not doc["fixed_seats"]):
                events += self._start(doc)
            return Change(doc, events, [self._history(doc, "match")])

        return await self.mutate(mid, compute)

    # ------------------------------------------------------------------ seated matches (tournaments)
    async def create_seated(self, game_id: str, options: dict, users: list[dict], tags: dict,
                            match_id: str | None = None) -> dict:
        """A match created full and started: ``users`` take seats A, B, ... in order. ``tags``
        go into the document as they are (a tournament puts ``{"tournament": {"id", "pairing",
        "game"}}`` there; observers read it). With ``match_id`` the call is idempotent: when a
        match with that id exists already it is returned unchanged, so two processes (or a retry
        after a crash) creating the same pairing's match make one match."""
        from redis.exceptions import WatchError

        game = get_game(game_id)
        if game is None:
            raise ApiError("not_found", f"There is no game called '{game_id}'.")
        try:
            options = game.validate_options(options, len(users))
        except GameError as e:
            raise ApiError.from_game(e) from None
        if not game.min_players <= len(users) <= game.max_players:
            raise ApiError("invalid_options", f"{game.name} is for {game.min_players}-{game.max_players} players.")
        # The seats are full and the match starts at once.
        seats = [{"seat": s, "user": u} for s, u in zip(seat_names(len(users)), users)]
        doc = {**new_document(game_id, options, seats, len(users), len(users), match_id), **tags}
        events = [event("created", by=users[0]["name"])] + self._start(doc)
        change = Change(doc, events, [self._history(doc, "match")])
        key = self.k.match(doc["id"])
        async with self.r.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(key)
                if await pipe.exists(key):
                    await pipe.unwatch()
                    return await self.load(doc["id"])
                pipe.multi()
                self._queue_write(pipe, change)
                await pipe.execute()
            except WatchError:  # created by somebody else meanwhile
                return await self.load(doc["id"])
        return doc

    async def end_match(self, mid: str, decide: Callable[[dict], tuple | None]) -> Change:
        """End a live match from outside the game (a tournament's no-show rule or round timer).
        ``decide(doc)`` sees the current document and returns ``(places, reason, extra)`` to end
        it with that result, or None to leave it; it runs inside the compare-and-set, so the
        decision and the end are one atomic step (a move made meanwhile is seen)."""
        def compute(doc: dict) -> Change:
            if doc["status"] != "live":
                return Change(doc, write=False)
            decision = decide(doc)
            if decision is None:
                return Change(doc, write=False)
            places, reason, extra = decision
            game = get_game(doc["game"])
            state = doc["state"]
            ended = game.finish(state, places, reason, **extra)
            doc["version"] += 1
            doc["status"] = "finished"
            doc["result"] = state["result"]
            doc["finished_at"] = now()
            self._after_engine_step(doc, game, actor=None)
            return Change(doc, [ended], [self._history(doc, "match")])

        return await self.mutate(mid, compute)

    async def abort_match(self, mid: str, reason: str) -> Change:
        """Stop an open or live match from outside, with no result (nobody wins, nobody is
        rated): its tournament was cancelled. ``reason`` is shown to its players."""
        def compute(doc: dict) -> Change:
            if doc["status"] not in ("open", "live"):
                return Change(doc, write=False)
            return self._abort(doc, reason)

        return await self.mutate(mid, compute)

    def _abort(self, doc: dict, reason: str) -> Change:
        doc["version"] += 1
        doc["status"] = "aborted"
        doc["abort_reason"] = reason
        doc["finished_at"] = now()
        self._after_engine_step(doc, get_game(doc["game"]), actor=None)  # clocks stop
        return Change(doc, [event("aborted", reason=reason)], [self._history(doc, "match")])

"""Computer players in live matches: who they are, seating them, and the runner that plays their
turns. See docs/bots.md.

A bot is a seat whose user is ``{"id": "bot-<level>-<n>", "name": "Computer (<level>)",
"role": "player", "bot": "<level>"}``: no account and no token; ``n`` numbers the bots of one
level within a match (Combat may seat several), so the same few ids recur across matches and a
bot's profile page gathers its games. History stores them as guest users marked ``is_bot``.

The runner is a match observer (``app/live/service.py``). When a change leaves a bot seat
pending it starts a task that

1. renders that seat's view document, exactly what the seat's person would get over the
   socket (``render(doc, seat, seat, [])``), and hands only that to ``games.bots.choose``;
2. seeds the bot's ``random.Random`` from (match seed, seat, version), so every process that
   computes this turn computes the same move;
3. acts through ``service.perform`` like a person, with ``version`` (a move computed on an old
   position is refused as stale and recomputed) and ``client_seq`` = the seat's last + 1 (the
   same move sent by two processes is applied once and acknowledged once).

Levels other than ``random`` compute in an executor (a spawned process pool by default), within
a budget set by the seat's clock; a move that would overrun falls back to the random level, so
a bot never loses on time. A lease per (match, version) in Redis keeps two processes from both
thinking about one turn, and a sweep over the set of matches with bots (``<prefix>bots``)
picks up turns a dead process left behind. Neither is needed for correctness: the store's
compare-and-set and ``client_seq`` already make a double move impossible.
"""
from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import random
from collections import Counter
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from prometheus_client import Counter as PromCounter

import games.bots as game_bots
from app.auth import User
from app.errors import ApiError
from app.live import service
from app.live.loops import pause
from app.live.store import Change, now
from app.live.views import render
from games import registry
from games.base import GameError, event
from games.registry import get_game

log = logging.getLogger("duelhall.bots")

BOT_MOVES = PromCounter("duelhall_bot_moves_total", "Moves made by computer players",
                        ["level", "how"])

# Levels cheap enough to choose on the event loop (microseconds); the rest go to the executor.
INLINE_LEVELS = frozenset({"random"})
# With a clock: think for at most this share of the time left, compute for at most this share
# of what remains, and keep this many seconds in hand for sending the move.
THINK_SHARE = 0.1
CLOCK_SHARE = 0.5
CLOCK_MARGIN = 0.5
# A turn's lease outlives its thinking and computing by this much (then the sweep may retry).
LEASE_SLACK_SECONDS = 5.0
# Refusals that mean somebody else got there first (another process, a person, the clock):
# the turn is looked at again, nothing is wrong.
RACE_CODES = frozenset({"stale_version", "client_seq_reused", "match_over"})
ENDED = ("finished", "aborted")
# Delete a turn lease only if it still holds this runner's name (it may have run out and been
# taken by another process since).
_RELEASE_LEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


# ------------------------------------------------------------------------------ identity
def is_bot(user: dict | None) -> bool:
    return bool(user and user.get("bot"))


def bot_user(level: str, n: int) -> dict:
    name = f"Computer ({level})" if n == 1 else f"Computer {n} ({level})"
    return {"id": f"bot-{level}-{n}", "name": name, "role": "player", "bot": level}


def name_bots(doc: dict, levels: list[str]) -> list[dict]:
    """Bot users for ``levels``, numbered per level so no id repeats one already seated."""
    used = {s["user"]["id"] for s in doc["seats"] if s["user"]}
    out = []
    for level in levels:
        n = 1
        while f"bot-{level}-{n}" in used:
            n += 1
        user = bot_user(level, n)
        used.add(user["id"])
        out.append(user)
    return out


def check_level(game_id: str, level: str) -> None:
    known = game_bots.levels(game_id)
    if level not in known:
        raise ApiError("unknown_bot_level",
                       f"There is no '{level}' computer player for this game; "
                       f"choose one of: {', '.join(known) or 'none'}.")


def bot_input(doc: dict, seat: str) -> dict:
    """What a bot at ``seat`` is given: that seat's own view document, nothing more."""
    return render(doc, seat, seat, [])


def levels_by_game() -> dict[str, list[str]]:
    return {info.id: list(info.levels) for info in registry.all_infos()}


# ------------------------------------------------------------------------------ lobby
async def play_computer(svc, user: User, game_id: str, options: dict, level: str,
                        count: int, seed: str | None = None) -> dict:
    """A new match: ``user`` at seat A (with their ``seed``, docs/fairness.md) and ``count`` bots
    of ``level`` (their seeds drawn by the server). It starts at once unless a table size
    (``options.seats``) leaves seats for people to join."""
    game = get_game(game_id)
    if game is None:
        raise ApiError("not_found", f"There is no game called '{game_id}'.")
    check_level(game_id, level)
    try:
        opts = game.validate_options(options, None)
    except GameError as e:
        raise ApiError.from_game(e) from None
    room = (opts.get("seats") or game.max_players) - 1
    if count > room:
        raise ApiError("invalid_options", f"{game.name} has room for {room} computer "
                       f"player{'s' if room != 1 else ''} besides you.")
    doc = await svc.store.create(game_id, options, user.public(), seed)
    change = await svc.store.add_bots(doc["id"], user.id, lambda d: name_bots(d, [level] * count),
                                      start=True)
    return await service.lobby_change(svc, change.doc)


async def add_computer(svc, match_id: str, user: User, level: str) -> dict:
    """The host seats one bot of ``level`` at an open table."""
    doc = await svc.store.load(match_id)
    check_level(doc["game"], level)
    change = await svc.store.add_bots(match_id, user.id, lambda d: name_bots(d, [level]))
    return await service.lobby_change(svc, change.doc)


# ------------------------------------------------------------------------------ the runner
def _warm_worker(added: dict) -> None:
    registry.restore(added)  # the games registered at run time in the server process
    game_bots.levels("duel")  # build the registry once per worker, not on its first move


class BotRunner:
    """Plays the bots' turns of the matches this process hears about. One per Services."""

    def __init__(self, svc):
        self.svc = svc
        self.store = svc.store
        self.r = svc.store.r
        self.settings = svc.settings
        self.key = f"{svc.store.k.p}bots"
        self.name = f"{svc.settings.instance_name}-{id(self):x}"
        self.active: dict[str, asyncio.Task] = {}
        # Matches that changed while their task was running: it looks once more before ending.
        self.dirty: set[str] = set()
        self.stats: Counter = Counter()
        self.closed = False
        self._executor: Executor | None = None
        # Turn leases this runner holds, by match: released by ``close`` (a process leaving
        # hands its turns over at once instead of when the leases run out).
        self._leases: dict[str, str] = {}

    # ---- wiring ------------------------------------------------------------------------
    async def observe(self, svc, doc: dict) -> None:
        """The match observer: remember matches with bots, and start a task where a bot has
        something to do."""
        if not any(is_bot(s["user"]) for s in doc["seats"]):
            return
        mid = doc["id"]
        if doc["status"] in ENDED:
            await self.r.srem(self.key, mid)
            if doc.get("rematch"):
                await self.seat_rematch(doc, doc["rematch"])
            return
        await self.r.sadd(self.key, mid)
        if self.needs_turn(doc):
            self.kick(mid)

    def kick(self, mid: str) -> None:
        if self.closed:
            return
        if mid in self.active:
            self.dirty.add(mid)
        else:
            self.active[mid] = asyncio.create_task(self._run(mid), name=f"bot:{mid}")

    async def settle(self) -> None:
        """Wait until no bot task runs (tests)."""
        while self.active:
            await asyncio.gather(*list(self.active.values()), return_exceptions=True)

    async def close(self) -> None:
        self.closed = True
        tasks = list(self.active.values())
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=3)
        # The turns cut short are another process's to play: its sweep finds them (within
        # BOT_SWEEP_SECONDS) once the lease is gone. Only leases still ours are deleted.
        held, self._leases = list(self._leases.values()), {}
        for key in held:
            try:
                await self.r.eval(_RELEASE_LEASE_LUA, 1, key, self.name)
            except Exception:  # Redis away: the lease runs out by itself
                log.warning("could not release a bot turn lease", extra={"key": key})
                break
        if self._executor is not None:
            # A search still running is abandoned, not waited for.
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # ---- the sweep ---------------------------------------------------------------------
    async def sweep_once(self) -> int:
        """Start a task for every match with a bot turn that nobody here is playing; forget
        matches that ended or expired. Returns how many tasks it started."""
        ids = sorted(await self.r.smembers(self.key))
        if not ids:
            return 0
        raws = await self.r.mget([self.store.k.match(i) for i in ids])
        started = 0
        for mid, raw in zip(ids, raws):
            doc = json.loads(raw) if raw else None
            if doc is None or doc["status"] in ENDED:
                await self.r.srem(self.key, mid)
            elif mid not in self.active and self.needs_turn(doc):
                self.kick(mid)
                started += 1
        return started

    async def sweep_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot sweep failed")
            await pause(stop, self.settings.bot_sweep_seconds)

    # ---- one match ---------------------------------------------------------------------
    @staticmethod
    def needs_turn(doc: dict) -> bool:
        if doc["status"] == "live" and doc.get("state") is not None:
            game = get_game(doc["game"])
            assert game is not None  # a stored match's game is registered
            pending = game.pending(doc["state"])
            return any(is_bot(s["user"]) and s["seat"] in pending for s in doc["seats"])
        if doc["status"] == "open":
            humans = [s for s in doc["seats"] if s["user"] and not is_bot(s["user"])]
            return not humans or _host_is_bot(doc)
        return False

    async def _run(self, mid: str) -> None:
        try:
            seen = None
            while not self.closed:
                self.dirty.discard(mid)
                try:
                    doc = await self.store.load(mid)
                except ApiError:  # expired
                    await self.r.srem(self.key, mid)
                    return
                progressed = False
                if doc["version"] != seen:
                    seen = doc["version"]
                    progressed = await self._step(doc)
                if not progressed and mid not in self.dirty:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot turn failed", extra={"match": mid})
        finally:
            self.active.pop(mid, None)

    async def _step(self, doc: dict) -> bool:
        if doc["status"] in ENDED:
            await self.r.srem(self.key, doc["id"])
            return False
        if doc["status"] == "open":
            return await self._tidy_open(doc)
        if doc["status"] == "live":
            return await self.play_round(doc)
        return False

    async def play_round(self, doc: dict, lease: bool = True) -> bool:
        """Play every bot seat pending in ``doc``. Returns whether the match moved (by this
        round or by whoever beat it to it), i.e. whether to look again."""
        game = get_game(doc["game"])
        assert game is not None  # a stored match's game is registered
        pending = game.pending(doc["state"])
        seats = [s for s in doc["seats"] if is_bot(s["user"]) and s["seat"] in pending]
        if not seats:
            return False
        think, budget = self._timing(doc, [s["seat"] for s in seats])
        if lease and not await self._take_lease(doc, think + budget + LEASE_SLACK_SECONDS):
            self.stats["leased_elsewhere"] += 1
            return False
        try:
            return await self._play_seats(doc, game, pending, seats, think, budget)
        finally:
            if not self.closed:  # when closing, ``close`` releases it
                self._leases.pop(doc["id"], None)

    async def _play_seats(self, doc: dict, game, pending: dict, seats: list[dict], think: float,
                          budget: float) -> bool:
        if think > 0:
            await asyncio.sleep(think)
        # Simultaneous decisions (Combat's fight, Párbaj's decks): every bot chooses on the
        # same position at once, then the moves go in one after the other.
        choices = await asyncio.gather(*(self._choose(doc, s, budget) for s in seats))
        cur = doc
        for s, (action, how) in zip(seats, choices):
            seat = s["seat"]
            if action is None:
                continue  # a broken level and no random fallback: the clock will move it
            if cur is not doc and game.pending(cur["state"]).get(seat) != pending[seat]:
                return True  # the position moved on beyond our own moves: choose again
            user = User(id=s["user"]["id"], name=s["user"]["name"], role="player", guest=True)
            # The version we checked is our own last write (or the document we chose on), so
            # a move computed on an older position is refused as stale, never misapplied.
            try:
                change = await service.perform(self.svc, doc["id"], user, action,
                                               cur["cseq"].get(seat, 0) + 1, cur["version"])
            except ApiError as e:
                if e.code in RACE_CODES:
                    self.stats["raced"] += 1
                    return True
                self.stats["refused"] += 1
                BOT_MOVES.labels(s["user"]["bot"], "refused").inc()
                log.warning("bot move refused", extra={"match": doc["id"], "seat": seat,
                                                       "code": e.code, "detail": e.message})
                return False
            if change.duplicate:  # another process sent this very move first
                self.stats["duplicates"] += 1
                return True
            self.stats["moves"] += 1
            BOT_MOVES.labels(s["user"]["bot"], how).inc()
            cur = change.doc
            if cur["status"] != "live":
                break
        return True

    def _timing(self, doc: dict, seats: list[str]) -> tuple[float, float]:
        """(think pause, compute budget) in seconds, within the earliest of the seats' clocks."""
        think = self.settings.bot_think_ms / 1000
        budget = self.settings.bot_move_seconds
        deadlines = [doc["deadlines"][s] for s in seats if s in (doc.get("deadlines") or {})]
        if deadlines:
            left = min(deadlines) - now()
            think = min(think, max(0.0, left * THINK_SHARE))
            budget = min(budget, max(0.0, (left - think) * CLOCK_SHARE - CLOCK_MARGIN))
        return think, budget

    async def _take_lease(self, doc: dict, ttl: float) -> bool:
        key = f"{self.store.k.p}botturn:{doc['id']}:{doc['version']}"
        taken = bool(await self.r.set(key, self.name, nx=True, px=max(1, int(ttl * 1000))))
        if taken:
            self._leases[doc["id"]] = key
        return taken

    async def _choose(self, doc: dict, s: dict, budget: float) -> tuple[dict | None, str]:
        """(action, "chosen" | "fallback"); None when even the random level has nothing."""
        seat, level, game_id = s["seat"], s["user"]["bot"], doc["game"]
        view = bot_input(doc, seat)
        seed = f"{doc['seed']}:{seat}:{doc['version']}"
        try:
            if level in INLINE_LEVELS:
                return game_bots.choose(game_id, level, view, random.Random(seed)), "chosen"
            if budget > 0:
                loop = asyncio.get_running_loop()
                future = loop.run_in_executor(self._pool(), game_bots.choose, game_id, level,
                                              view, random.Random(seed))
                return await asyncio.wait_for(future, budget), "chosen"
            self.stats["fallback:no_time"] += 1
        except TimeoutError:
            self.stats["fallback:slow"] += 1
            log.info("bot too slow, playing random", extra={"match": doc["id"], "level": level})
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool next time
            self.stats["fallback:error"] += 1
            log.warning("bot worker pool broken; starting a new one", extra={"match": doc["id"]})
            broken, self._executor = self._executor, None
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
        except Exception:
            self.stats["fallback:error"] += 1
            log.exception("bot failed, playing random", extra={"match": doc["id"], "level": level})
        try:
            return game_bots.choose(game_id, "random", view, random.Random(seed)), "fallback"
        except Exception:
            log.exception("random bot failed", extra={"match": doc["id"]})
            return None, "fallback"

    def _pool(self) -> Executor:
        if self._executor is None:
            workers = max(1, self.settings.bot_workers)
            if self.settings.bot_executor == "thread":
                self._executor = ThreadPoolExecutor(workers, thread_name_prefix="bot")
            else:
                # spawn, not fork: the parent has threads and an event loop that must not be
                # copied into the worker mid-flight.
                self._executor = ProcessPoolExecutor(
                    workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_warm_worker, initargs=(registry.added(),))
        return self._executor

    # ---- open tables -------------------------------------------------------------------
    async def _tidy_open(self, doc: dict) -> bool:
        """An open table left to bots: when no person is seated any more the bots leave too
        (the last one out aborts it); when the host's role passed to a bot it goes on to the
        first person at the table (bots cannot start a table or add players)."""
        mid = doc["id"]
        humans = [s for s in doc["seats"] if s["user"] and not is_bot(s["user"])]
        if not humans:
            for s in doc["seats"]:
                try:
                    left = await self.store.leave(mid, s["user"])
                except ApiError:
                    return True  # the table changed (someone joined, it started): look again
                await service.lobby_change(self.svc, left)
            return True
        if not _host_is_bot(doc):
            return False

        def hand_over(d: dict) -> Change:
            people = [s for s in d["seats"] if s["user"] and not is_bot(s["user"])]
            if d["status"] != "open" or not people or not _host_is_bot(d):
                return Change(d, write=False)
            d["host"] = people[0]["user"]["id"]
            d["version"] += 1
            return Change(d, [event("host", seat=people[0]["seat"], name=people[0]["user"]["name"])],
                          [self.store._history(d, "match")])

        change = await self.store.mutate(mid, hand_over)
        if change.write:
            await service.lobby_change(self.svc, change.doc)
        return change.write

    async def seat_rematch(self, doc: dict, new_id: str) -> None:
        """A rematch ``new_id`` offered on match ``doc`` (its ``game`` and ``seats`` are enough:
        it may come from history): seat the same bots at the new table (once), and start it
        when the one person there is the one who offered."""
        levels = [s["user"]["bot"] for s in doc["seats"] if is_bot(s["user"])]
        people = [s for s in doc["seats"] if s["user"] and not is_bot(s["user"])]
        known = [lv for lv in levels if lv in game_bots.levels(doc["game"])]

        def bots_for(new: dict) -> list[dict]:
            if any(is_bot(s["user"]) for s in new["seats"]):
                return []  # already seated (the offer was seen twice)
            return name_bots(new, known)

        try:
            change = await self.store.add_bots(new_id, None, bots_for,
                                               start=len(people) <= 1)
        except ApiError as e:  # the new table started, filled up or went away meanwhile
            log.info("bots not seated for the rematch", extra={"match": new_id, "code": e.code})
            return
        if change.write:
            await service.lobby_change(self.svc, change.doc)


def _host_is_bot(doc: dict) -> bool:
    return any(s["user"] and s["user"]["id"] == doc["host"] and is_bot(s["user"])
               for s in doc["seats"])

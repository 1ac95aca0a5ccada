"""Lab runs started from the web page (app/api/lab.py).

A run's status, progress and report live in Redis (so any process behind the load balancer can
answer ``GET /api/lab/runs/{id}``); the matches are played by the process that accepted the
run, in a pool of spawned worker processes (never on the event loop), one run at a time per
process (later ones wait, status "queued"). A user has at most one unfinished run.

Keys (``<prefix>`` is settings.redis_prefix), all expiring after ``RUN_TTL``::

    lab:run:<id>          status JSON: id, user, status, progress, spec, error, times
    lab:run:<id>:report   the report JSON, once done
    lab:run:<id>:alive    set by the process that owns a queued or running run, every
                          ``HEARTBEAT_SECONDS``; expires ``ALIVE_TTL`` after the last beat
    lab:active:<user>     id of the user's unfinished run (SET NX: the one-run rule)
    lab:runs:<user>       the user's latest run ids, newest first

A process that dies mid-run (kill -9, a crash: no chance to say so) stops beating. The first
read after ``ALIVE_TTL`` sees an unfinished run without a heartbeat, marks it failed and frees
the user's slot, so the page says what happened and the user can start another at once.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from datetime import UTC, datetime

from app.lab.play import play_chunk
from app.lab.runner import _chunks, build_report, spawn_pool
from app.lab.spec import LabSpec

log = logging.getLogger("duelhall.lab")

RUN_TTL = 7 * 24 * 3600
ACTIVE_TTL = 6 * 3600
HEARTBEAT_SECONDS = 5.0
ALIVE_TTL = 30  # seconds without a beat before an unfinished run counts as orphaned
UNFINISHED = ("queued", "running")
ORPHANED = "The server running it stopped before the run finished; start it again."
KEEP_RUNS = 20
PROGRESS_EVERY = 0.5  # seconds between progress writes

# One run at a time per process (per event loop): the pool already uses the lab's workers.
_gates: dict[int, asyncio.Semaphore] = {}


class LabBusy(Exception):
    """The user already has an unfinished run (its id in ``run_id``)."""

    def __init__(self, run_id: str):
        super().__init__(run_id)
        self.run_id = run_id


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _keys(svc, run_id: str | None = None, user_id: str | None = None) -> dict:
    p = svc.settings.redis_prefix + "lab:"
    return {"run": f"{p}run:{run_id}", "report": f"{p}run:{run_id}:report",
            "alive": f"{p}run:{run_id}:alive",
            "active": f"{p}active:{user_id}", "runs": f"{p}runs:{user_id}"}


# Delete the user's slot only if it still holds this run (another may have taken it since).
_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


async def _save(svc, status: dict) -> None:
    k = _keys(svc, status["id"])
    await svc.redis.set(k["run"], json.dumps(status), ex=RUN_TTL)


async def get(svc, run_id: str) -> dict | None:
    """The run's status; an unfinished run whose process stopped beating is marked failed
    here (and its user's slot freed)."""
    k = _keys(svc, run_id)
    raw = await svc.redis.get(k["run"])
    if not raw:
        return None
    status = json.loads(raw)
    if status["status"] in UNFINISHED and not await svc.redis.exists(k["alive"]):
        status.update(status="failed", error=ORPHANED, finished=_now())
        await _save(svc, status)
        await svc.redis.eval(_RELEASE_LUA, 1, _keys(svc, user_id=status["user"])["active"], run_id)
        log.warning("lab run orphaned", extra={"run": run_id})
    return status


async def _beat(svc, run_id: str) -> None:
    key = _keys(svc, run_id)["alive"]
    while True:
        try:
            await svc.redis.set(key, "1", ex=ALIVE_TTL)
        except Exception:  # Redis away for a moment: keep beating; the run itself goes on
            log.warning("lab heartbeat failed", extra={"run": run_id}, exc_info=True)
        await asyncio.sleep(HEARTBEAT_SECONDS)


async def report(svc, run_id: str) -> dict | None:
    raw = await svc.redis.get(_keys(svc, run_id)["report"])
    return json.loads(raw) if raw else None


async def mine(svc, user_id: str) -> list[dict]:
    ids = await svc.redis.lrange(_keys(svc, user_id=user_id)["runs"], 0, KEEP_RUNS - 1)
    out = []
    for rid in ids:
        st = await get(svc, rid.decode() if isinstance(rid, bytes) else rid)
        if st is not None:
            out.append(st)
    return out


async def start(svc, user, spec: LabSpec) -> dict:
    """Record the run, claim the user's one slot, and start it in the background."""
    run_id = uuid.uuid4().hex[:16]
    k = _keys(svc, run_id, user.id)
    while not await svc.redis.set(k["active"], run_id, nx=True, ex=ACTIVE_TTL):
        other = await svc.redis.get(k["active"])
        other = other.decode() if isinstance(other, bytes) else other
        if other is None:
            continue  # freed meanwhile: claim it
        held = await get(svc, other)  # frees the slot if that run's process is gone
        if held is not None and held["status"] in UNFINISHED:
            raise LabBusy(str(other))
        if held is None:  # expired status: the slot is stale too
            await svc.redis.eval(_RELEASE_LUA, 1, k["active"], other)
    total = spec.games * (2 if spec.compare is not None else 1)
    status = {"id": run_id, "user": user.id, "status": "queued", "spec": spec.to_dict(),
              "progress": {"done": 0, "total": total}, "error": None, "created": _now(),
              "started": None, "finished": None, "seconds": None}
    await svc.redis.set(k["alive"], "1", ex=ALIVE_TTL)
    await _save(svc, status)
    await svc.redis.lpush(k["runs"], run_id)
    await svc.redis.ltrim(k["runs"], 0, KEEP_RUNS - 1)
    await svc.redis.expire(k["runs"], RUN_TTL)
    task = asyncio.create_task(_run(svc, user.id, spec, status), name=f"lab-{run_id}")
    svc.tasks.append(task)  # cancelled with the other background tasks at shutdown
    task.add_done_callback(lambda t: t in svc.tasks and svc.tasks.remove(t))
    return status


async def _run(svc, user_id: str, spec: LabSpec, status: dict) -> None:
    gate = _gates.setdefault(id(asyncio.get_running_loop()), asyncio.Semaphore(1))
    k = _keys(svc, status["id"], user_id)
    pool = None
    heartbeat = asyncio.create_task(_beat(svc, status["id"]), name=f"lab-beat-{status['id']}")
    try:
        async with gate:
            status.update(status="running", started=_now())
            await _save(svc, status)
            t0 = time.perf_counter()
            workers = max(1, svc.settings.lab_workers)
            pool = spawn_pool(workers)
            records = await _play(svc, pool, spec, workers, status)
            rep = build_report(spec, records)
            rep["timing"] = {"seconds": time.perf_counter() - t0, "workers": workers}
            await svc.redis.set(k["report"], json.dumps(rep), ex=RUN_TTL)
            status.update(status="done", finished=_now(), seconds=rep["timing"]["seconds"])
            await _save(svc, status)
    except asyncio.CancelledError:
        status.update(status="failed", error="The server stopped before the run finished.",
                      finished=_now())
        await asyncio.shield(_save(svc, status))
        raise
    except Exception:
        log.exception("lab run failed", extra={"run": status["id"]})
        status.update(status="failed", error="The run failed on the server.", finished=_now())
        await _save(svc, status)
    finally:
        heartbeat.cancel()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        await svc.redis.delete(k["alive"])
        await svc.redis.eval(_RELEASE_LUA, 1, k["active"], status["id"])


async def _play(svc, pool, spec: LabSpec, workers: int, status: dict) -> list[list[dict]]:
    """The records of every rule set, chunks played in the pool; progress saved as they come."""
    rule_sets = [None] + ([spec.compare] if spec.compare is not None else [])
    spec_dict = spec.to_dict()
    loop = asyncio.get_running_loop()

    async def job(k: int, idx: list[int]) -> tuple[int, list[dict]]:
        return k, await loop.run_in_executor(pool, play_chunk, spec_dict, idx, rule_sets[k])

    jobs = [job(k, idx) for k in range(len(rule_sets)) for idx in _chunks(spec.games, workers)]
    out: list[list[dict]] = [[] for _ in rule_sets]
    last = 0.0
    for fut in asyncio.as_completed(jobs):
        k, recs = await fut
        out[k] += recs
        status["progress"]["done"] += len(recs)
        now = time.perf_counter()
        if now - last >= PROGRESS_EVERY or status["progress"]["done"] == status["progress"]["total"]:
            last = now
            await _save(svc, status)
    for recs in out:
        recs.sort(key=lambda r: r["i"])
    return out

"""The tournament websocket: ``/ws/tournaments/{id}`` (no token needed: it carries no secrets).

A client may still present one, the same ways as on a match socket (``app/ws_handshake.py``),
so one client serves both: it is then checked, and a bad one refused (``unauthorized``, 4401).

Every change of a tournament publishes its new revision on ``<prefix>tour:<id>``
(``app/tournaments/writes.py``). This socket forwards those notices as
``{"type": "tournament", "id", "revision"}``; on connect it sends the current revision at once.
The page then reloads ``GET /api/tournaments/{id}`` when the revision is newer than the one it
shows. Notices may repeat or coalesce; only the newest revision matters. The client may send
``{"type": "ping"}`` (answered ``{"type": "pong"}``); anything else is ignored. Messages over
the rate get ``rate_limited`` and a flood closes the socket (1008); opens count per client
address, as for the match socket's spectators (``app/ws_limits.py``).

One Redis subscription per process and tournament, shared by all of the process's sockets
(``TourHub``), so a thousand viewers cost one subscription, not a thousand connections.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from fastapi import APIRouter, WebSocket
from redis.exceptions import RedisError

from app.auth import authenticate
from app.db import tournaments as db
from app.errors import ApiError
from app.live import metrics
from app.services import ws_services
from app.ws import origin_allowed
from app.ws_handshake import handshake_of
from app.ws_limits import MessageRate, open_allowed

router = APIRouter()
log = logging.getLogger("duelhall.tournaments")


class TourHub:
    """This process's tournament sockets: channel -> queues of the sockets watching it."""

    def __init__(self, redis, prefix: str):
        self.prefix = f"{prefix}tour:"
        self.pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self.watchers: dict[str, set[asyncio.Queue]] = {}
        self.lock = asyncio.Lock()
        self.task: asyncio.Task | None = None

    async def watch(self, tournament_id: str) -> asyncio.Queue:
        q: asyncio.Queue = asyncio.Queue(maxsize=16)
        async with self.lock:
            group = self.watchers.setdefault(tournament_id, set())
            group.add(q)
            if len(group) == 1:
                await self.pubsub.subscribe(self.prefix + tournament_id)
        return q

    async def unwatch(self, tournament_id: str, q: asyncio.Queue) -> None:
        async with self.lock:
            group = self.watchers.get(tournament_id)
            if group is None:
                return
            group.discard(q)
            if not group:
                del self.watchers[tournament_id]
                with contextlib.suppress(Exception):
                    await self.pubsub.unsubscribe(self.prefix + tournament_id)

    async def listen(self) -> None:
        while True:
            try:
                if not self.pubsub.subscribed:
                    await asyncio.sleep(0.05)
                    continue
                msg = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if not msg or msg.get("type") != "message":
                    continue
                tid = msg["channel"][len(self.prefix):]
                for q in list(self.watchers.get(tid, ())):
                    if q.full():  # a slow socket: only the newest revision matters
                        with contextlib.suppress(asyncio.QueueEmpty):
                            q.get_nowait()
                    q.put_nowait(int(msg["data"]))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament pub/sub listener error; retrying")
                await asyncio.sleep(0.5)


def tour_hub(svc) -> TourHub:
    """The process's hub, started on first use; its listener is one of the services' tasks, so
    ``Services.stop`` cancels it."""
    hub = getattr(svc, "tour_hub", None)
    if hub is None:
        hub = TourHub(svc.redis, svc.store.k.p)
        svc.tour_hub = hub
        hub.task = asyncio.create_task(hub.listen(), name="tournament-hub")
        svc.tasks.append(hub.task)
    return hub


@router.websocket("/ws/tournaments/{tournament_id}")
async def tournament_socket(ws: WebSocket, tournament_id: str):
    svc = ws_services(ws)
    settings = svc.settings
    # The same origin rule as the match sockets (a page elsewhere cannot open one).
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings.allowed_origins):
        await ws.close(code=4403)
        return
    handshake = handshake_of(ws)
    await ws.accept(subprotocol=handshake.subprotocol)
    user = None
    try:
        if handshake.problem:
            raise handshake.problem
        if handshake.token:
            user = await authenticate(handshake.token, svc)
    except ApiError as e:
        await ws.send_text(json.dumps({"type": "error", "code": e.code, "message": e.message}))
        await ws.close(code={"unauthorized": 4401, "unavailable": 1013}.get(e.code, 4403))
        return
    try:
        # Signed in: counted per user and event; anonymous: per client address.
        allowed = await open_allowed(svc, ws, user.id if user else None, f"t:{tournament_id}")
    except (RedisError, OSError):
        await ws.close(code=1013)  # try again later
        return
    if not allowed:
        await _refuse(ws, "Too many connections; wait a minute and reconnect.")
        await ws.close(code=1008)
        return
    ev = await db.get(svc.maker, tournament_id)
    if ev is None or ev["status"] == "draft":  # drafts are not public
        await ws.send_text(json.dumps({"type": "error", "code": "not_found",
                                       "message": "There is no tournament with that id."}))
        await ws.close(code=4404)
        return
    hub = tour_hub(svc)
    q = await hub.watch(tournament_id)
    try:
        # Subscribed before reading the revision: a change in between is not missed.
        ev = await db.get(svc.maker, tournament_id)
        await ws.send_text(json.dumps({"type": "tournament", "id": tournament_id, "revision": ev["revision"]}))
        receive = asyncio.create_task(ws.receive())
        notice = asyncio.create_task(q.get())
        rate = MessageRate(settings)
        try:
            while True:
                done, _ = await asyncio.wait({receive, notice}, return_when=asyncio.FIRST_COMPLETED)
                if receive in done:
                    msg = receive.result()
                    if msg["type"] == "websocket.disconnect":
                        break
                    if not rate.take():
                        await _refuse(ws, "Too many messages; slow down.")
                        if rate.flooding:
                            await ws.close(code=1008)
                            break
                    elif _is_ping(msg.get("text")):
                        await ws.send_text(json.dumps({"type": "pong"}))
                    receive = asyncio.create_task(ws.receive())
                if notice in done:
                    await ws.send_text(json.dumps({"type": "tournament", "id": tournament_id,
                                                   "revision": notice.result()}))
                    notice = asyncio.create_task(q.get())
        finally:
            receive.cancel()
            notice.cancel()
    except Exception:  # the socket went away mid-send
        pass
    finally:
        await hub.unwatch(tournament_id, q)


async def _refuse(ws: WebSocket, message: str) -> None:
    metrics.ERRORS.labels("rate_limited").inc()
    await ws.send_text(json.dumps({"type": "error", "code": "rate_limited", "message": message}))


def _is_ping(text: str | None) -> bool:
    if not text or len(text) > 200:
        return False
    try:
        return json.loads(text) == {"type": "ping"}
    except ValueError:
        return False

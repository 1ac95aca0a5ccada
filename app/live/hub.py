"""This process's websockets and the fan-out to them.

Every process subscribes to the change channel of each match it has sockets for. On a notice
(or right after a local write) it renders, for each of its own sockets, that viewer's view with
the events it has not seen yet, and sends it. A socket's ``last_seq`` makes delivery
idempotent: notices may repeat, coalesce or arrive late, and nobody gets a version twice or
misses an event.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging

import redis.asyncio as aioredis

from app.live import metrics
from app.live.store import MatchStore, dumps
from app.live.views import render, viewer_for

log = logging.getLogger("duelhall.hub")
SEND_TIMEOUT = 10.0


class Conn:
    """One websocket watching one match."""

    def __init__(self, ws, match_id: str, user_id: str | None):
        self.ws = ws
        self.match_id = match_id
        self.user_id = user_id
        self.last_seq = 0
        self.lock = asyncio.Lock()
        self.closed = False
        # Drains (``Hub.close_all``): ``busy`` while the socket's handler is doing something
        # other than waiting for the next message (opening, or handling one); ``closing`` once a
        # close is asked for, which the handler carries out when it is done, if not done already.
        self.busy = True
        self.closing = False
        self.gone = asyncio.Event()  # closed by the server, or the handler has let go of it

    async def _send_now(self, text: str) -> None:
        """Send while holding ``lock``."""
        try:
            # asyncio.timeout, not wait_for: wait_for makes a Task per send.
            async with asyncio.timeout(SEND_TIMEOUT):
                await self.ws.send_text(text)
        except Exception:  # a dead or stuck socket: drop it, the client will resume
            self.closed = True

    async def send_text(self, text: str) -> None:
        if self.closed:
            return
        async with self.lock:
            await self._send_now(text)

    async def send(self, payload: dict) -> None:
        await self.send_text(dumps(payload))

    async def close(self, code: int, unless_busy: bool = False) -> None:
        """Close the socket with ``code``, under the send lock so no view is cut in two.
        ``unless_busy``: leave it to its handler if that has taken a message meanwhile."""
        async with self.lock:
            if self.closed or (unless_busy and self.busy):
                return
            self.closed = True
            with contextlib.suppress(Exception):
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self.ws.close(code=code)
            self.gone.set()


class Hub:
    def __init__(self, store: MatchStore, redis: aioredis.Redis):
        self.store = store
        self.redis = redis
        self.conns: dict[str, set[Conn]] = {}
        # Subscribe confirmations are read too: see ``listening``.
        self.pubsub = redis.pubsub()
        # Matches whose channel subscription Redis has confirmed to this process.
        self._confirmed: set[str] = set()
        self._dirty: set[str] = set()
        # Newest version this process has written and is pushing itself, per match: its own
        # pub/sub notice for that version then needs no reload (see notify).
        self._local: dict[str, int] = {}
        self._pushers: dict[str, asyncio.Task] = {}
        # Writes this process has under way per match, and the newest notice that arrived
        # meanwhile: a notice can beat the writer's own reply from the store (both come from
        # the same script), and is then its own write, which push_doc is about to deliver.
        self._writing: dict[str, int] = {}
        self._held: dict[str, int] = {}
        self._listener: asyncio.Task | None = None
        self._sub_lock = asyncio.Lock()
        self._stopping = False
        # Set by ``close_all``: sockets that join afterwards are closed at once.
        self._closing = False

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self._listener = asyncio.create_task(self._listen(), name="hub-listener")

    async def stop(self) -> None:
        self._stopping = True
        if self._listener:
            self._listener.cancel()
            # Bounded: a cancellation racing the client's own read timeout can be swallowed
            # inside redis-py; the stop flag ends the loop on its next turn anyway.
            await asyncio.wait({self._listener}, timeout=2)
        for t in list(self._pushers.values()):
            t.cancel()
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    def listening(self, match_id: str) -> int:
        """This process's confirmed subscriptions to the match's channel (0 or 1), for the
        store's write: with 1, a notice is published only if another process listens too. Not
        confirmed yet (or being left): 0, and the store always publishes, which is safe."""
        return 1 if match_id in self._confirmed else 0

    def socket_count(self) -> int:
        return sum(len(c) for c in self.conns.values())

    async def close_all(self, code: int, within: float) -> None:
        """Close every socket of this process with ``code`` (a drain: 1012). A socket waiting
        for its next message is closed now; one whose handler is busy (a move being applied)
        is closed by the handler once that is done and its view sent (``app/ws.py``). Returns
        when every socket is closed, or after ``within`` seconds."""
        self._closing = True
        conns = [c for group in self.conns.values() for c in group]
        for conn in conns:
            conn.closing = True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within):
                # All at once: a client that stopped reading holds only its own close up.
                await asyncio.gather(*(c.close(code, unless_busy=True) for c in conns))
                for conn in conns:
                    await conn.gone.wait()

    async def add(self, conn: Conn) -> None:
        if self._closing:
            conn.closing = True  # a drain has begun: the handler closes it straight away
        async with self._sub_lock:
            group = self.conns.setdefault(conn.match_id, set())
            group.add(conn)
            if len(group) == 1:
                await self.pubsub.subscribe(self.store.k.channel(conn.match_id))
        metrics.SOCKETS.set(self.socket_count())

    async def remove(self, conn: Conn) -> None:
        conn.closed = True
        conn.gone.set()
        async with self._sub_lock:
            group = self.conns.get(conn.match_id)
            if group is None:
                return
            group.discard(conn)
            if not group:
                del self.conns[conn.match_id]
                self._local.pop(conn.match_id, None)
                self._confirmed.discard(conn.match_id)
                with contextlib.suppress(Exception):
                    await self.pubsub.unsubscribe(self.store.k.channel(conn.match_id))
        metrics.SOCKETS.set(self.socket_count())

    # ------------------------------------------------------------------ delivery
    async def send_view(self, conn: Conn, since: int, doc: dict | None = None,
                        first: bool = False) -> None:
        """Send ``conn`` the current view with every event after ``since``. ``first``: the
        socket's opening view, skipped if a fan-out already gave it this version (a resume,
        by contrast, is answered even when nothing is new)."""
        doc = doc or await self.store.load(conn.match_id)
        batches = await self.store.events_since(conn.match_id, since) if since < doc["version"] else []
        seat, viewer = viewer_for(doc, conn.user_id)
        text = dumps({"type": "view", **render(doc, seat, viewer, batches)})
        async with conn.lock:
            if conn.last_seq > doc["version"] or (first and conn.last_seq == doc["version"]):
                return  # a newer view (or this one) already went out
            await conn._send_now(text)
            conn.last_seq = doc["version"]

    async def push_doc(self, doc: dict, events: list[dict]) -> None:
        """Right after a local write: render from the document in hand."""
        mid = doc["id"]
        if mid in self.conns and doc["version"] > self._local.get(mid, 0):
            self._local[mid] = doc["version"]
        await self._fan_out(doc, {doc["version"]: events})
        # A socket that joined while this push was under way, having read an older document,
        # missed it; the pub/sub notice for this version is skipped (see notify), so look again.
        if any(c.last_seq < doc["version"] and not c.closed for c in self.conns.get(mid, ())):
            self._schedule(mid)

    def begin_write(self, match_id: str) -> None:
        """Call around a local write and its push_doc (``end_write`` in a ``finally``): notices
        for the match are held until the write is done, then looked at again (most turn out
        to be the write itself). Plain calls, not a context manager: this is on every move."""
        self._writing[match_id] = self._writing.get(match_id, 0) + 1

    def end_write(self, match_id: str) -> None:
        left = self._writing[match_id] - 1
        if left:
            self._writing[match_id] = left
            return
        del self._writing[match_id]
        held = self._held.pop(match_id, None)
        if held is not None:
            self.notify(match_id, held)

    def notify(self, match_id: str, version: int) -> None:
        if match_id in self._writing:
            self._held[match_id] = max(version, self._held.get(match_id, 0))
            return
        group = self.conns.get(match_id)
        if not group or version <= self._local.get(match_id, 0):
            return  # our own write: push_doc delivers it (or already has)
        if all(c.last_seq >= version for c in group):
            return
        self._schedule(match_id)

    def _schedule(self, match_id: str) -> None:
        """Have this match's sockets brought up to date (one push loop per match at a time)."""
        self._dirty.add(match_id)
        if match_id not in self._pushers:
            self._pushers[match_id] = asyncio.create_task(self._push_loop(match_id))

    async def _push_loop(self, match_id: str) -> None:
        try:
            while match_id in self._dirty:
                self._dirty.discard(match_id)
                try:
                    doc = await self.store.load(match_id)
                except Exception:
                    return
                await self._fan_out(doc, None)
        finally:
            self._pushers.pop(match_id, None)

    async def _fan_out(self, doc: dict, known: dict[int, list] | None) -> None:
        group = [c for c in self.conns.get(doc["id"], ()) if c.last_seq < doc["version"] and not c.closed]
        if not group:
            return
        oldest = min(_seen(c, doc) for c in group)
        if known is not None and oldest == doc["version"] - 1:
            batches: list[dict] = [{"version": v, "events": e} for v, e in known.items()]
        else:
            batches = await self.store.events_since(doc["id"], oldest)
        rendered: dict[tuple, str] = {}

        async def deliver(c: Conn) -> None:
            # Check, render and send under the socket's lock, so concurrent fan-outs (a local
            # write and a pub/sub notice) can never send a version twice or out of order.
            async with c.lock:
                if c.closed or c.last_seq >= doc["version"]:
                    return
                seat, viewer = viewer_for(doc, c.user_id)
                after = _seen(c, doc)
                key = (seat, viewer, after)
                if key not in rendered:
                    mine = [b for b in batches if b["version"] > after]
                    rendered[key] = dumps({"type": "view", **render(doc, seat, viewer, mine)})
                await c._send_now(rendered[key])
                c.last_seq = doc["version"]

        # One after another, players before spectators: a send only waits when that client has
        # stopped reading (its buffer is full), and then for SEND_TIMEOUT once, after which the
        # socket is dropped. (gather made two tasks per change, a cost paid on every move.)
        group.sort(key=lambda c: viewer_for(doc, c.user_id)[0] is None)
        for c in group:
            await deliver(c)

    def resync(self) -> None:
        """Look again at every match this process has sockets for: after the pub/sub link was
        down, notices sent meanwhile are lost, and nobody should wait for the next one."""
        for mid in list(self.conns):
            self._schedule(mid)

    async def _listen(self) -> None:
        prefix = self.store.k.channel("")
        broken = False
        while not self._stopping:
            try:
                if not self.pubsub.subscribed:
                    await asyncio.sleep(0.05)
                    continue
                msg = await self.pubsub.get_message(timeout=1.0)
                if broken:  # redis-py reconnected and resubscribed inside get_message
                    broken = False
                    log.info("pub/sub link back; re-sending what may have been missed")
                    self.resync()
                if not msg:
                    continue
                kind, mid = msg.get("type"), msg.get("channel", "")[len(prefix):]
                if kind == "message":
                    self.notify(mid, int(msg["data"]))
                elif kind == "subscribe" and mid in self.conns:
                    self._confirmed.add(mid)
                elif kind == "unsubscribe":
                    self._confirmed.discard(mid)
            except asyncio.CancelledError:
                raise
            except Exception:
                # Subscriptions may be gone with the link: publish every change until Redis
                # confirms them again (redis-py re-subscribes when it reconnects).
                self._confirmed.clear()
                if not broken:
                    log.exception("pub/sub listener error; retrying")
                broken = True
                await asyncio.sleep(0.5)


def parse_json(text: str):
    return json.loads(text)


def _seen(conn: Conn, doc: dict) -> int:
    """The version after which ``conn`` needs events. A socket whose opening view has not gone
    out yet (last_seq 0) gets exactly what that view carries, the latest change's events: its
    first message must not depend on whether a fan-out or the opening send got there first."""
    return conn.last_seq or doc["version"] - 1

"""The match websocket: ``/ws/matches/{id}``, the token in the handshake's subprotocols
(``duelhall.v1`` and ``bearer.<token>``; ``?token=`` for old clients: ``app/ws_handshake.py``).

Client messages: ``action`` (with ``client_seq`` for idempotency), ``resume`` (since a seq),
``ping``. Server messages: ``view``, ``ack``, ``error``, ``pong``. Every error leaves the
socket open except ``unauthorized`` and ``not_found``.
"""
from __future__ import annotations

import json
import time
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from redis.exceptions import RedisError

from app import logs
from app.auth import User, authenticate, decode_token, standing_guard
from app.errors import FATAL_WS_CODES, ApiError
from app.live import metrics, service
from app.live.hub import Conn
from app.live.store import StandingChanged, loads
from app.services import SERVICE_RESTART, ws_services
from app.ws_handshake import handshake_of
from app.ws_limits import MessageRate, open_allowed

router = APIRouter()

# Redis unreachable (restarting, failing over): the socket stays open and says `unavailable`;
# the client retries the same client_seq, which the store applies at most once.
STORE_DOWN = (RedisError, OSError)
UNAVAILABLE = "The match store is unreachable for a moment; retry shortly."


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ActionMsg(_Msg):
    type: Literal["action"]
    action: dict[str, Any]
    client_seq: int | None = Field(default=None, ge=1)
    version: int | None = Field(default=None, ge=0)


class ResumeMsg(_Msg):
    type: Literal["resume"]
    since: int = Field(ge=0)


class PingMsg(_Msg):
    type: Literal["ping"]


ClientMsg = TypeAdapter(Annotated[ActionMsg | ResumeMsg | PingMsg, Field(discriminator="type")])


def origin_allowed(origin: str | None, host: str | None, allowed: list[str]) -> bool:
    """ALLOWED_ORIGINS when set; otherwise same origin only (the page's host:port must be the
    one the socket was opened on). No Origin header: not a browser (bots, tests), allowed,
    since the token, not an ambient cookie, is the credential."""
    if allowed:
        return origin in allowed
    if origin is None:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname or not host:
        return False  # "null" (sandboxed frames, file: pages) and anything odd
    default = {"http": 80, "https": 443}[parts.scheme]
    mine = urlsplit(f"{parts.scheme}://{host}")
    try:
        return (parts.hostname, parts.port or default) == (mine.hostname, mine.port or default)
    except ValueError:  # a malformed port in either header
        return False


def _explain(err: ValidationError) -> str:
    e = err.errors()[0]
    where = ".".join(str(p) for p in e.get("loc", ()))
    if e["type"] == "extra_forbidden":
        return f"Unknown field '{where.split('.')[-1]}'."
    if e["type"] == "union_tag_invalid" or e["type"] == "union_tag_not_found":
        return "A message needs a 'type' of action, resume or ping."
    if e["type"] == "missing":
        return f"Missing field '{where.split('.')[-1]}'."
    return f"Invalid message: {where} {e.get('msg', '')}".strip() + "."


async def act(svc, match_id: str, token: str, claims: User, user: User, m: ActionMsg, guard):
    """Perform a socket's action. The user's standing is re-checked on every action, so a
    suspension or sign-out takes effect at once: inside the store's write (no round trip of
    its own), and in full, to say why, when that check refuses or the action is refused."""
    if claims.exp <= time.time():
        await authenticate(token, svc, decoded=claims)  # raises: the session has expired
    for _ in range(2):
        try:
            return await service.perform(svc, match_id, user, m.action, m.client_seq, m.version, guard)
        except StandingChanged:
            # Raises when signed out or suspended; else (an account whose status was not
            # cached) it caches the status from SQL and the action is tried once more.
            await authenticate(token, svc, decoded=claims)
        except ApiError:
            await authenticate(token, svc, decoded=claims)  # a standing problem comes first
            raise
    raise ApiError("unavailable", "Your account could not be checked; try again.", 503)


@router.websocket("/ws/matches/{match_id}")
async def match_socket(ws: WebSocket, match_id: str, ack: str | None = None):
    """``ack=view``: the client takes the view its action caused (which carries the seat's
    ``client_seq``) as the acknowledgment, so no separate ``ack`` frame is sent when that view
    has gone out; a duplicate, or a view that could not be sent, is still acknowledged. One
    frame fewer per action for the server to write and the client to read."""
    svc = ws_services(ws)
    settings = svc.settings
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings.allowed_origins):
        metrics.ERRORS.labels("forbidden").inc()
        await ws.close(code=4403)  # before accept: the handshake gets HTTP 403
        return
    handshake = handshake_of(ws)
    await ws.accept(subprotocol=handshake.subprotocol)
    token = handshake.token

    async def fail(code: str, message: str, client_seq=None) -> None:
        metrics.ERRORS.labels(code).inc()
        await ws.send_text(json.dumps({"type": "error", "code": code, "message": message,
                                       "client_seq": client_seq}))
        if code in FATAL_WS_CODES:
            await ws.close(code=4401 if code == "unauthorized" else 4404)

    user: User | None = None
    claims: User | None = None
    try:
        if handshake.problem:
            raise handshake.problem
        if token:
            claims = decode_token(token, settings)
            user = await authenticate(token, svc, decoded=claims)
        if not await open_allowed(svc, ws, user.id if user else None, match_id):
            await fail("rate_limited", "Too many connections; wait a minute and reconnect.")
            await ws.close(code=1008)
            return
        await svc.store.load(match_id)
    except ApiError as e:
        await fail(e.code, e.message)
        return
    except STORE_DOWN:
        await fail("unavailable", UNAVAILABLE)
        await ws.close(code=1013)  # try again later
        return

    logs.match_id_var.set(match_id)
    logs.user_id_var.set(user.id if user else None)
    conn = Conn(ws, match_id, user.id if user else None)
    ack_by_view = ack == "view"
    guard = standing_guard(svc, claims) if claims else None  # the same for every action
    rate = MessageRate(settings)
    try:
        try:
            await svc.hub.add(conn)
            doc = await svc.store.load(match_id)
            await svc.hub.send_view(conn, doc["version"] - 1, doc, first=True)
        except STORE_DOWN:
            await fail("unavailable", UNAVAILABLE)
            await ws.close(code=1013)
            return
        while True:
            if conn.closing:
                # A drain (SIGTERM): closed once the message in hand is dealt with, so a move
                # being applied has its view (and ack) out first. 1012: reconnect elsewhere.
                await conn.close(SERVICE_RESTART)
                break
            conn.busy = False
            msg = await ws.receive()
            conn.busy = True
            if msg["type"] == "websocket.disconnect":
                break
            if conn.closing:
                continue  # arrived as the socket closes: unacknowledged, the client re-sends it
            # Rate first, so a flood of oversized or broken messages costs as little as any.
            if not rate.take():
                await fail("rate_limited", "Too many messages; slow down.")
                if rate.flooding:
                    await ws.close(code=1008)
                    break
                continue
            text = msg.get("text")
            if text is None:
                raw = msg.get("bytes") or b""
                if len(raw) > settings.max_message_bytes:
                    await fail("too_large", f"Messages are limited to {settings.max_message_bytes} bytes.")
                    continue
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    await fail("invalid_message", "Messages must be UTF-8 JSON text.")
                    continue
            if len(text) > settings.max_message_bytes:
                await fail("too_large", f"Messages are limited to {settings.max_message_bytes} bytes.")
                continue
            try:
                data = loads(text)
            except (ValueError, RecursionError):  # RecursionError: "[[[[...", nested too deep
                await fail("invalid_message", "That message is not valid JSON.")
                continue
            seq = data.get("client_seq") if isinstance(data, dict) else None
            seq = seq if isinstance(seq, int) else None
            try:
                m = ClientMsg.validate_python(data)
            except ValidationError as e:
                await fail("invalid_message", _explain(e), seq)
                continue
            if isinstance(m, PingMsg):
                await conn.send({"type": "pong"})
                # Safety net for a change notice that never came (pub/sub is fire-and-forget:
                # one published while Redis restarted, or before this process re-subscribed, is
                # lost): the hub re-reads the match and sends this socket what it missed, under
                # the socket's lock, so never a version twice. Clients ping every 20 s.
                svc.hub.notify(match_id, conn.last_seq + 1)
            elif isinstance(m, ResumeMsg):
                try:
                    await svc.hub.send_view(conn, m.since)
                except STORE_DOWN:
                    await fail("unavailable", UNAVAILABLE)
            else:
                if user is None:
                    await fail("forbidden", "Spectators cannot act; sign in and take a seat.", m.client_seq)
                    continue
                try:
                    change = await act(svc, match_id, token, claims, user, m, guard)
                except ApiError as e:
                    await fail(e.code, e.message, m.client_seq)
                    continue
                except STORE_DOWN:
                    await fail("unavailable", UNAVAILABLE, m.client_seq)
                    continue
                if (ack_by_view and m.client_seq is not None and change.write
                        and conn.last_seq >= change.doc["version"]):
                    continue  # the view this socket got says it: client_seq covers the action
                await conn.send({"type": "ack", "client_seq": m.client_seq,
                                 "version": change.doc["version"], "duplicate": change.duplicate})
    except WebSocketDisconnect:
        pass
    finally:
        await svc.hub.remove(conn)

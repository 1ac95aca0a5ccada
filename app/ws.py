"""The match websocket: ``/ws/matches/{id}?token=...``.

Client messages: ``action`` (with ``client_seq`` for idempotency), ``resume`` (since a seq),
``ping``. Server messages: ``view``, ``ack``, ``error``, ``pong``. Every error leaves the
socket open except ``unauthorized`` and ``not_found``.
"""
from __future__ import annotations

import json
import time
from typing import Annotated, Any, Literal, Union

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from app.auth import User, authenticate
from app import logs
from app.errors import FATAL_WS_CODES, ApiError
from app.live import metrics, service
from app.live.hub import Conn
from app.services import ws_services

router = APIRouter()


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


ClientMsg = TypeAdapter(Annotated[Union[ActionMsg, ResumeMsg, PingMsg], Field(discriminator="type")])


class TokenBucket:
    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        t = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (t - self.at) * self.rate)
        self.at = t
        if self.tokens >= 1:
            self.tokens -= 1
            return True
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


@router.websocket("/ws/matches/{match_id}")
async def match_socket(ws: WebSocket, match_id: str, token: str | None = None):
    svc = ws_services(ws)
    settings = svc.settings
    if settings.allowed_origins and ws.headers.get("origin") not in settings.allowed_origins:
        await ws.close(code=4403)
        return
    await ws.accept()

    async def fail(code: str, message: str, client_seq=None) -> None:
        metrics.ERRORS.labels(code).inc()
        await ws.send_text(json.dumps({"type": "error", "code": code, "message": message,
                                       "client_seq": client_seq}))
        if code in FATAL_WS_CODES:
            await ws.close(code=4401 if code == "unauthorized" else 4404)

    user: User | None = None
    try:
        if token:
            user = await authenticate(token, svc)
        await svc.store.load(match_id)
    except ApiError as e:
        await fail(e.code, e.message)
        return

    logs.match_id_var.set(match_id)
    logs.user_id_var.set(user.id if user else None)
    conn = Conn(ws, match_id, user.id if user else None)
    await svc.hub.add(conn)
    bucket = TokenBucket(settings.ws_rate_per_second, settings.ws_burst)
    try:
        doc = await svc.store.load(match_id)
        await svc.hub.send_view(conn, doc["version"] - 1, doc)
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                break
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
            if not bucket.take():
                await fail("rate_limited", "Too many messages; slow down.")
                continue
            try:
                data = json.loads(text)
            except ValueError:
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
            elif isinstance(m, ResumeMsg):
                await svc.hub.send_view(conn, m.since)
            else:
                if user is None:
                    await fail("forbidden", "Spectators cannot act; sign in and take a seat.", m.client_seq)
                    continue
                try:
                    # Re-checked per action: a suspension or sign-out takes effect at once.
                    user = await authenticate(token, svc)
                    change = await service.perform(svc, match_id, user, m.action, m.client_seq, m.version)
                except ApiError as e:
                    await fail(e.code, e.message, m.client_seq)
                    continue
                await conn.send({"type": "ack", "client_seq": m.client_seq,
                                 "version": change.doc["version"], "duplicate": change.duplicate})
    except WebSocketDisconnect:
        pass
    finally:
        await svc.hub.remove(conn)

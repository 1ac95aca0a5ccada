"""Limits on websockets, for the match and the tournament sockets alike (docs/security.md,
"Limits"): the message rate of one socket, socket opens per minute, and sockets open at once
per client address."""
from __future__ import annotations

import contextlib
import json
import logging
import time

import anyio
from redis.exceptions import RedisError
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.websockets import WebSocket

from app.live import metrics
from app.ratelimit import client_address, hit

log = logging.getLogger("duelhall.limits")

# A socket refused this many messages in a row for rate is flooding, not bursting: close it
# (1008, policy violation) instead of answering every message with an error.
FLOOD_FACTOR = 2
# Socket opens per user and match per minute: a flooder that reconnects each time it is
# closed would get a fresh token bucket every time. Generous for people (tabs, flaky networks)
# and per match, so a bot playing many matches at once is not limited by their number.
OPENS_PER_MINUTE = 60
# How long the count of an address's open sockets outlives its last open or close: it only
# matters when a process died with sockets open (they were never counted down).
SOCKETS_KEY_TTL = 3600


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


class MessageRate:
    """One socket's message rate (WS_RATE_PER_SECOND, burst WS_BURST): ``take()`` is False for
    a message over the rate, which the socket answers ``rate_limited``; once ``flooding`` (that
    many refusals in a row) the socket is closed with 1008."""

    def __init__(self, settings):
        self.bucket = TokenBucket(settings.ws_rate_per_second, settings.ws_burst)
        self.flood_after = FLOOD_FACTOR * settings.ws_burst
        self.refused_in_a_row = 0

    def take(self) -> bool:
        if self.bucket.take():
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False

    @property
    def flooding(self) -> bool:
        return self.refused_in_a_row >= self.flood_after


async def open_allowed(svc, ws: WebSocket, user_id: str | None, match_id: str | None = None) -> bool:
    """Count this socket's opening: per user and match with a token, per client address
    without one (a spectator, a tournament page). False: over the limit for this minute."""
    p = svc.store.k.p
    if user_id is not None:
        return await hit(svc.redis, f"{p}wsopens:{user_id}:{match_id}", OPENS_PER_MINUTE, 60)
    return await hit(svc.redis, f"{p}wsopens-addr:{client_address(ws)}",
                     svc.settings.ws_anonymous_opens_per_minute, 60)


# Take one of the address's socket places (KEYS[1]: its count; ARGV: the cap, the key's TTL).
ACQUIRE_LUA = """
local n = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
return 1
"""
RELEASE_LUA = """
local n = redis.call('DECR', KEYS[1])
if n <= 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return n
"""


class SocketsPerAddress:
    """ASGI middleware: at most ``WS_SOCKETS_PER_ADDRESS`` websockets open at once per client
    address, on every websocket route, counted in Redis (so across processes). Over the cap the
    handshake is refused with HTTP 429 and the usual error body. Redis unreachable: the socket
    is let through uncounted (the route then says ``unavailable`` itself)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        svc = scope["app"].state.services
        cap = svc.settings.ws_sockets_per_address
        if cap <= 0:
            return await self.app(scope, receive, send)
        redis = svc.redis
        key = f"{svc.store.k.p}wssockets:{client_address(HTTPConnection(scope))}"
        try:
            admitted = await redis.register_script(ACQUIRE_LUA)(keys=[key], args=[cap, SOCKETS_KEY_TTL])
        except (RedisError, OSError):
            log.warning("socket count unavailable; socket let through uncounted")
            return await self.app(scope, receive, send)
        if not admitted:
            return await self._refuse(scope, receive, send, cap)
        try:
            await self.app(scope, receive, send)
        finally:
            # Shielded: a socket cancelled (server shutting down) still gives its place back.
            with anyio.CancelScope(shield=True), contextlib.suppress(RedisError, OSError):
                await redis.register_script(RELEASE_LUA)(keys=[key], args=[SOCKETS_KEY_TTL])

    @staticmethod
    async def _refuse(scope, receive, send, cap: int) -> None:
        metrics.ERRORS.labels("rate_limited").inc()
        ws = WebSocket(scope, receive, send)
        body = {"error": {"code": "rate_limited",
                          "message": f"Too many connections from your address (at most {cap} at "
                                     f"once); close some and try again."}}
        try:
            await ws.send_denial_response(Response(json.dumps(body), status_code=429,
                                                   media_type="application/json"))
        except RuntimeError:  # a server without the denial extension: a plain refusal (403)
            await ws.close(code=1008)

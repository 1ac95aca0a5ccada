"""Rate limits: atomic fixed-window counters in Redis, shared by every process, and the client
address the per-address limits are keyed by."""
from __future__ import annotations

from starlette.requests import HTTPConnection

# INCR and, for the window's first hit, EXPIRE in one atomic step: a counter can never be left
# without an expiry (a crash between the two would make it count forever).
HIT_LUA = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return n
"""


async def hit(redis, key: str, limit: int, window_seconds: int) -> bool:
    """Count one event under ``key`` in a window of ``window_seconds`` that starts with the
    window's first event; True while the count is within ``limit``. A limit of 0 or less is
    off (nothing is counted)."""
    if limit <= 0:
        return True
    n = await redis.register_script(HIT_LUA)(keys=[key], args=[int(window_seconds)])
    return int(n) <= limit


def client_address(conn: HTTPConnection) -> str:
    """The client's address as the server saw it (a request or a websocket). Behind the
    deployment's proxy, uvicorn's proxy headers put the X-Forwarded-For client here (see
    docker-compose.yml). Every per-address limit goes through this one function."""
    return conn.client.host if conn.client else "-"

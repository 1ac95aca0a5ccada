"""Rate limits: atomic fixed-window counters in Redis, shared by every process, and the client
address the per-address limits are keyed by.

Two ways to count, both one Lua script (no counter is ever left without an expiry, and no
check can be overtaken by a concurrent one):

- :func:`hit` counts an event and says whether it is within the limit (a refused event counts
  too): per-minute limits where hammering must not shorten the wait.
- :func:`take` counts one use against several :class:`Quota` s at once, or none when any is
  spent (a refused attempt is not counted), and :func:`give_back` / :func:`clear` undo: limits
  on attempts whose outcome decides whether they count (sign-in, app/signin.py).

    spent = await take(redis, Quota(f"{p}login:n:{name}", 5, 900), Quota(f"{p}login:a:{ip}", 30, 900))
    if spent is not None:
        raise ApiError("rate_limited", ...)
    ...                               # the guarded work
    await give_back(redis, quota)     # a use that should not count after all (e.g. a success)
    await clear(redis, quota)         # start the window over
"""
from __future__ import annotations

from dataclasses import dataclass

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
    """The client's address as the server saw it (a request or a websocket): the connection's
    peer, or for a connection from a proxy listed in TRUSTED_PROXIES the rightmost
    X-Forwarded-For address that is not a trusted proxy (app/main.py puts it here). Every
    per-address limit goes through this one function."""
    return conn.client.host if conn.client else "-"


@dataclass(frozen=True)
class Quota:
    key: str
    limit: int
    window: int  # seconds, from the first use in the window


# KEYS: the quotas' keys; ARGV: limit1, window1, limit2, window2, ...
# Returns 0 when every key was counted, else the 1-based index of the first spent quota.
_TAKE_LUA = """
for i, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  if used >= tonumber(ARGV[2 * i - 1]) then
    return i
  end
end
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then
    redis.call('EXPIRE', key, tonumber(ARGV[2 * i]))
  end
end
return 0
"""

# Undo one use, never below zero and never creating a key (nor touching its expiry).
_GIVE_BACK_LUA = """
for _, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  if used > 1 then
    redis.call('DECR', key)
  elseif used == 1 then
    redis.call('DEL', key)
  end
end
return 0
"""


async def take(redis, *quotas: Quota) -> Quota | None:
    """Count one use against every quota, atomically: ``None`` when all had room (all counted),
    else the first spent quota (nothing counted)."""
    if not quotas:
        return None
    args: list[int] = []
    for q in quotas:
        args += [q.limit, q.window]
    spent = int(await redis.register_script(_TAKE_LUA)(keys=[q.key for q in quotas], args=args))
    return quotas[spent - 1] if spent else None


async def give_back(redis, *quotas: Quota) -> None:
    """Return one use taken with :func:`take` (the attempt turned out not to count)."""
    if quotas:
        await redis.register_script(_GIVE_BACK_LUA)(keys=[q.key for q in quotas])


async def clear(redis, *quotas: Quota) -> None:
    """Forget every use of these quotas (a new window starts at the next use)."""
    if quotas:
        await redis.delete(*(q.key for q in quotas))


async def used(redis, quota: Quota) -> int:
    """Uses counted in the current window (0 when none)."""
    return int(await redis.get(quota.key) or 0)

"""Atomic fixed-window counters in Redis, for every limit that must hold under concurrency.

A :class:`Quota` is a Redis key, a limit and a window (seconds, counted from the first use).
:func:`take` counts one use against several quotas in one script: either every quota had room
and each is counted, or none is counted and the first spent quota is returned. Checking and
counting in one step is what makes a limit hold when many requests arrive at once (a read
followed by a later increment lets all of them through before the first one counts).

    spent = await take(redis, Quota(f"{p}login:n:{name}", 5, 900), Quota(f"{p}login:a:{ip}", 30, 900))
    if spent is not None:
        raise ApiError("rate_limited", ...)
    ...                               # the guarded work
    await give_back(redis, quota)     # a use that should not count after all (e.g. a success)
    await clear(redis, quota)         # start the window over
"""
from __future__ import annotations

from dataclasses import dataclass


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
    spent = int(await redis.eval(_TAKE_LUA, len(quotas), *(q.key for q in quotas), *args))
    return quotas[spent - 1] if spent else None


async def give_back(redis, *quotas: Quota) -> None:
    """Return one use taken with :func:`take` (the attempt turned out not to count)."""
    if quotas:
        await redis.eval(_GIVE_BACK_LUA, len(quotas), *(q.key for q in quotas))


async def clear(redis, *quotas: Quota) -> None:
    """Forget every use of these quotas (a new window starts at the next use)."""
    if quotas:
        await redis.delete(*(q.key for q in quotas))


async def used(redis, quota: Quota) -> int:
    """Uses counted in the current window (0 when none)."""
    return int(await redis.get(quota.key) or 0)

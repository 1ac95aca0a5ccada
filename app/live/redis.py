"""The Redis client: a real server when REDIS_URL is set, else an in-process fakeredis."""
from __future__ import annotations

import redis.asyncio as aioredis

from app.config import Settings


def make_redis(settings: Settings) -> aioredis.Redis:
    if settings.redis_url:
        return aioredis.from_url(settings.redis_url, decode_responses=True, health_check_interval=30)
    import fakeredis

    # One fake server per process: embedded mode is single-process by design.
    return fakeredis.FakeAsyncRedis(decode_responses=True)

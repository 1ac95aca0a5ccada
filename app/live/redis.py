"""The Redis client: a real server when REDIS_URL is set, else an in-process fakeredis."""
from __future__ import annotations

import redis.asyncio as aioredis

from app.config import Settings


def make_redis(settings: Settings) -> aioredis.Redis:
    if settings.redis_url:
        # A blocking pool: under a burst, a request waits for a free connection instead of
        # failing with "too many connections" (redis-py's default pool raises at 100).
        pool = aioredis.BlockingConnectionPool.from_url(
            settings.redis_url, decode_responses=True, health_check_interval=30,
            max_connections=settings.redis_max_connections, timeout=10)
        return aioredis.Redis(connection_pool=pool)
    import fakeredis

    # One fake server per process: embedded mode is single-process by design.
    return fakeredis.FakeAsyncRedis(decode_responses=True, max_connections=settings.redis_max_connections)

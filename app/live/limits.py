"""How fast a player may make matches (docs/security.md, "Limits"). How many open tables one
player may host at once is the store's to enforce (``MatchStore.max_open_per_host``): it counts
them in the same transaction as the write."""
from __future__ import annotations

from app.auth import User
from app.errors import ApiError
from app.ratelimit import hit

WINDOW = 60


async def count_match_creation(svc, user: User, address: str) -> None:
    """Count one new match by ``user`` from client ``address``; over a limit, 429
    ``rate_limited``. Guests are also counted per address: a new guest costs nothing, so a
    flooder's fresh guests share the budget of where they come from."""
    s, p = svc.settings, svc.store.k.p
    if not await hit(svc.redis, f"{p}rl:create:u:{user.id}", s.match_creations_per_minute, WINDOW):
        raise ApiError("rate_limited", f"You can make at most {s.match_creations_per_minute} "
                                       f"matches a minute; wait a moment and try again.")
    if user.guest and not await hit(svc.redis, f"{p}rl:create:a:{address}",
                                    s.guest_match_creations_per_minute_per_address, WINDOW):
        raise ApiError("rate_limited", "Guests at your address have made too many matches in the "
                                       "last minute; wait a moment, or sign in.")

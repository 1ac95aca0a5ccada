"""Limits on password attempts (OWASP Authentication Cheat Sheet), for sign-in and for the
current password of ``POST /api/auth/password``.

- Without a device token an attempt counts against its name (5 per 15 minutes) and its client
  address (30 per 15 minutes), checked and counted in one atomic step (app/ratelimit.py)
  BEFORE any password is hashed: a burst of concurrent attempts gets no more checks than the
  limit, and a spent limit costs no argon2 work.
- With a valid device token for the name (app/device_tokens.py) an attempt counts only against
  that device (10 per 15 minutes): the name's lockout, which anyone can trigger by guessing,
  does not stop a device that signed in before. A device past its own limit is treated as
  unknown (name and address limits), as OWASP describes.
- An attempt is counted when it starts; a correct password starts the name's (or device's)
  count over and gives the address its attempt back; a request that fails for another reason
  (SQL down, hashing busy) gives every count back, since no password was judged wrong.

Names are counted by their confusable skeleton (app/names.py), so look-alike spellings of one
name share its budget.
"""
from __future__ import annotations

from app import ratelimit
from app.errors import ApiError
from app.names import skeleton
from app.ratelimit import Quota

FAILS_PER_NAME = 5
FAILS_PER_ADDRESS = 30
FAILS_PER_DEVICE = 10
FAIL_WINDOW = 900


def name_quota(prefix: str, name: str) -> Quota:
    return Quota(f"{prefix}loginfail:n:{skeleton(name)}", FAILS_PER_NAME, FAIL_WINDOW)


def address_quota(prefix: str, address: str) -> Quota:
    return Quota(f"{prefix}loginfail:a:{address}", FAILS_PER_ADDRESS, FAIL_WINDOW)


def device_quota(prefix: str, device_id: str) -> Quota:
    return Quota(f"{prefix}loginfail:d:{device_id}", FAILS_PER_DEVICE, FAIL_WINDOW)


class PasswordAttempt:
    """``async with PasswordAttempt(svc, name, address, device) as attempt:`` counts the
    attempt (or raises ``rate_limited``); inside, call :meth:`succeeded` once the password was
    right or :meth:`failed` once it was wrong. ``attempt.trusted``: a known device's attempt."""

    def __init__(self, svc, name: str, address: str, device=None):
        self.svc, self.name, self.address, self.device = svc, name, address, device
        self.trusted = False
        self._counted: tuple[Quota, ...] = ()
        self._outcome: bool | None = None

    async def __aenter__(self) -> PasswordAttempt:
        p, redis = self.svc.store.k.p, self.svc.redis
        if self.device is not None:
            device = device_quota(p, self.device.device_id)
            if await ratelimit.take(redis, device) is None:
                self.trusted, self._counted = True, (device,)
                return self
        quotas = (name_quota(p, self.name), address_quota(p, self.address))
        if await ratelimit.take(redis, *quotas) is not None:
            raise ApiError("rate_limited", "Too many failed sign-ins; wait a few minutes and try again.")
        self._counted = quotas
        return self

    def succeeded(self) -> None:
        self._outcome = True

    def failed(self) -> None:
        self._outcome = False

    async def __aexit__(self, *exc) -> None:
        redis = self.svc.redis
        if self._outcome is False:
            return  # a wrong password: it stays counted
        if self._outcome is True:
            # The name's (or device's) count starts over; the address gets this attempt back.
            await ratelimit.clear(redis, self._counted[0])
            await ratelimit.give_back(redis, *self._counted[1:])
            return
        await ratelimit.give_back(redis, *self._counted)  # undecided: not a wrong password

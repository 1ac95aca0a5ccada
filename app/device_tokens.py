"""Device tokens: OWASP's "device cookies" against lockouts caused by someone else.

After a successful sign-in the client gets a device token: signed by the server, bound to the
account (its id and case-folded name) and to a random device id. A later sign-in that carries
a valid device token for the same name comes from a device that once knew the password, so it
is not subject to the per-name lockout an attacker can trigger by guessing (only to a limit of
its own, per device: app/signin.py). Without one, failures count per name as before.

The token is an HS256 JWT under a key derived from SECRET_KEY for this purpose only, with its
own ``typ``: it can never pass for a session token, nor a session token for it.
"""
from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from dataclasses import dataclass

import jwt

from app.config import Settings

ALGORITHM = "HS256"
TYP = "duelhall-device"


@dataclass(frozen=True)
class Device:
    device_id: str
    user_id: str
    name_key: str


def _key(settings: Settings) -> bytes:
    return hmac.new(settings.signing_key().encode(), b"duelhall device token v1", hashlib.sha256).digest()


def name_key(name: str) -> str:
    """The form of a name a device token is bound to (as accounts are looked up: case-folded)."""
    return name.casefold()


def issue(settings: Settings, user_id: str, name: str, device_id: str | None = None) -> str:
    """A device token for this account; ``device_id`` keeps a device's id when it is renewed."""
    now = int(time.time())
    claims = {"typ": TYP, "did": device_id or uuid.uuid4().hex, "sub": user_id,
              "name": name_key(name), "iat": now, "exp": now + settings.device_token_ttl_seconds}
    return jwt.encode(claims, _key(settings), algorithm=ALGORITHM)


def read(token: str | None, settings: Settings, name: str) -> Device | None:
    """The device, when ``token`` is a valid, unexpired device token for ``name``; else None
    (a missing, forged, expired or other account's token only means "a device we don't know")."""
    if not token:
        return None
    try:
        c = jwt.decode(token, _key(settings), algorithms=[ALGORITHM],
                       options={"require": ["exp", "sub", "did", "name", "typ"]})
    except jwt.PyJWTError:
        return None
    if c.get("typ") != TYP or c.get("name") != name_key(name):
        return None
    if not all(isinstance(c[k], str) and c[k] for k in ("did", "sub")):
        return None
    return Device(c["did"], c["sub"], c["name"])

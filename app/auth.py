"""Identity: signed bearer tokens for guests and accounts, roles, suspension, sign-out.

A token is an HS256 JWT with the user id, name, role, a ``gen`` (token generation) and a
``jti``. Checking it costs one Redis round trip: the user's status (role, suspended, current
generation) and the token's sign-out mark are read together. Account status is cached from
SQL; admins' changes write both, so a new role or a suspension takes effect at once.
"""
from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, replace

import jwt
from fastapi import Depends, Request

from app.config import Settings
from app.errors import ApiError

ALGORITHM = "HS256"
ROLES = ("player", "organiser", "admin")
STATUS_TTL = 3600


@dataclass(frozen=True)
class User:
    id: str
    name: str
    role: str = "player"
    guest: bool = True
    gen: int = 0
    jti: str = ""
    exp: int = 0

    def public(self) -> dict:
        return {"id": self.id, "name": self.name, "role": self.role}


def issue_token(user: User, settings: Settings) -> str:
    now = int(time.time())
    claims = {
        "sub": user.id, "name": user.name, "role": user.role, "guest": user.guest,
        "gen": user.gen, "jti": uuid.uuid4().hex, "iat": now,
        "exp": now + settings.token_ttl_seconds,
    }
    return jwt.encode(claims, settings.signing_key(), algorithm=ALGORITHM)


def decode_token(token: str | None, settings: Settings) -> User:
    """Signature and expiry only; :func:`authenticate` adds the status checks."""
    if not token:
        raise ApiError("unauthorized", "Sign in first: this needs a token.")
    try:
        c = jwt.decode(token, settings.signing_key(), algorithms=[ALGORITHM])
    except jwt.ExpiredSignatureError:
        raise ApiError("unauthorized", "Your session has expired; sign in again.") from None
    except jwt.PyJWTError:
        raise ApiError("unauthorized", "That token is not valid; sign in again.") from None
    try:
        return User(c["sub"], c["name"], c.get("role", "player"), c.get("guest", True),
                    int(c.get("gen", 0)), c.get("jti", ""), int(c["exp"]))
    except (KeyError, TypeError, ValueError):
        raise ApiError("unauthorized", "That token is not valid; sign in again.") from None


def new_guest(name: str) -> User:
    return User(id="u_" + uuid.uuid4().hex[:20], name=name, role="player", guest=True)


# ------------------------------------------------------------------ status in Redis
def status_key(svc, user_id: str) -> str:
    return f"{svc.store.k.p}u:{user_id}"


def revoked_key(svc, jti: str) -> str:
    return f"{svc.store.k.p}revoked:{jti}"


async def write_status(svc, user_id: str, role: str, suspended: bool, gen: int, guest: bool) -> None:
    data = json.dumps({"role": role, "suspended": suspended, "gen": gen})
    # Guests have no SQL row to reload from, so their status (only ever written when an admin
    # acts on them) is kept; accounts' is a cache.
    await svc.redis.set(status_key(svc, user_id), data, ex=None if guest else STATUS_TTL)


async def authenticate(token: str | None, svc, decoded: User | None = None) -> User:
    """The token's user, if it is still good: signature and expiry, not signed out, account
    not suspended, password not changed since. ``decoded``: this token's :func:`decode_token`
    result from earlier (a socket checks again before every action without decoding again)."""
    if decoded is not None and decoded.exp > time.time():
        user = decoded
    else:
        user = decode_token(token, svc.settings)
    raw, revoked = await svc.redis.mget(status_key(svc, user.id), revoked_key(svc, user.jti or "-"))
    if revoked:
        raise ApiError("unauthorized", "You have signed out; sign in again.")
    status = json.loads(raw) if raw else None
    if status is None and not user.guest:
        from app.db import accounts

        try:
            row = await accounts.by_id(svc.maker, user.id)
        except Exception:
            raise ApiError("unavailable", "Accounts are unavailable for a moment; try again.", 503) from None
        if row is None:
            raise ApiError("unauthorized", "That account no longer exists.")
        await write_status(svc, row.id, row.role, row.suspended, row.token_gen, False)
        status = {"role": row.role, "suspended": row.suspended, "gen": row.token_gen}
    if status is not None:
        if status["suspended"]:
            raise ApiError("suspended", "Your account is suspended.")
        if status["gen"] != user.gen:
            raise ApiError("unauthorized", "You were signed out (password changed); sign in again.")
        user = replace(user, role=status["role"])
    return user


def standing_guard(svc, user: User):
    """What :func:`authenticate` checks in Redis, as a guard the match store checks inside the
    write itself (``app.live.store.CAS_LUA``): a socket's action then needs no round trip of its
    own for it. When the guard refuses, call :func:`authenticate` for the reason."""
    from app.live.store import Guard

    return Guard(status_key(svc, user.id), revoked_key(svc, user.jti or "-"), user.gen,
                 not user.guest)


async def set_password(svc, row, password_hash: str) -> int:
    """Store an account's new password hash and move its token generation on, so every token
    issued before stops working; returns the new generation."""
    from app.db import accounts

    gen = row.token_gen + 1
    async with svc.maker.begin() as session:
        await accounts.update_user(session, row.id, password_hash=password_hash, token_gen=gen)
    await write_status(svc, row.id, row.role, row.suspended, gen, False)
    return gen


async def revoke(svc, user: User) -> None:
    """Sign this token out until it would have expired anyway."""
    ttl = max(1, user.exp - int(time.time()))
    await svc.redis.set(revoked_key(svc, user.jti or "-"), "1", ex=ttl)


# ------------------------------------------------------------------ passwords
_hasher = None


def _password_hash():
    global _hasher
    if _hasher is None:
        from pwdlib import PasswordHash

        _hasher = PasswordHash.recommended()  # argon2id
    return _hasher


async def _hash_work(gate, fn, *args):
    """Argon2 work in a thread, through ``gate`` (app/password_gate.py) when given."""
    return await (gate.run(fn, *args) if gate is not None else asyncio.to_thread(fn, *args))


async def hash_password(password: str, gate=None) -> str:
    return await _hash_work(gate, _password_hash().hash, password)


_DUMMY: list[str] = []


async def verify_password(password: str, hashed: str | None, gate=None) -> bool:
    """Always runs one argon2 verification, so a missing account takes as long as a wrong
    password (no user enumeration by timing)."""
    if hashed is None:
        if not _DUMMY:
            _DUMMY.append(await hash_password("not-a-password-" + uuid.uuid4().hex, gate))
        hashed, password = _DUMMY[0], password + "\x00"
        await _hash_work(gate, _password_hash().verify, password, hashed)
        return False
    return await _hash_work(gate, _password_hash().verify, password, hashed)


# ------------------------------------------------------------------ FastAPI dependencies
def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return None


async def current_user(request: Request) -> User:
    return await authenticate(_bearer(request), request.app.state.services)


async def optional_user(request: Request) -> User | None:
    token = _bearer(request)
    return await authenticate(token, request.app.state.services) if token else None


def require_role(*roles: str):
    async def dependency(user: User = Depends(current_user)) -> User:
        if user.role not in roles:
            raise ApiError("forbidden", "You do not have permission to do that.")
        return user

    return dependency

"""Identity: signed bearer tokens. Guests need nothing stored; accounts come later."""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

import jwt
from fastapi import Depends, Request

from app.config import Settings, get_settings
from app.errors import ApiError

ALGORITHM = "HS256"


@dataclass(frozen=True)
class User:
    id: str
    name: str
    role: str = "player"
    guest: bool = True

    def public(self) -> dict:
        return {"id": self.id, "name": self.name, "role": self.role}


def issue_token(user: User, settings: Settings) -> str:
    now = int(time.time())
    claims = {
        "sub": user.id,
        "name": user.name,
        "role": user.role,
        "guest": user.guest,
        "iat": now,
        "exp": now + settings.token_ttl_seconds,
    }
    return jwt.encode(claims, settings.signing_key(), algorithm=ALGORITHM)


def decode_token(token: str | None, settings: Settings) -> User:
    if not token:
        raise ApiError("unauthorized", "Sign in first: this needs a token.")
    try:
        claims = jwt.decode(token, settings.signing_key(), algorithms=[ALGORITHM])
    except jwt.ExpiredSignatureError:
        raise ApiError("unauthorized", "Your session has expired; sign in again.") from None
    except jwt.PyJWTError:
        raise ApiError("unauthorized", "That token is not valid; sign in again.") from None
    return User(claims["sub"], claims["name"], claims.get("role", "player"), claims.get("guest", True))


def new_guest(name: str) -> User:
    return User(id="u_" + uuid.uuid4().hex[:20], name=name, role="player", guest=True)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return None


def current_user(request: Request, settings: Settings = Depends(get_settings)) -> User:
    return decode_token(_bearer(request), settings)


def optional_user(request: Request, settings: Settings = Depends(get_settings)) -> User | None:
    token = _bearer(request)
    return decode_token(token, settings) if token else None

"""Request bodies. Unknown fields are rejected everywhere (extra='forbid')."""
from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

NAME_RE = re.compile(r"^[\w][\w .'\-]*$", re.UNICODE)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GuestIn(Strict):
    name: str = Field(min_length=1, max_length=24, description="Display name, 1-24 characters")

    _name = field_validator("name")(classmethod(lambda cls, v: _check_name(v)))


def _check_name(v: str) -> str:
    v = " ".join(v.split())
    if not v or not NAME_RE.match(v):
        raise ValueError("use letters, digits, spaces and . ' - _ only")
    return v


class CredentialsIn(Strict):
    name: str = Field(min_length=1, max_length=24)
    password: str = Field(min_length=8, max_length=128, description="8-128 characters")

    _name = field_validator("name")(classmethod(lambda cls, v: _check_name(v)))


class LoginIn(CredentialsIn):
    device_token: str | None = Field(
        default=None, max_length=2000,
        description="The device_token a previous sign-in of this account returned to this device "
                    "(optional): a known device is not locked out by other people's wrong "
                    "passwords for the name (docs/accounts.md)")


class PasswordChangeIn(Strict):
    old_password: str = Field(min_length=1, max_length=128)
    new_password: str = Field(min_length=8, max_length=128)


class UserOut(BaseModel):
    id: str
    name: str
    role: str
    guest: bool | None = None


class TokenOut(BaseModel):
    token: str
    user: UserOut


class AccountTokenOut(TokenOut):
    device_token: str | None = Field(
        default=None, description="Keep it on this device and send it with the next login of this "
                                  "account (docs/accounts.md, device tokens)")


def _check_seed(v: str | None) -> str | None:
    from games.fairness import check_player_seed

    return None if v is None else check_player_seed(v)


SEED_DESCRIPTION = ("Your own entropy for the deal: 32-128 hex digits (the browser sends 16 random "
                    "bytes). Without it the server draws one for you. See docs/fairness.md.")


class SeedIn(Strict):
    """A body that may carry the player's seed (joining, offering a rematch)."""
    seed: str | None = Field(default=None, description=SEED_DESCRIPTION,
                             json_schema_extra={"pattern": "^[0-9a-fA-F]{32,128}$"})

    _seed = field_validator("seed")(classmethod(lambda cls, v: _check_seed(v)))


class CreateMatchIn(SeedIn):
    game: str = Field(max_length=20)
    options: dict[str, Any] = Field(default_factory=dict)


class ActionIn(Strict):
    action: dict[str, Any]
    version: int | None = Field(default=None, ge=0, description="Fails with stale_version if the match has moved on")
    client_seq: int | None = Field(default=None, ge=1, description="Idempotency key, increasing per seat")


class GameLabOut(BaseModel):
    length_unit: str = Field(description="What the lab's game length counts (plural), e.g. duels")
    moves: str = Field(description="What the lab counts as moves, e.g. cards played")
    lineup: str | None = Field(description="What the lab assigns each seat (duellist, deck), "
                                           "or null")


class GameOut(BaseModel):
    id: str
    name: str
    min_players: int
    max_players: int
    options_schema: dict
    simultaneous: bool = Field(description="Several seats may be to act at once")
    board: str | None = Field(description="Board module static/games/<board>.js and catalogue "
                                          "static/i18n/<lang>/<board>.json; null: the generic "
                                          "board")
    rules: str = Field(description="The rules page in the repository")
    bot_levels: list[str] = Field(description="Computer players' levels, weakest first")
    lab: GameLabOut


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


ERRORS = {code: {"model": ErrorOut} for code in (400, 401, 403, 404, 409, 413, 422, 429)}


class ReportIn(Strict):
    reason: str = Field(min_length=3, max_length=500)


class RoleIn(Strict):
    role: str = Field(pattern="^(player|organiser|admin)$")


class SuspendIn(Strict):
    reason: str = Field(min_length=3, max_length=500)


class FlagIn(Strict):
    flagged: bool
    note: str | None = Field(default=None, max_length=2000)


class NoteIn(Strict):
    text: str = Field(min_length=1, max_length=2000)

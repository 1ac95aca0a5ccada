from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Request

from app import device_tokens
from app.api.schemas import (
    ERRORS,
    AccountTokenOut,
    CredentialsIn,
    GuestIn,
    LoginIn,
    PasswordChangeIn,
    TokenOut,
    UserOut,
)
from app.auth import (
    User,
    current_user,
    hash_password,
    issue_token,
    new_guest,
    revoke,
    set_password,
    verify_password,
)
from app.db import accounts
from app.errors import ApiError
from app.names import is_reserved
from app.ratelimit import client_address
from app.services import Services, get_services
from app.signin import PasswordAttempt

router = APIRouter(prefix="/api", tags=["identity"], responses=ERRORS)

RESERVED_MESSAGE = "That name is reserved; choose another."
TAKEN_MESSAGE = "That name is taken (or looks just like one that is); choose another."


def _token_out(user: User, svc: Services) -> dict:
    return {"token": issue_token(user, svc.settings), "user": user.public()}


def _account_out(row, svc: Services, device_id: str | None = None) -> dict:
    user = User(row.id, row.name, row.role, guest=False, gen=row.token_gen)
    return {**_token_out(user, svc),
            "device_token": device_tokens.issue(svc.settings, row.id, row.name, device_id)}


@router.post("/auth/guest", response_model=TokenOut)
async def guest(body: GuestIn, svc: Services = Depends(get_services)):
    """Play as a guest: a name is enough (not a reserved one, nor one that is or looks like a
    registered account's). The token identifies you on every call."""
    if is_reserved(body.name):
        raise ApiError("name_taken", RESERVED_MESSAGE)
    if await accounts.name_in_use(svc.maker, body.name):
        raise ApiError("name_taken", "That name (or one that looks just like it) belongs to a "
                                     "registered player; log in, or choose another.")
    return _token_out(new_guest(body.name), svc)


@router.post("/auth/register", response_model=AccountTokenOut)
async def register(body: CredentialsIn, svc: Services = Depends(get_services)):
    """Create an account. Names are unique ignoring case and look-alike letters (``Rооt`` with
    a Cyrillic о is ``Root``); some are reserved."""
    if is_reserved(body.name):
        raise ApiError("name_taken", RESERVED_MESSAGE)
    if await accounts.name_in_use(svc.maker, body.name):
        raise ApiError("name_taken", TAKEN_MESSAGE)
    password_hash = await hash_password(body.password, svc.passwords.untrusted)
    try:
        row = await accounts.create_account(svc.maker, "u_" + uuid.uuid4().hex[:20], body.name,
                                            password_hash)
    except accounts.NameTaken:  # registered meanwhile: the unique skeleton decides
        raise ApiError("name_taken", TAKEN_MESSAGE) from None
    return _account_out(row, svc)


@router.post("/auth/login", response_model=AccountTokenOut)
async def login(body: LoginIn, request: Request, svc: Services = Depends(get_services)):
    """Sign in. Send the ``device_token`` this device got from its last sign-in of this account,
    if any: a known device is not locked out by other people's failures for the name."""
    device = device_tokens.read(body.device_token, svc.settings, body.name)
    async with PasswordAttempt(svc, body.name, client_address(request), device) as attempt:
        row = await accounts.by_name(svc.maker, body.name)
        if row is not None and device is not None and device.user_id != row.id:
            row = None  # a token for an account of that name that is no more: not this one's
        ok = await verify_password(body.password, row.password_hash if row else None,
                                   svc.passwords.lane(attempt.trusted))
        if not ok or row is None:
            attempt.failed()
            raise ApiError("unauthorized", "Wrong name or password.")
        attempt.succeeded()
    if row.suspended:
        raise ApiError("suspended", "Your account is suspended.")
    return _account_out(row, svc, device.device_id if device else None)


@router.post("/auth/logout", status_code=204)
async def logout(user: User = Depends(current_user), svc: Services = Depends(get_services)):
    """Sign this token out."""
    await revoke(svc, user)


@router.post("/auth/password", response_model=AccountTokenOut)
async def change_password(body: PasswordChangeIn, request: Request,
                          user: User = Depends(current_user), svc: Services = Depends(get_services)):
    """Change your password; every other session is signed out, you get a fresh token. The
    current password is checked under the sign-in limits of your name and address."""
    if user.guest:
        raise ApiError("forbidden", "Guests have no password; register an account first.")
    async with PasswordAttempt(svc, user.name, client_address(request)) as attempt:
        row = await accounts.by_id(svc.maker, user.id)
        # A session vouches for the caller: its hashing has the known devices' lane.
        if row is None or not await verify_password(body.old_password, row.password_hash,
                                                    svc.passwords.trusted):
            attempt.failed()
            # Not 401: the caller's session is fine, only the password they typed is not.
            raise ApiError("wrong_password", "Your current password is wrong.")
        attempt.succeeded()
    row.token_gen = await set_password(
        svc, row, await hash_password(body.new_password, svc.passwords.trusted))
    return _account_out(row, svc)


@router.get("/me", response_model=UserOut)
async def me(user: User = Depends(current_user)):
    return {**user.public(), "guest": user.guest}

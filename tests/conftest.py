"""Shared fixtures. The same suite runs embedded (fakeredis + SQLite) by default and against
real services when REDIS_URL / DATABASE_URL are set (as .ci/run does)."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from app.config import Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def db_url(tmp_path_factory) -> str:
    """One migrated database for the session: a fresh SQLite file, or the real one from
    DATABASE_URL reset to an empty schema first. Autouse, so the reset always happens before
    any test starts a server on that database, whatever order the tests run in."""
    url = os.environ.get("DATABASE_URL")
    if url:
        _reset_postgres(url)
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.sqlite3'}"
    from app.db.session import migrate

    migrate(Settings(database_url=url, data_dir=tmp_path_factory.mktemp("data")))
    return url


def _reset_postgres(url: str) -> None:
    import asyncio

    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    async def reset():
        engine = create_async_engine(Settings(database_url=url).sqlalchemy_url())
        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
        await engine.dispose()

    asyncio.run(reset())


@pytest.fixture
def settings(db_url, tmp_path) -> Settings:
    return Settings(
        redis_url=os.environ.get("REDIS_URL") or None,
        database_url=db_url,
        data_dir=tmp_path,
        secret_key="test-secret-key-0123456789abcdef0123456789",
        # A fresh key space per test, so tests never see each other's matches.
        redis_prefix=f"t{uuid.uuid4().hex[:10]}:",
        clock_poll_seconds=0.05,
    )


@pytest.fixture
def client(settings):
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(settings, run_migrations=False)) as c:
        yield c


def guest(client, name: str) -> dict:
    """Sign in a guest; returns {"token", "user", "headers"}."""
    r = client.post("/api/auth/guest", json={"name": name})
    assert r.status_code == 200, r.text
    body = r.json()
    body["headers"] = {"Authorization": f"Bearer {body['token']}"}
    return body


def account(client, name: str, role: str = "player", password: str = "correct horse battery") -> dict:
    """Register an account; give it ``role`` the way an admin would (SQL and status cache)."""
    r = client.post("/api/auth/register", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    body = r.json()
    if role != "player":
        from app.auth import write_status
        from app.db import accounts

        svc = client.app.state.services

        async def promote():
            async with svc.maker.begin() as session:
                row = await accounts.update_user(session, body["user"]["id"], role=role)
            await write_status(svc, row.id, role, row.suspended, row.token_gen, False)

        client.portal.call(promote)
        body["user"]["role"] = role
    body["headers"] = {"Authorization": f"Bearer {body['token']}"}
    body["password"] = password
    return body


def drain(client, timeout: float = 15.0) -> None:
    """Write everything waiting in the outbox to SQL now, and wait until the background
    writer has committed whatever batch it had in flight (nothing pending, nothing left)."""
    import time

    from app.live.outbox import GROUP

    svc = client.app.state.services
    end = time.time() + timeout
    while True:
        client.portal.call(svc.outbox.drain_all)
        pending = client.portal.call(svc.redis.xpending, svc.store.k.outbox, GROUP)
        left = client.portal.call(svc.redis.xlen, svc.store.k.outbox)
        if (not pending or not pending.get("pending")) and left == 0:
            return
        assert time.time() < end, f"outbox did not drain: {pending} pending, {left} left"
        time.sleep(0.05)


@pytest.fixture(autouse=True, scope="session")
def cheap_password_hashing():
    """Argon2 still, with small costs: the suite hashes many passwords on a 2-core machine."""
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher

    import app.auth

    app.auth._hasher = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
    yield
    app.auth._hasher = None

"""Issue #15, hole 8: with SQL unreachable every SQL-backed route answers 503 `unavailable`
in the one error shape (retry later), never a 500 (which means a bug)."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import DBAPIError

from app.auth import User, issue_token
from app.db import accounts
from app.main import create_app


def unavailable(r) -> None:
    assert r.status_code == 503, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == "unavailable"


@pytest.fixture
def sql_is_gone(settings, tmp_path):
    """The app pointed at a Postgres whose socket is not there (an address nothing answers
    on): every connection attempt fails inside the driver."""
    gone = settings.model_copy(update={
        "database_url": f"postgresql://duelhall@/duelhall?host={tmp_path / 'no-such-socket-dir'}",
        "tournament_sweep_seconds": 0})
    with TestClient(create_app(gone, run_migrations=False), raise_server_exceptions=False) as c:
        yield c, gone


def test_login_register_record_and_profile_say_unavailable(sql_is_gone):
    c, settings = sql_is_gone
    unavailable(c.post("/api/auth/login", json={"name": "Ann", "password": "long enough"}))
    unavailable(c.post("/api/auth/register", json={"name": "Ann", "password": "long enough"}))
    unavailable(c.post("/api/auth/guest", json={"name": "Ann"}))  # names are checked in SQL
    token = issue_token(User("u_sqlgone", "Ann"), settings)
    headers = {"Authorization": f"Bearer {token}"}
    unavailable(c.get("/api/matches/abcdef123456/record", headers=headers))
    unavailable(c.get("/api/users/u_sqlgone"))
    unavailable(c.get("/api/leaderboard/duell"))


def test_a_database_that_cannot_serve_now_is_unavailable(client, monkeypatch):
    """Postgres starting up or shutting down refuses with SQLSTATE 57P03 / 57P01: the driver's
    error reaches us as SQLAlchemy's generic DBAPIError, not an OperationalError."""

    class StartingUp(Exception):
        sqlstate = "57P03"

    async def starting(*_args, **_kwargs):
        raise DBAPIError("SELECT", {}, StartingUp("the database system is starting up"))

    monkeypatch.setattr(accounts, "by_name", starting)
    unavailable(client.post("/api/auth/login", json={"name": "Ann", "password": "long enough"}))


def test_a_bug_stays_a_500():
    from app.errors import backend_unreachable

    class Bug(Exception):
        sqlstate = "42P01"  # undefined table: our mistake, not an outage

    assert not backend_unreachable(DBAPIError("SELECT", {}, Bug("no such table")))
    assert not backend_unreachable(FileNotFoundError("static/missing.js"))
    assert backend_unreachable(ConnectionRefusedError("refused"))

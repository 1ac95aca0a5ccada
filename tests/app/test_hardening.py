"""Hardening against hostile clients and broken neighbours: security headers (and a client that
keeps to the CSP), websocket origin checks, the production secret rule, the flood policy,
Redis outages answered with `unavailable` (never a crash or a 500), and the ping that heals a
lost change notice."""
from __future__ import annotations

import json
import re

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from starlette.websockets import WebSocketDisconnect

from app.config import ROOT, Settings
from app.ws import origin_allowed
from app.ws_limits import OPENS_PER_MINUTE
from tests.app.support import duell_match, view
from tests.conftest import guest
from tests.support import wait_for

STATIC = ROOT / "static"


def app_client(settings, **changes):
    from fastapi.testclient import TestClient

    from app.main import create_app

    return TestClient(create_app(settings.model_copy(update=changes), run_migrations=False))


def recv_until(ws, kind):
    while True:
        m = ws.receive_json()
        if m["type"] == kind:
            return m


# ------------------------------------------------------------------ security headers
@pytest.mark.parametrize("path", ["/", "/static/app.js", "/static/style.css", "/api/games", "/nowhere"])
def test_security_headers_everywhere(client, path):
    h = client.get(path).headers
    assert h["x-content-type-options"] == "nosniff"
    assert h["referrer-policy"] == "same-origin"
    assert h["x-frame-options"] == "DENY"
    csp = dict(part.strip().split(" ", 1) for part in h["content-security-policy"].split(";"))
    assert csp["default-src"] == "'self'" and csp["frame-ancestors"] == "'none'"
    assert csp["script-src"] == "'self'" and csp["style-src"] == "'self'"
    assert csp["object-src"] == "'none'" and csp["connect-src"] == "'self'"
    # Only style="" attributes (board bars) are let through inline; never a script.
    unsafe = [d for d, v in csp.items() if "unsafe" in v]
    assert unsafe == ["style-src-attr"]


def test_api_docs_page_keeps_working_under_its_own_policy(client):
    r = client.get("/docs")
    assert r.status_code == 200
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "cdn.jsdelivr.net" in csp
    assert client.get("/openapi.json").headers["content-security-policy"].startswith("default-src 'self'")


def test_the_client_needs_nothing_the_policy_forbids():
    """The strict CSP holds only while the client has no inline script or style and loads
    nothing from elsewhere: keep it that way."""
    html = (STATIC / "index.html").read_text()
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag, f"inline script in index.html: {tag}"
    assert "<style" not in html and not re.search(r"\sstyle\s*=|\son[a-z]+\s*=", html)
    for path in STATIC.rglob("*.js"):
        text = path.read_text()
        assert not re.search(r"setAttribute\(\s*['\"]style['\"]|\beval\(|new Function\("
                             r"|https?://(?!www\.w3\.org)", text), path
    for path in STATIC.rglob("*.css"):
        assert not re.search(r"@import\s+url\(\s*['\"]?https?:|url\(\s*['\"]?https?:", path.read_text()), path


# ------------------------------------------------------------------ websocket origin
@pytest.mark.parametrize("origin,host,allowed,ok", [
    (None, "duelhall.example", [], True),                    # not a browser
    ("https://duelhall.example", "duelhall.example", [], True),
    ("https://duelhall.example:443", "duelhall.example", [], True),
    ("http://localhost:8000", "localhost:8000", [], True),
    ("http://localhost:8000", "localhost", [], False),       # a proxy that dropped the port
    ("https://evil.example", "duelhall.example", [], False),
    ("https://duelhall.example.evil.example", "duelhall.example", [], False),
    ("null", "duelhall.example", [], False),                 # sandboxed frame, file: page
    ("http://duelhall.example:99999", "duelhall.example", [], False),
    ("https://app.example", "backend:8000", ["https://app.example"], True),
    ("https://duelhall.example", "duelhall.example", ["https://app.example"], False),
])
def test_origin_rule(origin, host, allowed, ok):
    assert origin_allowed(origin, host, allowed) is ok


def test_cross_origin_socket_is_refused_same_origin_accepted(client):
    mid, p = duell_match(client)
    url = f"/ws/matches/{mid}?token={p['A']['token']}"
    with (pytest.raises(WebSocketDisconnect) as refused,
          client.websocket_connect(url, headers={"origin": "https://evil.example"}) as ws):
        ws.receive_json()
    assert refused.value.code == 4403
    with client.websocket_connect(url, headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "view"


def test_allowed_origins_setting_replaces_the_same_origin_rule(settings):
    with app_client(settings, allowed_origins=["https://play.example"]) as c:
        mid, p = duell_match(c)
        url = f"/ws/matches/{mid}?token={p['A']['token']}"
        with c.websocket_connect(url, headers={"origin": "https://play.example"}) as ws:
            assert ws.receive_json()["type"] == "view"
        with (pytest.raises(WebSocketDisconnect),
              c.websocket_connect(url, headers={"origin": "http://testserver"}) as ws):
            ws.receive_json()


# ------------------------------------------------------------------ secrets
STRONG = "9f2c4e1ab7d35f60c8e2a9b4d1f7e3c5a8b6d2f4e9c1a7b3"


@pytest.mark.parametrize("key,problem", [
    (None, "needs SECRET_KEY"),
    ("short-but-random-9f2c", "too weak"),
    ("changeme-changeme-changeme-changeme-1234", "too weak"),
    ("a" * 64, "too weak"),
    (STRONG, None),
])
def test_production_needs_a_strong_secret_from_the_environment(tmp_path, key, problem):
    from app.main import create_app

    s = Settings(app_env="production", secret_key=key, data_dir=tmp_path)
    if problem is None:
        assert s.secret_problem() is None
        assert create_app(s, run_migrations=False) is not None
        assert not (tmp_path / "secret.key").exists()  # nothing generated
    else:
        assert problem in s.secret_problem()
        with pytest.raises(RuntimeError, match="refusing to start"):
            create_app(s, run_migrations=False)


def test_development_generates_a_key_and_production_is_read_from_the_environment(tmp_path, monkeypatch):
    assert Settings(data_dir=tmp_path).secret_problem() is None  # embedded default
    monkeypatch.setenv("APP_ENV", "production")
    monkeypatch.setenv("SECRET_KEY", STRONG)
    s = Settings(data_dir=tmp_path)
    assert s.app_env == "production" and s.signing_key() == STRONG


def test_serve_refuses_to_start_in_production_without_a_key(monkeypatch, capsys, tmp_path):
    from app import cli
    from app.config import get_settings

    monkeypatch.setenv("APP_ENV", "production")
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        assert cli.main(["serve", "--port", "1"]) == 2
    finally:
        get_settings.cache_clear()
    assert "refusing to start" in capsys.readouterr().err


# ------------------------------------------------------------------ flooding
def test_a_flooding_socket_is_closed_for_policy(settings):
    burst = 5
    with app_client(settings, ws_rate_per_second=0.01, ws_burst=burst) as c:
        mid, p = duell_match(c)
        with c.websocket_connect(f"/ws/matches/{mid}?token={p['A']['token']}") as ws:
            ws.receive_json()
            for _ in range(burst + 3 * burst):
                ws.send_text('{"type": "ping"}')
            got = []
            with pytest.raises(WebSocketDisconnect) as closed:  # noqa: PT012  (read until closed)
                while True:
                    got.append(ws.receive_json())
        assert closed.value.code == 1008
        assert sum(m["type"] == "pong" for m in got) == burst
        assert sum(m.get("code") == "rate_limited" for m in got) == 2 * burst  # then closed
        # The match and the other players are untouched.
        assert view(c, mid, p["B"])["status"] == "live"


def test_reconnecting_again_and_again_is_limited_per_user_and_match(client):
    mid, p = duell_match(client)
    url = f"/ws/matches/{mid}?token={p['A']['token']}"
    for _ in range(OPENS_PER_MINUTE):
        with client.websocket_connect(url) as ws:
            assert ws.receive_json()["type"] == "view"
    with client.websocket_connect(url) as ws:
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "rate_limited"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1008
    # Another user is not affected, nor the same user on another match (a bot plays many).
    with client.websocket_connect(f"/ws/matches/{mid}?token={p['B']['token']}") as ws:
        assert ws.receive_json()["type"] == "view"
    other = client.post("/api/matches", json={"game": "duell"}, headers=p["A"]["headers"]).json()
    with client.websocket_connect(f"/ws/matches/{other['id']}?token={p['A']['token']}") as ws:
        assert ws.receive_json()["type"] == "view"


def test_deeply_nested_json_is_an_invalid_message_not_a_crash(client):
    mid, p = duell_match(client)
    with client.websocket_connect(f"/ws/matches/{mid}?token={p['A']['token']}") as ws:
        ws.receive_json()
        ws.send_text("[" * 10_000 + "]" * 10_000)
        assert recv_until(ws, "error")["code"] == "invalid_message"
        ws.send_text('{"type": "ping"}')
        recv_until(ws, "pong")
    r = client.post("/api/auth/guest", content="[" * 10_000 + "]" * 10_000,
                    headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500 and r.json()["error"]["code"]


# ------------------------------------------------------------------ Redis unreachable
def test_redis_down_means_unavailable_not_a_crash(client, monkeypatch):
    mid, p = duell_match(client)
    mover = view(client, mid, p["A"])["pending"][0]
    legal = view(client, mid, p[mover])["legal"]
    svc = client.app.state.services

    async def down(*args, **kwargs):
        raise RedisConnectionError("Connection refused")

    with client.websocket_connect(f"/ws/matches/{mid}?token={p[mover]['token']}") as ws:
        ws.receive_json()
        monkeypatch.setattr(svc.store, "act", down)
        ws.send_json({"type": "action", "action": legal[0], "client_seq": 1})
        err = recv_until(ws, "error")
        assert err["code"] == "unavailable" and err["client_seq"] == 1
        r = client.post(f"/api/matches/{mid}/actions", json={"action": legal[0]},
                        headers=p[mover]["headers"])
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
        monkeypatch.undo()
        # Back: the same client_seq goes through, once.
        ws.send_json({"type": "action", "action": legal[0], "client_seq": 1})
        ack = recv_until(ws, "ack")
        assert ack["duplicate"] is False
    monkeypatch.setattr(svc.store, "load", down)
    r = client.get(f"/api/matches/{mid}/view", headers=p[mover]["headers"])
    assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
    with client.websocket_connect(f"/ws/matches/{mid}?token={p[mover]['token']}") as ws:
        assert ws.receive_json()["code"] == "unavailable"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1013


def test_a_ping_heals_a_lost_change_notice(client, monkeypatch):
    """Pub/sub notices can be lost (Redis restarting); a socket that pings gets what it missed."""
    mid, p = duell_match(client)
    mover = view(client, mid, p["A"])["pending"][0]
    other = "B" if mover == "A" else "A"
    legal = view(client, mid, p[mover])["legal"]
    svc = client.app.state.services
    with client.websocket_connect(f"/ws/matches/{mid}?token={p[other]['token']}") as ws:
        before = ws.receive_json()["version"]
        lost = []
        monkeypatch.setattr(svc.hub, "notify", lambda *a, **k: lost.append(a))  # the notice gets lost
        change = client.portal.call(svc.store.act, mid, p[mover]["user"]["id"], legal[0])
        wait_for(lambda: (mid, change.doc["version"]) in lost, message="the notice never came")
        monkeypatch.undo()
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"
        healed = ws.receive_json()
        assert healed["type"] == "view" and healed["version"] == change.doc["version"] > before
        # A second ping does not send the same version again.
        ws.send_json({"type": "ping"})
        ws.send_json({"type": "action", "action": {"type": "x"}, "client_seq": 1})
        assert ws.receive_json()["type"] == "pong"
        assert ws.receive_json()["type"] == "error"


def test_http_body_and_json_errors_stay_4xx(client):
    a = guest(client, "Ann")
    big = json.dumps({"game": "duell", "options": {"pad": "x" * 70_000}})
    r = client.post("/api/matches", content=big, headers={**a["headers"], "content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"

"""The abuse limits of issue #15 (docs/security.md, "Limits"): open tables per host, matches
made per minute per player and per address for guests, open tables that expire, socket opens
and sockets at once per address, the tournament socket's message rate, and the deck limit
under concurrent saves."""
from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from app.api.decks import MAX_DECKS_PER_USER
from tests.app.support import duell_match
from tests.conftest import account, guest

# Everything off but what a test sets, so one limit never hides another.
NO_LIMITS = dict(max_open_matches_per_user=0, match_creations_per_minute=0,
                 guest_match_creations_per_minute_per_address=0, open_match_ttl_seconds=0,
                 ws_anonymous_opens_per_minute=0, ws_sockets_per_address=0)


@contextlib.contextmanager
def app_client(settings, **changes):
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(settings.model_copy(update={**NO_LIMITS, **changes}),
                               run_migrations=False)) as c:
        yield c


@contextlib.contextmanager
def from_address(client, host: str):
    """Requests and sockets of ``client`` come from ``host`` inside the block."""
    transport = client._transport
    before = transport.client
    transport.client = (host, 40000)
    try:
        yield
    finally:
        transport.client = before


def create(c, player, game="duell"):
    return c.post("/api/matches", json={"game": game}, headers=player["headers"])


def error_code(r) -> str:
    return r.json()["error"]["code"]


def store(c):
    return c.app.state.services.store


# ------------------------------------------------------------------ open tables per host
def test_a_player_hosts_at_most_the_cap_of_open_tables(settings):
    with app_client(settings, max_open_matches_per_user=3) as c:
        ann, bob = guest(c, "Ann"), guest(c, "Bob")
        mids = [create(c, ann).json()["id"] for _ in range(3)]
        r = create(c, ann)
        assert r.status_code == 409 and error_code(r) == "too_many_open_matches"
        assert "3" in r.json()["error"]["message"]
        assert sum(m["host"] == ann["user"]["id"] for m in c.get("/api/matches").json()) == 3
        assert create(c, bob).status_code == 200  # the cap is per host
        # A table that starts (Bob joins) or that its host leaves frees a place.
        assert c.post(f"/api/matches/{mids[0]}/join", headers=bob["headers"]).json()["status"] == "live"
        assert create(c, ann).status_code == 200
        assert create(c, ann).status_code == 409
        assert c.post(f"/api/matches/{mids[1]}/leave", headers=ann["headers"]).json()["status"] == "aborted"
        assert create(c, ann).status_code == 200
        # Playing the computer makes a table too (for a moment): the same cap.
        r = c.post("/api/bots/matches", json={"game": "duell", "level": "random"}, headers=ann["headers"])
        assert r.status_code == 409 and error_code(r) == "too_many_open_matches"


def test_concurrent_creations_cannot_pass_the_cap_together(settings):
    with app_client(settings, max_open_matches_per_user=5) as c:
        ann = guest(c, "Ann")["user"]

        async def twenty_at_once():
            return await asyncio.gather(*(store(c).create("duell", {}, ann) for _ in range(20)),
                                        return_exceptions=True)

        results = c.portal.call(twenty_at_once)
        made = [r for r in results if isinstance(r, dict)]
        refused = [r for r in results if not isinstance(r, dict)]
        assert len(made) == 5
        assert {getattr(e, "code", repr(e)) for e in refused} == {"too_many_open_matches"}
        assert len(c.get("/api/matches").json()) == 5


def test_a_host_passing_on_moves_the_table_to_the_new_host(settings):
    with app_client(settings, max_open_matches_per_user=1) as c:
        ann, bob = guest(c, "Ann"), guest(c, "Bob")
        mid = c.post("/api/matches", json={"game": "combat", "options": {"seats": 3}},
                     headers=ann["headers"]).json()["id"]
        assert c.post(f"/api/matches/{mid}/join", headers=bob["headers"]).json()["status"] == "open"
        assert c.post(f"/api/matches/{mid}/leave", headers=ann["headers"]).json()["host"] == bob["user"]["id"]
        assert create(c, ann).status_code == 200  # Ann hosts nothing any more
        assert error_code(create(c, bob)) == "too_many_open_matches"  # Bob hosts the table now


# ------------------------------------------------------------------ creations per minute
def test_matches_made_per_minute_are_limited_per_player(settings):
    with app_client(settings, match_creations_per_minute=4) as c:
        ann, bob = guest(c, "Ann"), guest(c, "Bob")
        for _ in range(3):
            assert create(c, ann).status_code == 200
        r = c.post("/api/bots/matches", json={"game": "duell", "level": "random"}, headers=ann["headers"])
        assert r.status_code == 200  # the fourth, against the computer
        r = create(c, ann)
        assert r.status_code == 429 and error_code(r) == "rate_limited"
        r = c.post("/api/bots/matches", json={"game": "duell", "level": "random"}, headers=ann["headers"])
        assert r.status_code == 429 and error_code(r) == "rate_limited"
        assert create(c, bob).status_code == 200


def test_guests_are_also_limited_per_address(settings):
    with app_client(settings, match_creations_per_minute=10,
                    guest_match_creations_per_minute_per_address=3) as c:
        with from_address(c, "203.0.113.7"):
            fresh = [guest(c, f"G{i}") for i in range(4)]
            for g in fresh[:3]:
                assert create(c, g).status_code == 200
            r = create(c, fresh[3])  # a fresh guest does not get a fresh budget
            assert r.status_code == 429 and error_code(r) == "rate_limited"
            acc = account(c, "Reggie")
            assert create(c, acc).status_code == 200  # accounts are counted per player only
        with from_address(c, "198.51.100.9"):
            assert create(c, guest(c, "Elsewhere")).status_code == 200


def test_the_issue_15_flood_is_cut_down_by_the_defaults(client):
    """One guest asking for 100 tables in a row, with the shipped settings (docs/protocol.md:
    at most 5 open tables, 10 new matches a minute)."""
    flooder = guest(client, "Flood")
    codes = [create(client, flooder).status_code for _ in range(100)]
    assert codes == [200] * 5 + [409] * 5 + [429] * 90
    assert len(client.get("/api/matches").json()) == 5


# ------------------------------------------------------------------ open tables expire
def key_ttls(c, mid) -> tuple[int, int]:
    s = store(c)
    return (c.portal.call(s.r.ttl, s.k.match(mid)), c.portal.call(s.r.ttl, s.k.events(mid)))


def test_an_open_table_nobody_starts_expires(settings):
    ttl, keep = 3600, settings.finished_ttl_seconds
    with app_client(settings, open_match_ttl_seconds=ttl, max_open_matches_per_user=1) as c:
        s = store(c)
        ann, bob = guest(c, "Ann"), guest(c, "Bob")
        mid = create(c, ann).json()["id"]
        # Its keys expire by themselves (a backstop), a finished match's keep after the limit.
        assert all(0 < t <= ttl + keep for t in key_ttls(c, mid))
        assert [m["id"] for m in c.get("/api/matches").json()] == [mid]
        assert error_code(create(c, ann)) == "too_many_open_matches"

        real = s.clock
        s.clock = lambda: real() + ttl - 5
        assert [m["id"] for m in c.get("/api/matches").json()] == [mid]  # not yet
        s.clock = lambda: real() + ttl + 1
        assert c.get("/api/matches").json() == []
        summary = c.get(f"/api/matches/{mid}").json()
        assert summary["status"] == "aborted"
        assert summary["abort_reason"] == "Nobody started this table within 1 hour."
        assert c.portal.call(s.r.zscore, s.k.open, mid) is None
        assert c.portal.call(s.r.zscore, s.k.hosting(ann["user"]["id"]), mid) is None
        assert all(0 < t <= keep for t in key_ttls(c, mid))  # kept like a finished match
        r = c.post(f"/api/matches/{mid}/join", headers=bob["headers"])
        assert r.status_code == 409 and error_code(r) == "match_not_open"
        # Its place is free again.
        assert create(c, ann).status_code == 200


def test_a_started_table_keeps_its_keys_and_an_expired_ones_lobby_entry_goes(settings):
    ttl = 3600
    with app_client(settings, open_match_ttl_seconds=ttl) as c:
        s = store(c)
        ann, bob = guest(c, "Ann"), guest(c, "Bob")
        mid = create(c, ann).json()["id"]
        assert c.post(f"/api/matches/{mid}/join", headers=bob["headers"]).json()["status"] == "live"
        assert key_ttls(c, mid) == (-1, -1)  # a live match never expires
        gone = create(c, ann).json()["id"]
        c.portal.call(s.r.delete, s.k.match(gone), s.k.events(gone))  # as if its keys expired
        real = s.clock
        s.clock = lambda: real() + ttl + 1
        assert c.get("/api/matches").json() == []
        assert c.portal.call(s.r.zscore, s.k.open, gone) is None
        assert c.get(f"/api/matches/{mid}").json()["status"] == "live"  # untouched


# ------------------------------------------------------------------ websockets
def recv_n(ws, n: int) -> list[dict]:
    return [ws.receive_json() for _ in range(n)]


def expect_closed(ws, code: int) -> None:
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == code


def public_tournament(c) -> str:
    org = account(c, "Org" + uuid.uuid4().hex[:6], role="organiser")
    r = c.post("/api/tournaments", json={"name": "Cup", "game": "duell", "format": "swiss",
                                         "settings": {"round_break_seconds": 0}}, headers=org["headers"])
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    assert c.post(f"/api/tournaments/{tid}/open-registration", headers=org["headers"]).status_code == 200
    return tid


def test_spectator_socket_opens_are_counted_per_address(settings):
    with app_client(settings, ws_anonymous_opens_per_minute=3) as c:
        mid, p = duell_match(c)
        tid = public_tournament(c)
        with from_address(c, "203.0.113.7"):
            for url in (f"/ws/matches/{mid}", f"/ws/matches/{mid}", f"/ws/tournaments/{tid}"):
                with c.websocket_connect(url) as ws:
                    assert ws.receive_json()["type"] in ("view", "tournament")
            for url in (f"/ws/matches/{mid}", f"/ws/tournaments/{tid}"):
                with c.websocket_connect(url) as ws:
                    err = ws.receive_json()
                    assert err["type"] == "error" and err["code"] == "rate_limited"
                    expect_closed(ws, 1008)
            # A socket with a token is counted per user and match, not by address.
            with c.websocket_connect(f"/ws/matches/{mid}?token={p['A']['token']}") as ws:
                assert ws.receive_json()["type"] == "view"
        with from_address(c, "198.51.100.9"), c.websocket_connect(f"/ws/matches/{mid}") as ws:
            assert ws.receive_json()["type"] == "view"


def test_the_tournament_socket_limits_its_message_rate(settings):
    burst = 4
    with app_client(settings, ws_rate_per_second=0.01, ws_burst=burst) as c:
        tid = public_tournament(c)
        with c.websocket_connect(f"/ws/tournaments/{tid}") as ws:
            assert ws.receive_json()["type"] == "tournament"
            for _ in range(3 * burst):
                ws.send_text('{"type": "ping"}')
            got = recv_n(ws, 3 * burst)
            assert [m["type"] for m in got[:burst]] == ["pong"] * burst
            assert [m.get("code") for m in got[burst:]] == ["rate_limited"] * (2 * burst)
            expect_closed(ws, 1008)  # 2 × burst refused in a row: a flood


def test_sockets_open_at_once_are_capped_per_address(settings):
    with app_client(settings, ws_sockets_per_address=3) as c:
        mid, p = duell_match(c)
        tid = public_tournament(c)
        s = store(c)
        count_key = f"{s.k.p}wssockets:203.0.113.7"
        with from_address(c, "203.0.113.7"), contextlib.ExitStack() as stack:
            for url in (f"/ws/matches/{mid}?token={p['A']['token']}", f"/ws/tournaments/{tid}"):
                assert stack.enter_context(c.websocket_connect(url)).receive_json()["type"] in (
                    "view", "tournament")
            with c.websocket_connect(f"/ws/matches/{mid}") as third:
                assert third.receive_json()["type"] == "view"
                for url in (f"/ws/matches/{mid}", f"/ws/tournaments/{tid}",
                            f"/ws/matches/{mid}?token={p['B']['token']}"):
                    with pytest.raises(WebSocketDenialResponse) as refused, c.websocket_connect(url):
                        pass
                    assert refused.value.status_code == 429
                    assert refused.value.json()["error"]["code"] == "rate_limited"
                with from_address(c, "198.51.100.9"), c.websocket_connect(f"/ws/matches/{mid}") as other:
                    assert other.receive_json()["type"] == "view"
                assert c.portal.call(s.r.get, count_key) == "3"
            # The third gave its place back when it closed.
            with c.websocket_connect(f"/ws/matches/{mid}") as again:
                assert again.receive_json()["type"] == "view"
        assert c.portal.call(s.r.get, count_key) is None  # all closed: nothing counted


# ------------------------------------------------------------------ decks
def test_concurrent_deck_saves_end_at_the_limit(client):
    from app.db import decks as db

    ann = guest(client, "Ann")
    cards = client.get("/api/parbaj/starter-decks").json()[0]["cards"]
    maker = client.app.state.services.maker

    async def fill():
        for i in range(MAX_DECKS_PER_USER - 5):
            await db.create_deck(maker, ann["user"]["id"], f"Deck {i}", cards)

    client.portal.call(fill)

    def save(i):
        return client.post("/api/decks", json={"name": f"Rush {i}", "cards": cards},
                           headers=ann["headers"])

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(save, range(20)))
    codes = sorted(r.status_code for r in answers)
    assert codes == [201] * 5 + [409] * 15, codes
    assert {error_code(r) for r in answers if r.status_code == 409} == {"too_many_decks"}
    assert len(client.get("/api/decks", headers=ann["headers"]).json()) == MAX_DECKS_PER_USER


def test_concurrent_deck_inserts_in_sql_stop_at_the_limit(client):
    """The guarantee is in SQL: twenty transactions at once, each counting after it inserts."""
    from app.db import decks as db

    maker = client.app.state.services.maker
    cards = client.get("/api/parbaj/starter-decks").json()[0]["cards"]

    async def rush():
        await asyncio.gather(*(db.create_deck(maker, "u_rush", f"Old {i}", cards) for i in range(7)))
        return await asyncio.gather(*(db.create_deck(maker, "u_rush", f"New {i}", cards, limit=10)
                                      for i in range(20)), return_exceptions=True)

    results = client.portal.call(rush)
    assert sum(isinstance(r, dict) for r in results) == 3
    assert all(isinstance(r, db.TooManyDecks) for r in results if not isinstance(r, dict))
    names = client.portal.call(db.names, maker, "u_rush")
    assert len(names) == 10 and sum(n.startswith("New") for n in names) == 3


def test_limit_errors_keep_the_one_error_shape(settings):
    with app_client(settings, max_open_matches_per_user=1, match_creations_per_minute=2) as c:
        ann = guest(c, "Ann")
        create(c, ann)
        for status, code in ((409, "too_many_open_matches"), (429, "rate_limited")):
            r = create(c, ann)
            assert r.status_code == status
            assert json.loads(r.text) == {"error": {"code": code, "message": r.json()["error"]["message"]}}
            assert r.json()["error"]["message"].endswith(".")


def test_the_limits_are_documented_with_their_tests():
    """docs/protocol.md lists the new code, the clients translate it, and every test that
    docs/security.md's "Limits" names exists."""
    import re

    from app.config import ROOT
    from app.errors import STATUS

    assert STATUS["too_many_open_matches"] == 409
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    assert "| `too_many_open_matches` | 409 |" in protocol and "## Limits" in protocol
    for lang in ("en", "hu", "it", "pt"):
        core = json.loads((ROOT / "static" / "i18n" / lang / "core.json").read_text())
        assert "too_many_open_matches" in core["error"], lang
    security = (ROOT / "docs" / "security.md").read_text()
    limits = security.split("## Limits", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(test_\w+)`", limits))
    assert len(named) >= 12
    sources = "".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    assert {n for n in named if f"def {n}(" not in sources} == set()

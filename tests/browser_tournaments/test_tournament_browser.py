"""Tournaments in a real browser (Debian's chromium through Playwright) against the real server
in a subprocess (tests/browser_support.py).

An organiser (an account given the role by the admin, who is made with the CLI) creates a
four-player single-elimination Duell event in the browser's form, opens registration and
check-in there; the players sign up and check in over HTTP; the organiser starts the event in
the browser. The page then shows the bracket as SVG (two semi-finals being played, each a link
to its live match, and the final waiting) and the pairings. A player resigns over HTTP: the
page shows the result in the bracket and the pairings table without being reloaded (a marker
set on ``window`` survives), through the tournament websocket. The player's own page shows
their opponent and a link to their match; when the organiser then cancels the event, that
match's page says the match was stopped because the tournament was cancelled.

Skipped only when /usr/bin/chromium is missing and CI is not "true". Set SCREENSHOT_DIR to keep
screenshots."""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.browser_support import BROWSER_MARKS, chromium, create_admin, run_server, server_env

pytestmark = BROWSER_MARKS

SECRET_KEY = "browser-tournament-secret-key-0123456789abcdef"
ADMIN = f"TourRoot{uuid.uuid4().hex[:5]}"
ADMIN_PASSWORD = "root password 0123"
PASSWORD = "correct horse battery"
SHOTS = os.environ.get("SCREENSHOT_DIR")
TIMEOUT_MS = 30_000


def call(base, method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def ok(base, method, path, token=None, body=None):
    status, data = call(base, method, path, token, body)
    assert status in (200, 201), f"{method} {path} -> {status}: {data}"
    return data


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    if os.environ.get("DATABASE_URL"):
        request.getfixturevalue("db_url")  # the schema reset happens now, not under our server
    data_dir = tmp_path_factory.mktemp("tournament-browser")
    env = server_env(data_dir, "tourbrowser", SECRET_KEY=SECRET_KEY)
    create_admin(env, ADMIN, ADMIN_PASSWORD)
    with run_server(data_dir, env) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser(server):
    with chromium(expect_timeout_ms=TIMEOUT_MS) as b:
        yield b


def account(base, name):
    body = ok(base, "POST", "/api/auth/register", body={"name": name, "password": PASSWORD})
    return {"name": name, "token": body["token"], "id": body["user"]["id"]}


def shot(page, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"tournament-{name}.png"), full_page=True)


def test_organiser_runs_an_event_in_the_browser(server, browser):
    from playwright.sync_api import expect

    sfx = uuid.uuid4().hex[:5]
    admin = ok(server, "POST", "/api/auth/login", body={"name": ADMIN, "password": ADMIN_PASSWORD})
    organiser = account(server, f"Orga{sfx}")
    ok(server, "POST", f"/api/admin/users/{organiser['id']}/role", admin["token"], {"role": "organiser"})
    players = [account(server, f"Pl{i}{sfx}") for i in range(4)]

    ctx = browser.new_context(base_url=server, viewport={"width": 1280, "height": 1000}, accept_downloads=True)
    ctx.set_default_timeout(TIMEOUT_MS)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    socket_urls = []
    page.on("websocket", lambda ws: socket_urls.append(ws.url))
    try:
        page.goto("/")
        page.evaluate("(t) => localStorage.setItem('duelhall.token', t)", organiser["token"])
        page.reload()
        expect(page.locator("#user-name")).to_contain_text(organiser["name"])

        # The header link, then the creation form (keyboard: type and submit with Enter).
        page.click("#tournaments-link")
        expect(page.locator("#tournaments-title")).to_be_visible()
        expect(page.locator("#new-tournament")).to_be_visible()
        page.fill("#new-name", "Browser Cup")
        page.select_option("#new-game", "duell")
        page.select_option("#new-format", "single_elimination")
        expect(page.locator("[data-only='swiss']")).to_be_hidden()
        page.fill("#new-break", "0")
        page.fill("#new-noshow", "")
        page.fill("#opt-duels_to_win", "1")
        shot(page, "create")
        page.focus("#new-name")
        page.keyboard.press("Enter")
        expect(page.locator("#tournament-title")).to_have_text("Browser Cup")
        tid = page.url.split("#/tournaments/")[1]
        expect(page.locator("[data-testid=tournament-page]")).to_have_attribute("data-status", "draft")

        page.click("#org-open-registration")
        expect(page.locator("[data-testid=tournament-page]")).to_have_attribute("data-status", "registration")
        # The live socket opens (a draft has none): Chromium took the server's duelhall.v1 answer
        # to the subprotocols carrying the organiser's token, which no socket URL carries.
        expect(page.locator("[data-testid=tournament-page]")).to_have_attribute("data-live", "live")
        urls_with_token = sum("token" in url for url in socket_urls)
        assert socket_urls and urls_with_token == 0
        for p in players:
            ok(server, "POST", f"/api/tournaments/{tid}/register", p["token"])
        # Sign-ups arrive live (no reload): four rows in the entrants table.
        expect(page.locator("#entrants-table tbody tr")).to_have_count(4)
        page.click("#org-open-check-in")
        expect(page.locator("[data-testid=tournament-page]")).to_have_attribute("data-status", "check_in")
        for p in players:
            ok(server, "POST", f"/api/tournaments/{tid}/check-in", p["token"])

        page.click("#org-start")
        page_el = page.locator("[data-testid=tournament-page]")
        expect(page_el).to_have_attribute("data-status", "running")
        svg = page.locator("svg[data-testid=bracket-svg]")
        expect(svg).to_be_visible()
        expect(svg.locator("g.tb-match")).to_have_count(3)
        expect(svg.locator("g[data-status=pending]")).to_have_count(2)
        expect(svg.locator("g[data-match='W2.1'][data-status=waiting]")).to_have_count(1)
        links = svg.locator("a.tb-link")
        expect(links).to_have_count(2)
        assert links.first.get_attribute("href").startswith("#/match/")
        expect(page.locator("#pairings-table tbody tr[data-status=pending]")).to_have_count(2)
        shot(page, "started")

        detail = ok(server, "GET", f"/api/tournaments/{tid}")
        semi = detail["current_round"]["pairings"][0]
        loser_id = semi["players"][1]
        loser = next(p for p in players if p["id"] == loser_id)
        winner_name = detail["names"][semi["players"][0]]
        page.evaluate("() => { window.__sameDocument = 'yes'; }")
        revision = int(page_el.get_attribute("data-revision"))
        ok(server, "POST", f"/api/matches/{semi['matches'][0]['id']}/actions", loser["token"],
           {"action": {"type": "resign"}})

        # The bracket and the pairings update without a reload.
        expect(page.locator(f"svg[data-testid=bracket-svg] g[data-match='{semi['id']}'][data-status=done]")
               ).to_have_count(1)
        expect(page.locator(f"#pairings-table tr[data-pairing='{semi['id']}']")
               ).to_have_attribute("data-status", "done")
        expect(page.locator(f"#pairings-table tr[data-pairing='{semi['id']}']")).to_contain_text(winner_name)
        assert page.evaluate("() => window.__sameDocument") == "yes"
        assert int(page_el.get_attribute("data-revision")) > revision
        final = page.locator("svg[data-testid=bracket-svg] g[data-match='W2.1']")
        expect(final).to_contain_text(winner_name)
        shot(page, "reported")

        # Keyboard: the live semi-final's link in the bracket takes focus and opens the match.
        page.focus("svg[data-testid=bracket-svg] a.tb-link")
        focused = page.evaluate("() => document.activeElement.getAttribute('href')")
        assert focused and focused.startswith("#/match/")

        # A player's own page: the opponent and the match to play.
        other = detail["current_round"]["pairings"][1]
        me = next(p for p in players if p["id"] == other["players"][0])
        ctx2 = browser.new_context(base_url=server, viewport={"width": 1100, "height": 900})
        page2 = ctx2.new_page()
        page2.on("pageerror", lambda e: errors.append(str(e)))
        page2.goto("/")
        page2.evaluate("(t) => localStorage.setItem('duelhall.token', t)", me["token"])
        page2.goto(f"/#/tournaments/{tid}/me")
        page2.reload()  # a hash change alone does not restart the app with the token
        expect(page2.locator("#my-pairing")).to_contain_text(detail["names"][other["players"][1]])
        expect(page2.locator("#play-match")).to_have_attribute("href", f"#/match/{other['matches'][0]['id']}")

        # The organiser cancels the event: the player's open match stops and says why.
        page2.click("#play-match")
        expect(page2.locator("#result-banner")).to_be_hidden()
        ok(server, "POST", f"/api/tournaments/{tid}/cancel", organiser["token"], {"reason": "test"})
        expect(page2.locator("#result-banner")).to_contain_text("The tournament was cancelled")
        ctx2.close()
    finally:
        ctx.close()
    assert not errors, "uncaught errors in the browser client:\n" + "\n".join(errors)

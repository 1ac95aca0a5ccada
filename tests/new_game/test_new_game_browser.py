"""The new game (a copy of games/duell registered as "rapier", with no board module of its own;
tests/new_game/conftest.py) in a real browser: the server learns it from EXTRA_GAMES alone,
the lobby lists it and creates a match of it, and the client mounts the generic board
(static/games/generic.js) because GET /api/games says the game has no board; a click on one of
its legal-action buttons plays a move. The same package registered once more
as "sabre" keeps the Duell board it names, against the computer: the board comes from
GET /api/games, not from a list of game ids in the client.

Skipped only when /usr/bin/chromium is missing and CI is not "true".
"""
from __future__ import annotations

import json
import os
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser.duell_ui import sign_in, view
from tests.browser_support import BROWSER_MARKS, chromium, run_server, server_env
from tests.new_game.conftest import ENTRY, GAME_ID

pytestmark = BROWSER_MARKS
TIMEOUT_MS = 30_000
GENERIC = f"#board .board-host[data-game={GAME_ID}] [data-testid=generic-board]"
SABRE = {"module": ENTRY["module"], "name": "Sabre"}


@pytest.fixture(scope="module")
def server(tmp_path_factory, new_game_package):
    folder, _ = new_game_package
    data_dir = tmp_path_factory.mktemp("new-game-browser")
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
    env = server_env(data_dir, "newgame", BOT_THINK_MS="50", PYTHONPATH=path,
                     EXTRA_GAMES=json.dumps({GAME_ID: ENTRY, "sabre": SABRE}))
    with run_server(data_dir, env) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser(server):
    with chromium(expect_timeout_ms=TIMEOUT_MS) as b:
        yield b


@pytest.fixture
def page(server, browser):
    """A page of its own (own guest); fails the test on an uncaught error in the client."""
    errors: list[str] = []
    ctx = browser.new_context(base_url=server, viewport={"width": 1280, "height": 1000})
    ctx.set_default_timeout(TIMEOUT_MS)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    ctx.close()
    assert not errors, "uncaught errors in the browser client:\n" + "\n".join(errors)


def play_the_computer(page, game_id: str, name: str) -> None:
    sign_in(page, "Gil", "/")
    page.select_option("#create-game", game_id)
    expect(page.locator("#create-game option:checked")).to_have_text(name)
    page.locator("#create-form [name=duels_to_win]").fill("1")
    page.locator("#play-computer-level").select_option("random")
    page.click("#play-computer")
    page.wait_for_url(re.compile(r".*#/match/[0-9a-f]+$"))


def call(base: str, method: str, path: str, body=None, token: str | None = None) -> dict:
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json",
                                          **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def test_the_generic_board_plays_a_move(server, page):
    """Against a person who plays over HTTP (so nothing moves after the click but the click)."""
    sign_in(page, "Gil", "/")
    page.select_option("#create-game", GAME_ID)
    expect(page.locator("#create-game option:checked")).to_have_text("Rapier")
    page.locator("#create-form [name=duels_to_win]").fill("1")
    page.click("#create-submit")
    expect(page.locator("[data-testid=waiting-room]")).to_be_visible()
    match_id = re.search(r"#/match/([^/?]+)$", page.url).group(1)
    bob = call(server, "POST", "/api/auth/guest", {"name": "Bob"})["token"]
    call(server, "POST", f"/api/matches/{match_id}/join", token=bob)

    board = page.locator(GENERIC)
    expect(board).to_be_visible()
    page.wait_for_function("() => { const v = window.duelhall && window.duelhall.view();"
                           " return !!v && v.status === 'live' && v.state; }")
    theirs = call(server, "GET", f"/api/matches/{match_id}/view", token=bob)
    if "B" in theirs["pending"]:
        call(server, "POST", f"/api/matches/{match_id}/actions", token=bob,
             body={"action": theirs["legal"][0], "version": theirs["version"]})
    page.wait_for_function("() => { const v = window.duelhall.view();"
                           " return v.pending.includes(v.seat) && v.legal.length > 0; }")
    before = view(page)
    assert before["game"] == GAME_ID and before["seat"] == "A"
    buttons = board.locator("[data-testid=legal-action]")
    expect(buttons).to_have_count(len(before["legal"]))
    expect(board.locator(".generic-turn")).to_have_text("Your move")
    expect(board.locator(".generic-state")).to_contain_text('"hands"')
    label = buttons.first.inner_text()
    buttons.first.click()
    page.wait_for_function(f"() => window.duelhall.view().version > {before['version']}")
    after = view(page)
    assert after["version"] == before["version"] + 1
    mine = [e for e in after["events"] if e.get("seat") == "A"]
    assert mine and label.startswith(mine[0]["type"]), (label, after["events"])
    expect(board.locator(".generic-events")).to_contain_text(mine[0]["type"])
    if after["status"] == "live":
        expect(board.locator(".generic-turn")).not_to_have_text("Your move")


def test_a_board_named_by_the_registry_is_mounted(page):
    play_the_computer(page, "sabre", "Sabre")
    expect(page.locator("#board .board-host[data-game=sabre] section.duell svg.duell-svg")
           ).to_be_visible()
    expect(page.locator("[data-testid=generic-board]")).to_have_count(0)

"""Playing the computer in a real browser (Debian's chromium through Playwright) against the
real server in a subprocess (embedded mode, or REDIS_URL / DATABASE_URL when set).

* From the lobby: pick Duell (Prologo, one duel to win), the "random" level, "Play the
  computer"; the match starts at once, the computer's seat has the robot badge, and the person
  plays it to the end through the Duell board's own controls while the bot answers each move.
  The finished match then shows in the player's profile history with the robot badge on the
  opponent.
* In a waiting room: the host adds a computer player with the keyboard, the table fills and the
  match starts; in Italian the bot is "Computer (casuale)".

Skipped only when /usr/bin/chromium is missing and CI is not "true".
"""
from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser.duell_ui import BOARD, aggressive, my_turn, play, sign_in, view, wait_board
from tests.browser_support import BROWSER_MARKS, chromium, run_server, server_env

pytestmark = BROWSER_MARKS
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("bots-browser")
    # A short think pause: the bot answers fast, but not in the same instant as the move.
    with run_server(data_dir, server_env(data_dir, "botsbrowser", BOT_THINK_MS="50")) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser(server):
    with chromium(expect_timeout_ms=TIMEOUT_MS) as b:
        yield b


@pytest.fixture
def new_page(server, browser):
    """A page in its own browser context (own storage = own guest). Fails the test on an
    uncaught exception in the client."""
    contexts, errors = [], []

    def make(label: str):
        ctx = browser.new_context(base_url=server, viewport={"width": 1280, "height": 1000})
        ctx.set_default_timeout(TIMEOUT_MS)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e, n=label: errors.append(f"{n}: {e}"))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, "uncaught errors in the browser client:\n" + "\n".join(errors)


def get_json(base: str, path: str):
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return json.loads(r.read())


def wait_turn_or_end(page) -> dict:
    """Wait until it is this page's move or the match is over; returns the view."""
    page.wait_for_function(
        "() => { const v = window.duelhall && window.duelhall.view();"
        " return !!v && (v.status !== 'live' || (v.pending.includes(v.seat) && v.legal.length > 0)); }")
    return view(page)


def test_play_the_computer_from_the_lobby_to_the_end(server, new_page):
    page = new_page("ann")
    sign_in(page, "Ann", "/")
    page.select_option("#create-game", "duell")
    form = page.locator("#create-form")
    form.locator("[name=duels_to_win]").fill("1")
    panel = page.locator("#play-computer-panel")
    expect(panel).to_contain_text("Play the computer")
    level = page.locator("#play-computer-level")
    expect(level.locator("option[value=random]")).to_have_count(1)
    level.select_option("random")
    expect(page.locator("#play-computer-count")).to_be_hidden()  # a two-seat game: one bot
    page.click("#play-computer")

    page.wait_for_url(re.compile(r".*#/match/[0-9a-f]+$"))
    doc = wait_board(page)
    match_id = doc["match"]
    assert doc["seat"] == "A"
    bot = doc["players"][1]["user"]
    assert bot["bot"] == "random" and bot["id"] == "bot-random-1", bot
    seat_b = page.locator("#players-list li[data-seat=B]")
    expect(seat_b).to_contain_text("Computer (random)")
    expect(seat_b.locator("[data-testid=bot-badge]")).to_be_visible()
    expect(page.locator("#players-list li[data-seat=A] [data-testid=bot-badge]")).to_have_count(0)

    moves = 0
    for _ in range(200):
        doc = wait_turn_or_end(page)
        if doc["status"] != "live":
            break
        assert my_turn(doc)
        play(page, aggressive)
        moves += 1
    assert doc["status"] == "finished" and moves > 0, doc["status"]
    expect(page.locator("#result-banner")).to_be_visible()
    expect(page.locator(f"{BOARD}")).to_be_visible()

    me = doc["players"][0]["user"]["id"]
    # History is written in the background: wait for the match to reach SQL, then look.
    end = time.monotonic() + 30
    while match_id not in {m["id"] for m in get_json(server, f"/api/users/{me}/matches")}:
        assert time.monotonic() < end, "the match never reached the player's history"
        time.sleep(0.2)
    page.goto(f"/#/users/{me}")
    row = page.locator(f"[data-testid=history-row][data-match-id='{match_id}']")
    expect(row).to_be_visible()
    expect(row).to_contain_text("Computer (random)")
    expect(row.locator("[data-testid=bot-badge]")).to_be_visible()
    # The record: the computer made its own moves (none by the clock: there is none here).
    # 503 means its last actions are still on their way to SQL: retry, as the protocol says.
    token = page.evaluate("() => localStorage.getItem('duelhall.token')")
    req = urllib.request.Request(f"{server}/api/matches/{match_id}/record",
                                 headers={"Authorization": f"Bearer {token}"})
    end = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                record = json.loads(r.read())
            break
        except urllib.error.HTTPError as e:
            assert e.code == 503 and time.monotonic() < end, f"record: HTTP {e.code}"  # noqa: PT017
            time.sleep(0.2)
    assert record["seats"][1]["user"]["bot"] == "random"
    bot_steps = [a for a in record["actions"] if a["seat"] == "B"]
    assert bot_steps and all(a["kind"] == "action" for a in bot_steps)
    assert len([a for a in record["actions"] if a["seat"] == "A"]) == moves


def test_host_adds_a_computer_in_the_waiting_room(server, new_page):
    page = new_page("bea")
    sign_in(page, "Bea", "/")
    page.select_option("#create-game", "duell")
    page.click("#create-submit")
    expect(page.locator("[data-testid=waiting-room]")).to_be_visible()
    add = page.locator("#add-computer")
    expect(add).to_be_enabled()
    expect(page.locator("#add-computer-level option[value=random]")).to_have_count(1)
    page.select_option("#add-computer-level", "random")
    add.focus()
    page.keyboard.press("Enter")

    doc = wait_board(page)  # the table is full: the match started
    assert [p["user"].get("bot") for p in doc["players"]] == [None, "random"]
    page.select_option("#lang-select", "it")
    expect(page.locator("#players-list li[data-seat=B]")).to_contain_text("Computer (casuale)")
    # The bot plays on: whoever moves first, the person gets a move to make.
    doc = wait_turn_or_end(page)
    assert doc["status"] == "live" and my_turn(doc)

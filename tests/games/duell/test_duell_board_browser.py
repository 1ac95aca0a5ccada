"""The Duell board module (static/games/duell.js) in a real browser, against the real engine.

A page loads the module with a stand-in ctx: ``t`` reads static/i18n/en/duell.json and
``act`` calls the engine through Playwright (seat A). Seat B is played by the random bot.
"""
from __future__ import annotations

import json
import os
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from duell_helpers import GAME, SEATS

from games.base import GameError, filter_events
from games.duell.bots import random_action

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[3] / "static"
ORIGIN = "http://duell.test"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

HARNESS = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<link rel="stylesheet" href="/games/duell.css"></head><body><div id="board"></div>
<script type="module">
import { mount } from "/games/duell.js";
const strings = await (await fetch("/i18n/en/duell.json")).json();
window.missing = [];
const t = (k, p) => {
  if (!(k in strings)) window.missing.push(k);
  return (strings[k] ?? k).replace(/\\{(\\w+)\\}/g, (_, n) => (p && n in p) ? p[n] : `{${n}}`);
};
window.board = mount(document.getElementById("board"), {
  t, seat: "A", matchId: "m1",
  act: async (action) => {
    const res = JSON.parse(await window.duellAct(JSON.stringify(action)));
    if (res.error) throw res.error;
    window.board.update(res.doc);
    window.acts = (window.acts || 0) + 1;
    return res;
  },
});
window.ready = true;
</script></body></html>"""


class Match:
    def __init__(self, options, seed):
        self.state = GAME.setup(options, SEATS, seed)
        self.version = 0
        self.rnd = random.Random(seed)
        self.reject_next = None
        self.sent = []
        self.deadline = None
        self.batch: list = []

    def doc(self):
        st = self.state
        return {
            "match": "m1", "version": self.version, "seat": "A",
            "status": "finished" if st["result"] else "live",
            "pending": sorted(GAME.pending(st)), "legal": GAME.legal(st, "A"),
            "state": GAME.view(st, "A"), "events": filter_events(self.batch, "A"),
            "result": st["result"], "deadline": self.deadline,
            "players": [{"seat": "A", "user": {"id": "u1", "name": "Ann"}},
                        {"seat": "B", "user": {"id": "u2", "name": "Bo"}}],
        }

    def bots_play(self):
        while self.state["result"] is None and "A" not in GAME.pending(self.state):
            (seat,) = GAME.pending(self.state)
            self.state, ev = GAME.apply(self.state, seat,
                                        random_action(GAME.legal(self.state, seat), self.rnd))
            self.batch += ev
            self.version += 1

    def act(self, action_json):
        action = json.loads(action_json)
        self.sent.append(action)
        if self.reject_next:
            err, self.reject_next = self.reject_next, None
            return json.dumps({"error": err})
        try:
            self.state, ev = GAME.apply(self.state, "A", action)
        except GameError as e:
            return json.dumps({"error": {"code": e.code, "message": e.message}})
        self.batch = ev
        self.version += 1
        self.bots_play()
        return json.dumps({"doc": self.doc()})


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def open_board(browser, match):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def serve(route):
        path = route.request.url[len(ORIGIN):].split("?")[0]
        if path in ("/", "/index.html"):
            return route.fulfill(body=HARNESS, content_type="text/html")
        f = (STATIC / path.lstrip("/")).resolve()
        if STATIC not in f.parents or not f.is_file():
            return route.fulfill(status=404, body="")
        types = {".js": "text/javascript", ".css": "text/css", ".json": "application/json"}
        return route.fulfill(body=f.read_bytes(), content_type=types.get(f.suffix, "text/plain"))

    page.route(f"{ORIGIN}/**", serve)
    page.expose_function("duellAct", match.act)
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("window.ready === true")
    match.bots_play()
    page.evaluate("doc => window.board.update(doc)", match.doc())
    return page, errors


def seed_where_a_starts(options):
    for seed in range(100):
        s = GAME.setup(options, SEATS, seed)
        if s["starter"] == "A" and s["special"] in (None, "no_retreat"):
            return seed
    raise AssertionError


def test_board_renders_and_moves_by_clicking(browser):
    options = {"mode": "prologo"}
    match = Match(options, seed_where_a_starts(options))
    match.deadline = (datetime.now(UTC) + timedelta(seconds=30)).isoformat()
    page, errors = open_board(browser, match)
    L = match.state["options"]["track_length"]
    assert page.locator(".duell-space").count() == L
    assert page.locator(".duell-fencer").count() == 2
    assert page.locator("button.duell-card").count() == 5
    assert "Your turn" in page.inner_text(".duell-status")
    assert "Draw pile: 15" in page.inner_text(".duell-table")
    assert "Bo: 5 cards in hand" in page.inner_text(".duell-table")
    assert "Clock 0:" in page.inner_text(".duell-clock")
    # select a card: reachable spaces light up; click one
    page.locator("button.duell-card:not([disabled])").first.click()
    assert page.locator("button.duell-card[aria-pressed=true]").count() == 1
    reach = page.locator(".duell-space.reach")
    assert reach.count() >= 1
    before = match.version
    reach.first.click()
    page.wait_for_function("document.querySelector('.duell-log').textContent.includes('moves')")
    assert match.version > before and match.sent[-1]["type"] == "move"
    assert errors == [] and page.evaluate("window.missing") == []
    page.close()


def test_board_keyboard_and_rejection_message(browser):
    options = {"mode": "prologo"}
    match = Match(options, seed_where_a_starts(options))
    page, errors = open_board(browser, match)
    card = page.locator("button.duell-card:not([disabled])").first
    card.focus()
    page.keyboard.press("Enter")
    assert page.locator("button.duell-card[aria-pressed=true]").count() == 1
    move_btn = page.locator(".duell-actions button.duell-btn", has_text="Move").first
    move_btn.focus()
    match.reject_next = {"code": "not_your_turn", "message": "It is not your turn."}
    page.keyboard.press(" ")
    page.wait_for_selector(".duell-message:has-text('It is not your turn.')")
    assert "Move rejected" in page.inner_text(".duell-message")
    # the selection survives the rejection; a highlighted space is a focusable button too
    assert page.locator("button.duell-card[aria-pressed=true]").count() == 1
    page.locator(".duell-space.reach").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("!document.querySelector('.duell-message').textContent")
    assert match.sent[-1]["type"] == "move"
    assert errors == [] and page.evaluate("window.missing") == []
    page.close()


@pytest.mark.parametrize("options", [{"mode": "tenzone"}, {"mode": "prologo", "duels_to_win": 2}])
def test_board_plays_a_whole_match_through_the_ui(browser, options):
    match = Match({**options, "duels_to_win": options.get("duels_to_win", 2)}, 7)
    page, errors = open_board(browser, match)
    rnd = random.Random(1)
    page.evaluate("window.acts = 0")
    for _ in range(600):
        if match.state["result"] is not None:
            break
        n = page.evaluate("window.acts")
        buttons = page.locator(".duell-actions button.duell-btn:not(.quiet)")
        cards = page.locator("button.duell-card:not([disabled])")
        if buttons.count() and (not cards.count() or rnd.random() < 0.4):
            buttons.nth(rnd.randrange(buttons.count())).click()
        else:
            cards.nth(rnd.randrange(cards.count())).click()
            targets = page.locator(".duell-space.reach, .duell-space.hit")
            if targets.count() and rnd.random() < 0.6:
                targets.nth(rnd.randrange(targets.count())).click()
            else:
                buttons.nth(rnd.randrange(buttons.count())).click()
        page.wait_for_function(f"window.acts > {n}", timeout=5000)
        assert page.inner_text(".duell-message") == ""
    assert match.state["result"] is not None
    page.wait_for_function(
        "document.querySelector('.duell-status').textContent.includes('wins the match')")
    log = page.inner_text(".duell-log")
    assert "wins the match" in log
    assert errors == [] and page.evaluate("window.missing") == []
    assert "duell." not in page.inner_text(".duell")
    page.close()


def test_board_for_a_spectator_shows_no_hand(browser):
    match = Match({"mode": "tenzone", "special_cards": False}, 3)
    page, errors = open_board(browser, match)
    doc = match.doc()
    doc.update(seat=None, legal=[], state=GAME.view(match.state, "spectator"))
    page.evaluate("doc => window.board.update(doc)", doc)
    assert page.locator("button.duell-card:visible").count() == 0
    assert "You are watching" in page.inner_text(".duell-status")
    assert page.locator(".duell-opp").count() == 2  # both hands shown as counts
    assert errors == []
    page.close()


def test_board_destroy_removes_everything(browser):
    match = Match({"mode": "prologo"}, 1)
    page, errors = open_board(browser, match)
    page.evaluate("window.board.destroy()")
    assert page.locator(".duell").count() == 0
    assert errors == []
    page.close()

"""The lab page (#/lab, static/lab.js) in Debian's chromium against the real server in a
subprocess: an admin reaches it by keyboard from the header, runs 20 Duell matches (strong vs
random), sees the progress finish, the outcome table and the SVG charts, downloads the HTML
report (through a Blob with the token); the page follows the language picker; a plain player
has no link and is told the page is not for them.

Skipped only when /usr/bin/chromium is missing and CI is not "true".
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
import uuid

import pytest

from tests.browser_support import BROWSER_MARKS, chromium, create_admin, run_server, server_env

pytestmark = BROWSER_MARKS
SECRET_KEY = "lab-browser-secret-key-0123456789abcdef0123456"
ADMIN = "LabRoot" if not os.environ.get("DATABASE_URL") else f"LabRoot{uuid.uuid4().hex[:6]}"
PASSWORD = "lab root password 01"
TIMEOUT_MS = 60_000


def call(base: str, method: str, path: str, token: str | None = None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    if os.environ.get("DATABASE_URL"):
        request.getfixturevalue("db_url")  # the Postgres reset happens now, not under us
    data_dir = tmp_path_factory.mktemp("lab-browser")
    env = server_env(data_dir, "labbrowser", SECRET_KEY=SECRET_KEY)
    create_admin(env, ADMIN, PASSWORD)
    with run_server(data_dir, env) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser(server):
    with chromium(expect_timeout_ms=TIMEOUT_MS) as b:
        yield b


def _page(server, browser, token: str, errors: list):
    ctx = browser.new_context(base_url=server, viewport={"width": 1280, "height": 1000},
                              accept_downloads=True)
    ctx.set_default_timeout(TIMEOUT_MS)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("/")
    page.evaluate("(t) => localStorage.setItem('duelhall.token', t)", token)
    page.evaluate("() => localStorage.setItem('duelhall.lang', 'en')")
    page.reload()
    return ctx, page


def test_admin_runs_the_lab_in_the_browser(server, browser, tmp_path):
    from playwright.sync_api import expect

    status, body = call(server, "POST", "/api/auth/login", body={"name": ADMIN, "password": PASSWORD})
    assert status == 200, body
    errors: list = []
    ctx, page = _page(server, browser, body["token"], errors)
    try:
        link = page.locator("#lab-link")
        expect(link).to_be_visible()
        link.focus()
        page.keyboard.press("Enter")
        expect(page.locator("h1")).to_have_text("Balance lab")
        page.select_option("#lab-game", "duell")
        page.fill("#lab-games", "20")
        page.select_option("#lab-bot-A", "strong")
        page.select_option("#lab-bot-B", "random")
        page.fill("#lab-options", '{"duels_to_win": 2}')
        page.locator("#lab-submit").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#lab-status-text")).to_have_attribute("data-status", "done")
        expect(page.locator("#lab-progress")).to_have_attribute("value", "20")
        table = page.locator("#lab-outcomes-A")
        expect(table).to_contain_text("Bot: strong")
        expect(table).to_contain_text("Seat A")
        assert page.locator("#lab-result svg.chart").count() >= 4
        assert page.locator("#lab-result svg.chart rect").count() > 5
        expect(page.locator("#lab-moves-A")).to_contain_text("95%")
        expect(page.locator("#lab-runs li")).to_have_count(1)
        with page.expect_download() as dl:
            page.click("#lab-download-html")
        saved = tmp_path / "report.html"
        dl.value.save_as(saved)
        html = saved.read_text()
        assert "<svg" in html and "Duell" in html
        # The run's own address reopens it.
        page.reload()
        expect(page.locator("#lab-status-text")).to_have_attribute("data-status", "done")
        # Another language: the page follows the picker.
        page.select_option("#lang-select", "it")
        page.goto("/#/lab")
        expect(page.locator("h1")).to_have_text("Laboratorio di bilanciamento")
        expect(page.locator("label[for=lab-game]")).to_have_text("Gioco")
        # A bad rule set is refused with the server's sentence.
        page.fill("#lab-options", '{"duels_to_win": 99}')
        page.locator("#lab-submit").click()
        expect(page.locator("#lab-error")).to_contain_text("duels_to_win")
        assert not errors, errors
    finally:
        ctx.close()


def test_a_player_is_kept_out(server, browser):
    from playwright.sync_api import expect

    status, body = call(server, "POST", "/api/auth/guest", body={"name": "Curious"})
    assert status == 200
    errors: list = []
    ctx, page = _page(server, browser, body["token"], errors)
    try:
        expect(page.locator("#user-name")).to_contain_text("Curious")
        expect(page.locator("#lab-link")).to_have_count(0)
        page.goto("/#/lab")
        expect(page.locator("[data-testid=lab-forbidden]")).to_be_visible()
        assert not errors, errors
    finally:
        ctx.close()

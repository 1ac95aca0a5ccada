"""Accounts, profiles and the admins' match review in a real browser (Debian's chromium through
Playwright) against the real server in a subprocess.

Set-up: the first admin ("Root") is created with the CLI (``duelhall create-admin Root
--password-stdin``, which also migrates the database) before the server starts; two registered
players play a finished Duel (``max_slots`` 6) over HTTP with random legal actions
(``games.duel.bots.random_action`` expands the plan templates).

What is checked in the browser:

* register / log in (wrong password: the server's message) / change password / log out, and
  the player's own profile;
* a player's profile (ratings, history with filters), the leaderboard, "Report this match" and
  "Rematch" on the finished match, the opponent's "X offers a rematch — Join";
* as Root: the admin search finds the match; the review page at a middle step, "as A", shows
  exactly ``GET /api/admin/matches/{id}/steps/{n}?as=A`` (the printed JSON equals it; the Duel
  board shows A's and B's health and stamina and their distance from it) and none of B's locked
  plan (B's plan salt and B's plan action, both on the page in the omniscient view, are nowhere
  on it as A; B's unplayed slots are face down, while "as B" shows them planned); scrubber,
  prev/next and keyboard arrows; the action log with per-seat totals; the users page (suspend,
  restore); flag with a note, another note, the exports (downloaded
  through a Blob with the token); the report queue's Resolve; the audit trail.

Skipped only when /usr/bin/chromium is missing and CI is not "true". Set SCREENSHOT_DIR to keep
screenshots of the pages.
"""
from __future__ import annotations

import json
import os
import random
import re
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from games.duel.bots import random_action
from tests.browser_support import BROWSER_MARKS, chromium, create_admin, run_server, server_env

SECRET_KEY = "browser-admin-secret-key-0123456789abcdef0123"
# "Root" as in the operations guide; against a shared Postgres (CI's second run) other tests'
# accounts live in the same database (tests/app makes a "Root" of its own), so add a suffix there.
ROOT_NAME = "Root" if not os.environ.get("DATABASE_URL") else f"Root{uuid.uuid4().hex[:6]}"
ROOT_PASSWORD = "root password 0123"
PASSWORD = "correct horse battery"
SHOTS = os.environ.get("SCREENSHOT_DIR")
TIMEOUT_MS = 30_000

pytestmark = BROWSER_MARKS


# ------------------------------------------------------------------------------ HTTP helpers
def call(base: str, method: str, path: str, token: str | None = None, body=None) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        raw, status = e.read(), e.code
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text) if text else None
    except json.JSONDecodeError:
        return status, text


def ok(base, method, path, token=None, body=None):
    status, data = call(base, method, path, token, body)
    assert status == 200, f"{method} {path} -> {status}: {data}"
    return data


# ------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    """Base URL of the real app (uvicorn app.main:app) in a subprocess with its own DATA_DIR and
    a fixed SECRET_KEY; the admin Root exists before it starts (created with the CLI)."""
    if os.environ.get("DATABASE_URL"):
        # tests/conftest.py's db_url resets the Postgres schema once per session: have it happen
        # now, never under our running server (and so Root is created fresh).
        request.getfixturevalue("db_url")
    data_dir = tmp_path_factory.mktemp("admin-browser")
    env = server_env(data_dir, "adminbrowser", SECRET_KEY=SECRET_KEY)
    made = create_admin(env, ROOT_NAME, ROOT_PASSWORD)
    assert ROOT_NAME in made.stdout
    with run_server(data_dir, env) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser(server):
    # After the server: its set-up may reset Postgres with asyncio.run(), which cannot run once
    # Playwright's sync API holds the event loop of this thread.
    # Generous: a loaded 2-core CI machine is slow, and every sign-in costs the server an
    # argon2 hash. A passing run never waits for these.
    with chromium(expect_timeout_ms=TIMEOUT_MS) as b:
        yield b


@pytest.fixture
def new_page(server, browser):
    """new_page(label) -> a page in its own browser context (own localStorage = own session).
    Fails the test if the client throws an uncaught exception."""
    contexts, errors = [], []

    def make(label: str):
        ctx = browser.new_context(base_url=server, viewport={"width": 1280, "height": 1000},
                                  accept_downloads=True)
        ctx.set_default_timeout(TIMEOUT_MS)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e, n=label: errors.append(f"{n}: {e}"))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, "uncaught errors in the browser client:\n" + "\n".join(errors)


@pytest.fixture(scope="module")
def finished_duel(server):
    """Two registered players, a finished Duel between them (random legal actions over HTTP)
    and its record in SQL. Returns a dict with ids, tokens and the record."""
    sfx = uuid.uuid4().hex[:5]
    players = {}
    for seat, name in (("A", f"Aki{sfx}"), ("B", f"Ben{sfx}")):
        body = ok(server, "POST", "/api/auth/register", body={"name": name, "password": PASSWORD})
        players[seat] = {"name": name, "token": body["token"], "id": body["user"]["id"]}
    mid = ok(server, "POST", "/api/matches", players["A"]["token"],
             {"game": "duel", "options": {"max_slots": 6}})["id"]
    assert ok(server, "POST", f"/api/matches/{mid}/join", players["B"]["token"])["status"] == "live"
    rnd = random.Random(20261129)
    for _ in range(2000):
        views = {s: ok(server, "GET", f"/api/matches/{mid}/view", p["token"]) for s, p in players.items()}
        if views["A"]["status"] == "finished":
            break
        for seat, v in views.items():
            if seat in v["pending"] and v["legal"]:
                status, data = call(server, "POST", f"/api/matches/{mid}/actions", players[seat]["token"],
                                    {"action": random_action(v["legal"], rnd)})
                assert status in (200, 409), data  # 409: the other seat's action moved the match on
    else:
        raise AssertionError("the duel did not finish")
    deadline = time.monotonic() + 60
    while True:
        status, record = call(server, "GET", f"/api/matches/{mid}/record", players["A"]["token"])
        if status == 200:
            break
        assert status == 503 and time.monotonic() < deadline, (status, record)
        time.sleep(0.1)
    root = ok(server, "POST", "/api/auth/login", body={"name": ROOT_NAME, "password": ROOT_PASSWORD})
    return {"id": mid, "players": players, "record": record, "root_token": root["token"]}


# ------------------------------------------------------------------------------ UI helpers
def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def log_in(page, name: str, password: str) -> None:
    from playwright.sync_api import expect

    if page.url == "about:blank":
        page.goto("/")
    expect(page.locator("#account-form")).to_be_visible()
    page.click("#account-mode-login")
    page.fill("#account-name", name)
    page.fill("#account-password", password)
    page.click("#account-submit")
    expect(page.locator("#user-name")).to_contain_text(name)


def signed_in_as(page, player: dict) -> None:
    """Open the app with a token the player already has (the form is tested elsewhere; this
    spares the server an argon2 verification)."""
    from playwright.sync_api import expect

    page.goto("/")
    page.evaluate("(t) => localStorage.setItem('duelhall.token', t)", player["token"])
    page.reload()
    expect(page.locator("#user-name")).to_contain_text(player["name"])


def log_out(page) -> None:
    from playwright.sync_api import expect

    page.click("#account-menu-button")
    page.click("#logout-button")
    expect(page.locator("#account-form")).to_be_visible()
    expect(page.locator("#user-name")).to_have_count(0)


def shows(page, text: str) -> bool:
    """Whether ``text`` is anywhere on the page: in its text or in an attribute."""
    return page.evaluate(
        """(s) => document.body.innerText.includes(s) || document.body.textContent.includes(s) ||
               [...document.querySelectorAll('*')].some((e) => [...e.attributes].some((a) => a.value.includes(s)))""",
        text)


def choose_step(server, duel) -> int:
    """A step near the middle where B has locked a plan that A cannot see and at least one slot
    of it is still unplayed (footwork or dodge of the exchange's first or second slot)."""
    mid, token = duel["id"], duel["root_token"]
    n = len(duel["record"]["actions"])
    candidates = []
    for k in range(1, n):
        omni = ok(server, "GET", f"/api/admin/matches/{mid}/steps/{k}", token)
        st = omni["state"]
        if (st["players"]["B"].get("plan") and st["phase"] in ("footwork", "dodge")
                and st["exchange_slot"] <= 2 and omni["result"] is None):
            candidates.append(k)
    assert candidates, "no step with a hidden plan of B"
    return min(candidates, key=lambda k: abs(k - n / 2))


# ------------------------------------------------------------------------------ the tests
def test_register_login_password_logout_profile(new_page, server):
    from playwright.sync_api import expect

    page = new_page("newcomer")
    name = f"Cara{uuid.uuid4().hex[:5]}"
    page.goto("/")
    # The guest form is still there, next to the account form.
    expect(page.locator("#name-input")).to_be_visible()
    page.click("#account-mode-register")
    expect(page.locator("#account-password2")).to_be_visible()
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.fill("#account-password2", PASSWORD + "x")
    page.click("#account-submit")
    expect(page.locator("#account-error")).to_contain_text("not the same")
    page.fill("#account-password2", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#user-name")).to_contain_text(name)
    token = page.evaluate("localStorage.getItem('duelhall.token')")
    me = ok(server, "GET", "/api/me", token)
    assert me["name"] == name and me["guest"] is False

    # My profile: the name, no ratings, no matches yet.
    page.click("#profile-link")
    expect(page).to_have_url(re.compile(rf"#/users/{me['id']}$"))
    expect(page.locator("#profile-title")).to_have_text(name)
    expect(page.locator("#profile-history .empty")).to_be_visible()

    # Registering the same name again: the server's message.
    other = new_page("copycat")
    other.goto("/")
    other.click("#account-mode-register")
    other.fill("#account-name", name.upper())
    other.fill("#account-password", PASSWORD)
    other.fill("#account-password2", PASSWORD)
    other.click("#account-submit")
    expect(other.locator("#account-error")).to_have_text("That name is taken; choose another.")

    # Change the password in the account menu; the page keeps working with the new token.
    page.click("#account-menu-button")
    expect(page.locator("#account-menu")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#account-menu")).to_be_hidden()
    page.click("#account-menu-button")
    page.click("#change-password-button")
    expect(page.locator("#password-dialog")).to_be_visible()
    page.fill("#password-old", "wrong password!")
    page.fill("#password-new", "a new password 1")
    page.fill("#password-new2", "a new password 1")
    page.click("#password-dialog-submit")
    expect(page.locator("#password-dialog-error")).to_have_text("Your current password is wrong.")
    expect(page.locator("#user-name")).to_contain_text(name)  # still signed in
    page.fill("#password-old", PASSWORD)
    page.click("#password-dialog-submit")
    expect(page.locator("#password-dialog")).to_have_count(0)
    new_token = page.evaluate("localStorage.getItem('duelhall.token')")
    assert new_token != token
    assert call(server, "GET", "/api/me", token)[0] == 401  # the old session is signed out
    assert ok(server, "GET", "/api/me", new_token)["name"] == name

    # Log out, then log in: the old password is refused with the server's words, the new works.
    log_out(page)
    assert page.evaluate("localStorage.getItem('duelhall.token')") is None
    assert call(server, "GET", "/api/me", new_token)[0] == 401
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#account-error")).to_have_text("Wrong name or password.")
    page.fill("#account-password", "a new password 1")
    page.click("#account-submit")
    expect(page.locator("#user-name")).to_contain_text(name)
    expect(page.locator("#admin-link")).to_have_count(0)  # not an admin
    shot(page, "account-signed-in")


def test_a_browser_that_signed_in_before_is_not_locked_out_by_other_peoples_guesses(new_page, server):
    """Issue #15: the browser keeps the device token its sign-in got (localStorage) and sends it
    with the next login of that name: five wrong guesses by someone else lock the name for
    unknown devices, not for this browser with the right password."""
    from playwright.sync_api import expect

    name = f"Dora{uuid.uuid4().hex[:5]}"
    ok(server, "POST", "/api/auth/register", body={"name": name, "password": PASSWORD})
    page = new_page("owner")
    log_in(page, name, PASSWORD)
    devices = page.evaluate("JSON.parse(localStorage.getItem('duelhall.devices') || '{}')")
    assert devices.get(name.lower()), devices
    log_out(page)
    for _ in range(5):
        assert call(server, "POST", "/api/auth/login", body={"name": name, "password": "a wrong guess"})[0] == 401
    assert call(server, "POST", "/api/auth/login", body={"name": name, "password": PASSWORD})[0] == 429
    stranger = new_page("stranger")  # another browser: an unknown device
    stranger.goto("/")
    stranger.click("#account-mode-login")
    stranger.fill("#account-name", name)
    stranger.fill("#account-password", PASSWORD)
    stranger.click("#account-submit")
    expect(stranger.locator("#account-error")).to_contain_text("Too many failed sign-ins")
    log_in(page, name, PASSWORD)  # the owner's browser gets in


def test_players_profile_report_and_rematch(new_page, server, finished_duel):
    from playwright.sync_api import expect

    duel = finished_duel
    mid, A, B = duel["id"], duel["players"]["A"], duel["players"]["B"]
    result = duel["record"]["result"]
    a_outcome = "draw" if result.get("draw") else ("win" if result["places"]["A"] == 1 else "loss")

    page = new_page("A")
    signed_in_as(page, A)
    # Profile: the Duel rating and the match in the history; the result filter works.
    page.click("#profile-link")
    expect(page.locator("#profile-title")).to_have_text(A["name"])
    expect(page.locator("[data-testid=rating][data-game=duel]")).to_be_visible()
    row = page.locator(f"[data-testid=history-row][data-match-id='{mid}']")
    expect(row).to_have_attribute("data-outcome", a_outcome)
    expect(row).to_contain_text(B["name"])
    other = "loss" if a_outcome == "win" else "win"
    page.select_option("#history-result", other)
    page.click("#history-apply")
    expect(page.locator("#history-empty")).to_be_visible()
    assert f"result={other}" in page.url
    page.select_option("#history-result", a_outcome)
    page.fill("#history-opponent", B["name"])
    page.click("#history-apply")
    expect(row).to_be_visible()
    shot(page, "profile")
    # Leaderboard of Duel: both players.
    page.click("#leaderboards-link")
    page.goto("/#/leaderboard/duel")
    for p in (A, B):
        expect(page.locator(f"[data-testid=leader][data-user-id='{p['id']}']")).to_be_visible()
    shot(page, "leaderboard")

    # The finished match: report it, then offer a rematch.
    row_link = f"/#/match/{mid}"
    page.goto(row_link)
    expect(page.locator("#result-banner")).to_be_visible()
    expect(page.locator("#play-again-button")).to_be_visible()
    page.click("#report-button")
    page.fill("#report-reason", "x")
    page.click("#report-dialog-submit")
    expect(page.locator("#report-dialog-error")).to_be_visible()
    page.fill("#report-reason", "The clock looked odd in the second exchange.")
    page.click("#report-dialog-submit")
    expect(page.locator("#report-dialog")).to_have_count(0)
    expect(page.locator("#report-button")).to_be_disabled()
    reports = ok(server, "GET", "/api/admin/reports", duel["root_token"])
    assert [r["reason"] for r in reports if r["match_id"] == mid] == ["The clock looked odd in the second exchange."]
    shot(page, "match-finished")

    b_page = new_page("B")
    signed_in_as(b_page, B)
    b_page.goto(row_link)
    expect(b_page.locator("#rematch-button")).to_be_visible()

    page.click("#rematch-button")
    expect(page).not_to_have_url(re.compile(rf"#/match/{mid}$"))
    new_id = re.search(r"#/match/([^/?]+)$", page.url).group(1)
    expect(page.locator("[data-testid=waiting-room]")).to_be_visible()
    # B, still on the old match, sees the offer live and joins it.
    offer = b_page.locator("#rematch-offer")
    expect(offer).to_contain_text(f"{A['name']} offers a rematch")
    expect(b_page.locator("#rematch-button")).to_have_count(0)
    shot(b_page, "rematch-offer")
    b_page.click("#rematch-join")
    expect(b_page).to_have_url(re.compile(rf"#/match/{new_id}$"))
    summary = ok(server, "GET", f"/api/matches/{new_id}")
    assert summary["game"] == "duel" and summary["options"]["max_slots"] == 6
    assert {s["user"]["id"] for s in summary["seats"]} == {A["id"], B["id"]}
    expect(page.locator("#match-status")).to_have_attribute("data-status", "live")


def test_admin_review_as_a_viewer(new_page, server, finished_duel):
    from playwright.sync_api import expect

    duel = finished_duel
    mid, token = duel["id"], duel["root_token"]
    n_steps = len(duel["record"]["actions"])
    step = choose_step(server, duel)
    as_a = ok(server, "GET", f"/api/admin/matches/{mid}/steps/{step}?as=A", token)
    as_b = ok(server, "GET", f"/api/admin/matches/{mid}/steps/{step}?as=B", token)
    omni = ok(server, "GET", f"/api/admin/matches/{mid}/steps/{step}", token)
    secret = omni["state"]["players"]["B"]["plan_salt"]
    assert secret and secret not in json.dumps(as_a)
    # B's locked plan as B sent it (the action log holds it too): shown only omnisciently.
    b_plans = [a["action"] for a in duel["record"]["actions"][:step]
               if a["seat"] == "B" and a["action"]["type"] == "plan"]
    b_plan = json.dumps(b_plans[-1], separators=(",", ":"))
    assert "plan" not in as_a["state"]["players"]["B"] and omni["state"]["players"]["B"]["plan"]

    page = new_page("Root")
    log_in(page, ROOT_NAME, ROOT_PASSWORD)
    expect(page.locator("#admin-link")).to_be_visible()

    # Search: the Duel is there; its Review link opens the review page.
    page.click("#admin-link")
    page.select_option("#search-game", "duel")
    page.select_option("#search-status", "finished")
    page.click("#search-submit")
    row = page.locator(f"[data-testid=search-row][data-match-id='{mid}']")
    expect(row).to_be_visible()
    assert "game=duel" in page.url and "status=finished" in page.url
    shot(page, "admin-search")
    row.locator("[data-testid=review-link]").click()
    expect(page).to_have_url(re.compile(rf"#/admin/match/{mid}"))
    review = page.locator("[data-testid=review]")
    expect(review).to_have_attribute("data-loaded", f"{n_steps}|omniscient")
    expect(page.locator("#review-step-label")).to_contain_text(f"{n_steps} of {n_steps}")

    # The action log: one row per step, per-seat totals as the API computed them.
    detail = ok(server, "GET", f"/api/admin/matches/{mid}", token)
    expect(page.locator("[data-testid=log-row]")).to_have_count(n_steps)
    for seat, secs in detail["log"]["seconds_per_seat"].items():
        total = page.locator(f"[data-testid=log-total][data-seat={seat}]")
        assert float(total.get_attribute("data-seconds")) == pytest.approx(secs)

    # Scrub to the middle step; viewers: omniscient / as A / as B / spectator.
    page.fill("#review-step", str(step))
    expect(review).to_have_attribute("data-loaded", f"{step}|omniscient")
    assert [page.locator(f"#view-as-{v}").count() for v in ("omniscient", "A", "B", "spectator")] == [1, 1, 1, 1]
    assert json.loads(page.locator("#review-step-json").text_content()) == omni
    # The omniscient view does show B's plan (so the checks below mean something).
    assert secret in page.content() and shows(page, b_plan)

    page.check("#view-as-A")
    expect(review).to_have_attribute("data-loaded", f"{step}|A")
    assert f"step={step}" in page.url and "as=A" in page.url
    shown = json.loads(page.locator("#review-step-json").text_content())
    assert shown == as_a
    board = page.locator("#review-board .board-host[data-game=duel] section.duel")
    expect(board).to_be_visible()
    st = as_a["state"]["players"]
    for seat in ("A", "B"):
        if st[seat]["duellist"]:
            expect(board.locator(f"[data-testid=health-{seat}]")).to_have_text(str(st[seat]["health"]))
        expect(board.locator(f"[data-testid=stamina-{seat}]")).to_have_text(str(st[seat]["stamina"]))
    if st["A"]["position"] is not None and st["B"]["position"] is not None:
        expect(board.locator(".duel-dist").first).to_contain_text(str(st["B"]["position"] - st["A"]["position"]))
    # Nothing of B's locked plan: not its salt anywhere, B's unplayed slots face down.
    assert secret not in page.content() and not shows(page, b_plan)
    assert board.locator("[data-testid^=cell-B-] .duel-card.planned").count() == 0
    assert board.locator("[data-testid^=cell-A-] .duel-card.planned").count() >= 1  # A's own plan
    shot(page, "admin-review-as-A")

    page.check("#view-as-B")
    expect(review).to_have_attribute("data-loaded", f"{step}|B")
    assert json.loads(page.locator("#review-step-json").text_content()) == as_b
    assert board.locator("[data-testid^=cell-B-] .duel-card.planned").count() >= 1
    page.check("#view-as-A")
    expect(review).to_have_attribute("data-loaded", f"{step}|A")

    # Prev / next buttons and the keyboard.
    page.click("#review-next")
    expect(review).to_have_attribute("data-loaded", f"{step + 1}|A")
    page.click("#review-prev")
    expect(review).to_have_attribute("data-loaded", f"{step}|A")
    page.locator("#review-step").focus()
    page.keyboard.press("ArrowLeft")
    expect(review).to_have_attribute("data-loaded", f"{step - 1}|A")
    page.locator("#review-title").click()
    page.keyboard.press("ArrowRight")
    expect(review).to_have_attribute("data-loaded", f"{step}|A")
    assert json.loads(page.locator("#review-step-json").text_content()) == as_a
    expect(page.locator(f"[data-testid=log-row][data-step='{step}']")).to_have_class(re.compile(r"\bcurrent\b"))

    # Flag with a note, add a note.
    page.fill("#flag-note", "Odd timing in exchange two")
    page.click("#flag-button")
    expect(page.locator("#flag-status")).to_have_attribute("data-flagged", "true")
    expect(page.locator("#review-flag-tag")).to_be_visible()
    page.fill("#note-text", f"Checked step {step} as A")
    page.click("#note-submit")
    expect(page.locator("[data-testid=note]")).to_have_count(2)
    detail = ok(server, "GET", f"/api/admin/matches/{mid}", token)
    assert detail["flagged"] is True
    assert [x["text"] for x in detail["notes"]] == ["Odd timing in exchange two", f"Checked step {step} as A"]
    assert mid in [m["id"] for m in ok(server, "GET", "/api/admin/matches?flagged=true", token)]
    shot(page, "admin-review-flagged")

    # Exports: downloaded with the token (the plain links would be 401 without it).
    assert call(server, "GET", f"/api/admin/matches/{mid}/export.json")[0] == 401
    with page.expect_download() as dl:
        page.click("#export-json")
    exported = json.loads(Path(dl.value.path()).read_text())
    assert dl.value.suggested_filename == f"duelhall-{mid}.json"
    assert exported == ok(server, "GET", f"/api/admin/matches/{mid}/export.json", token)
    with page.expect_download() as dl:
        page.click("#export-txt")
    text = Path(dl.value.path()).read_text()
    assert text.startswith(f"Duelhall match {mid}") and "Result:" in text

    # Reload keeps the position (step and viewer are in the hash).
    page.reload()
    expect(review).to_have_attribute("data-loaded", f"{step}|A")

    # Report queue: resolve (the report comes from the players' test, or is filed here).
    if not [r for r in ok(server, "GET", "/api/admin/reports", token) if r["match_id"] == mid]:
        ok(server, "POST", f"/api/matches/{mid}/report", duel["players"]["B"]["token"], {"reason": "Please look."})
    page.click("#admin-nav-reports")
    report_row = page.locator(f"[data-testid=report-row][data-match-id='{mid}']").first
    expect(report_row).to_be_visible()
    report_row.locator("[data-testid=resolve]").click()
    expect(page.locator(f"[data-testid=report-row][data-match-id='{mid}']")).to_have_count(0)
    assert not [r for r in ok(server, "GET", "/api/admin/reports", token) if r["match_id"] == mid]

    # Users: suspend B and restore them.
    B = duel["players"]["B"]
    page.click("#admin-nav-users")
    page.fill("#user-search-q", B["name"])
    page.click("#user-search-submit")
    user_row = page.locator(f"[data-testid=user-row][data-user-id='{B['id']}']")
    user_row.locator("[data-testid=suspend]").click()
    page.fill("#suspend-reason", "testing the switch")
    page.click("#suspend-dialog-submit")
    expect(user_row).to_have_attribute("data-suspended", "true")
    assert call(server, "GET", "/api/me", B["token"])[0] == 403
    user_row.locator("[data-testid=restore]").click()
    expect(user_row).to_have_attribute("data-suspended", "false")
    assert ok(server, "GET", "/api/me", B["token"])["id"] == B["id"]

    # The audit trail lists what Root did here.
    page.click("#admin-nav-audit")
    expect(page.locator("[data-testid=audit-row]").first).to_be_visible()
    seen = {(r.get_attribute("data-action"), r.get_attribute("data-target"))
            for r in page.locator("[data-testid=audit-row]").all()}
    for action in ("flag", "note", "export"):
        assert (action, f"match:{mid}") in seen
    assert ("suspend", f"user:{B['id']}") in seen and ("restore", f"user:{B['id']}") in seen
    shot(page, "admin-audit")

"""Driving the real Duelhall client in chromium: the shell (name, lobby, match screen) and the
Duell board (static/games/duell.js).

Every game action goes through the board's own controls: a hand card (``.duell-hand
button.duell-card``), then a highlighted track space (``g.duell-space.reach`` / ``.hit``) or an
action button (``.duell-actions button.duell-btn``). ``window.duelhall.view()`` is only READ,
to decide which card to click and to compare versions; it is never used to act.
"""
from __future__ import annotations

import json
import re

from playwright.sync_api import Page, WebSocket, expect

BOARD = "#board .board-host[data-game=duell] section.duell"


# ------------------------------------------------------------------------------------ shell
def open_app(page: Page, url: str = "/") -> None:
    """Start loading ``url`` without waiting for it, so several pages load at once."""
    page.goto(url, wait_until="commit")


def sign_in(page: Page, name: str, url: str | None = None) -> None:
    """Open ``url`` (unless the page already is open at the app) and pick a guest name on the
    name screen."""
    if url is not None or page.url == "about:blank":
        page.goto(url or "/")
    page.fill("#name-input", name)
    page.click("#name-submit")
    expect(page.locator("#user-name")).to_contain_text(name)


def create_duell(page: Page, **options) -> tuple[str, str]:
    """In the lobby: choose Duell, fill the option fields, create. Returns (match id, invite
    link as shown in the waiting room)."""
    page.select_option("#create-game", "duell")
    form = page.locator("#create-form")
    expect(form.locator("[name=duels_to_win]")).to_be_visible()
    for name, value in options.items():
        field = form.locator(f"[name={name}]")
        if name == "mode":
            # Enum options are <option value="index">label</option>: pick by label.
            labels = [x.strip().lower() for x in field.locator("option").all_text_contents()]
            field.select_option(index=labels.index(str(value).lower()))
        else:
            field.fill(str(value))
    page.click("#create-submit")
    expect(page.locator("[data-testid=waiting-room]")).to_be_visible()
    match_id = re.search(r"#/match/([^/?]+)$", page.url).group(1)
    invite = page.locator("#invite-link").input_value()
    assert invite.endswith(f"/#/match/{match_id}"), invite
    return match_id, invite


def join_from_lobby(page: Page, match_id: str, host: str | None = None) -> None:
    """Find the match in the lobby's open list (game, host, 1 of 2 seats) and join it."""
    row = page.locator(f"[data-testid=open-match][data-match-id='{match_id}']")
    expect(row).to_be_visible()
    expect(row).to_contain_text("Duell")
    if host:
        expect(row).to_contain_text(host)
    expect(row.locator("[data-testid=seats]")).to_have_text("1 / 2")
    row.locator("[data-testid=join]").click()
    page.wait_for_url(f"**/#/match/{match_id}")


def wait_board(page: Page) -> dict:
    """Wait until the Duell board is drawn from a live view; returns that view."""
    expect(page.locator(f"{BOARD} svg.duell-svg")).to_be_visible()
    page.wait_for_function("() => { const v = window.duelhall && window.duelhall.view();"
                           " return !!(v && v.state && v.status === 'live'); }")
    return view(page)


def view(page: Page) -> dict:
    return page.evaluate("() => window.duelhall.view()")


def wait_version(page: Page, at_least: int, timeout: float | None = None) -> dict:
    page.wait_for_function(
        "(n) => { const v = window.duelhall && window.duelhall.view(); return !!v && v.version >= n; }",
        arg=at_least, timeout=timeout)
    return view(page)


def my_turn(doc: dict) -> bool:
    return bool(doc and doc.get("status") == "live" and doc.get("seat")
                and doc["seat"] in (doc.get("pending") or []) and doc.get("legal"))


# ------------------------------------------------------------------------------- choosing
def aggressive(doc: dict) -> dict:
    """Ends a Prologo duel fast: hit when possible, else the longest forward move."""
    legal = doc["legal"]
    hits = [a for a in legal if a["type"] == "attack"]
    if hits:
        return hits[0]
    moves = [a for a in legal if a["type"] == "move"]
    forward = sorted((a for a in moves if a["dir"] == "forward"), key=lambda a: -a["card"])
    return (forward or moves)[0]


def cautious(doc: dict) -> dict:
    """Never hits and keeps out of reach where it can (distance > 5), so the match goes on."""
    st = doc["state"]
    moves = [a for a in doc["legal"] if a["type"] == "move"]
    assert moves, f"no move to make: {doc['legal']}"

    def distance_after(a):
        step = a["card"] if a["dir"] == "forward" else -a["card"]
        return st["distance"] - step

    safe = [a for a in moves if distance_after(a) > 5]
    return min(safe or moves, key=lambda a: (a["dir"] != "forward", a["card"]))


def target_space(doc: dict, action: dict) -> int:
    st, seat = doc["state"], doc["seat"]
    if action["type"] == "attack":
        other = next(s for s in st["positions"] if s != seat)
        return st["positions"][other]
    sign = 1 if st["starts"][seat] == 1 else -1
    step = action["card"] if action["dir"] == "forward" else -action["card"]
    return st["positions"][seat] + sign * step


# -------------------------------------------------------------------------------- playing
def hand_card(page: Page, value: int):
    return (page.locator(f"{BOARD} .duell-hand button.duell-card:not([disabled])")
            .filter(has_text=re.compile(rf"^\s*{value}\s*$")).first)


def space(page: Page, number: int, kind: str = "reach"):
    """The highlighted track space ``number`` (kind: reach = move target, hit = opponent)."""
    return (page.locator(f"{BOARD} svg.duell-svg g.duell-space.{kind}")
            .filter(has=page.locator("text.duell-num", has_text=re.compile(rf"^{number}$"))))


def select_card(page: Page, action: dict) -> None:
    card = action["card"] if "card" in action else action["cards"][0]
    hand_card(page, card).click()
    expect(page.locator(f"{BOARD} .duell-hand button.duell-card.selected")).to_have_text(str(card))


def click_target(page: Page, doc: dict, action: dict, via: str = "space") -> None:
    """After select_card: send ``action`` by clicking its highlighted space or its button."""
    if via == "space":
        kind = "hit" if action["type"] == "attack" else "reach"
        target = space(page, target_space(doc, action), kind)
        expect(target).to_have_count(1)
        target.click()
    else:
        # Buttons of the selected card: strong = the hit; moves in legal order (forward first).
        buttons = f"{BOARD} .duell-actions button.duell-btn"
        if action["type"] == "attack":
            page.locator(f"{buttons}.strong").click()
        else:
            same_card = [a for a in doc["legal"] if a["type"] == "move" and a["card"] == action["card"]]
            page.locator(f"{buttons}:not(.strong):not(.quiet)").nth(same_card.index(action)).click()


def play(page: Page, choose=aggressive, via: str = "space") -> tuple[dict, dict]:
    """Make one move on ``page`` through the board UI; waits until the page has the view that
    follows it. Returns (action, new view)."""
    doc = view(page)
    assert my_turn(doc), f"not this page's turn: pending={doc.get('pending')} seat={doc.get('seat')}"
    action = choose(doc)
    select_card(page, action)
    click_target(page, doc, action, via)
    return action, wait_version(page, doc["version"] + 1)


def assert_cannot_act(page: Page) -> None:
    """Not this player's turn: every hand card is disabled, nothing is highlighted, no
    action buttons."""
    cards = page.locator(f"{BOARD} .duell-hand button.duell-card")
    expect(cards).not_to_have_count(0)
    for i in range(cards.count()):
        expect(cards.nth(i)).to_be_disabled()
    expect(page.locator(f"{BOARD} g.duell-space.reach, {BOARD} g.duell-space.hit")).to_have_count(0)
    expect(page.locator(f"{BOARD} .duell-actions button")).to_have_count(0)


# ------------------------------------------------------------------------------ secrecy
class ViewSpy:
    """Every view document a page receives, over its websockets and over HTTP
    (GET /api/matches/{id}/view), so tests can check what the page ever saw. It only listens:
    the page's network is not touched (no routing, which would bypass offline emulation)."""

    def __init__(self, page: Page):
        self._ws_docs: list[dict] = []
        self._responses: list = []
        self.socket_urls: list[str] = []
        page.on("websocket", self._socket)
        page.on("response", self._response)

    def _socket(self, ws: WebSocket) -> None:
        self.socket_urls.append(ws.url)
        ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        if isinstance(payload, bytes):
            payload = payload.decode("utf-8", "replace")
        try:
            msg = json.loads(payload)
        except ValueError:
            return
        if isinstance(msg, dict) and msg.get("type") == "view":
            self._ws_docs.append(msg)

    def _response(self, response) -> None:
        if re.search(r"/api/matches/[^/]+/view$", response.url) and response.ok:
            self._responses.append(response)

    @property
    def counts(self) -> dict:
        return {"websocket": len(self._ws_docs), "http": len(self._responses)}

    @property
    def docs(self) -> list[dict]:
        http = [r.json() for r in self._responses]  # bodies are read now, not in the handler
        return self._ws_docs + [d for d in http if isinstance(d, dict) and "state" in d]

    def assert_secret_kept(self, seat: str | None) -> int:
        """No document shows a hand other than ``seat``'s own (spectator: none at all), and no
        deal/draw event names another seat's cards. Returns how many documents were checked."""
        checked = 0
        for doc in self.docs:
            assert doc.get("seat") == seat, (doc.get("seat"), seat)
            st = doc.get("state")
            if not st:
                continue
            checked += 1
            for s, hand in (st.get("hands") or {}).items():
                if s != seat:
                    assert hand is None, f"v{doc['version']}: {seat or 'spectator'} saw {s}'s hand {hand}"
            if seat is None:
                assert st.get("hand") is None, f"v{doc['version']}: spectator saw a hand {st['hand']}"
            else:
                assert st["hands"][seat] == st["hand"], doc
            for e in doc.get("events") or []:
                if e.get("type") in ("deal", "draw") and e.get("seat") != seat:
                    assert e.get("cards") is None, f"{seat or 'spectator'} saw {e}"
        return checked

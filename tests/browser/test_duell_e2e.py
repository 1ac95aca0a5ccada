"""End-to-end tests of the whole product in a real browser: the shell (name screen, lobby,
waiting room, match screen) and the Duell board, against the real server in a subprocess.

Players act only through the page's UI; ``window.duelhall.view()`` is read to pick a card and
to compare what two pages show, never to act.
"""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.browser.duell_ui import (
    BOARD,
    ViewSpy,
    aggressive,
    assert_cannot_act,
    cautious,
    create_duell,
    join_from_lobby,
    my_turn,
    open_app,
    play,
    select_card,
    sign_in,
    space,
    target_space,
    view,
    wait_board,
    wait_version,
)

pytestmark = pytest.mark.browser


def start_match(new_page, **options):
    """Ann creates a Prologo match (first to 1 duel) in the lobby, Bob joins it from the open
    list. Returns (ann, bob, spies, match_id, invite_link); spies[page] records every view the
    page receives."""
    ann, bob = new_page("Ann"), new_page("Bob")
    spies = {ann: ViewSpy(ann), bob: ViewSpy(bob)}
    open_app(ann), open_app(bob)
    sign_in(ann, "Ann")
    match_id, invite = create_duell(ann, mode="prologo", duels_to_win=1, **options)
    expect(ann.locator("#match-status")).to_have_attribute("data-status", "open")
    sign_in(bob, "Bob")
    join_from_lobby(bob, match_id, host="Ann")
    for page in (ann, bob):
        doc = wait_board(page)
        assert doc["state"]["mode"] == "prologo" and doc["state"]["duels_to_win"] == 1
        expect(page.locator("#match-status")).to_have_attribute("data-status", "live")
    return ann, bob, spies, match_id, invite


def seats(ann, bob):
    a, b = view(ann)["seat"], view(bob)["seat"]
    assert a and b and a != b
    return {a: ann, b: bob}


def to_move(pages) -> str:
    doc = view(next(iter(pages.values())))
    (seat,) = doc["pending"]
    return seat


def sync(pages, version):
    for page in pages:
        wait_version(page, version)


# ------------------------------------------------------------------------------------------
def test_a_full_match_through_the_ui(new_page):
    """The acceptance test: lobby -> join -> play a whole Prologo match by clicking -> both
    see the result; neither page ever received the opponent's hand."""
    ann, bob, spies, match_id, _ = start_match(new_page)
    by_seat = seats(ann, bob)
    names = {view(ann)["seat"]: "Ann", view(bob)["seat"]: "Bob"}
    for page in (ann, bob):
        board = page.locator(BOARD)
        expect(board.locator(".duell-meta")).to_contain_text("Prologo")
        expect(board.locator(".duell-meta")).to_contain_text("first to 1")

    # The player not to move has no usable control.
    first = to_move(by_seat)
    assert_cannot_act(next(p for s, p in by_seat.items() if s != first))
    expect(by_seat[first].locator("#turn-indicator")).to_have_text("Your move")

    moves = 0
    while view(ann)["status"] != "finished":
        assert moves < 80, "the match did not end"
        seat = to_move(by_seat)
        # Ann plays with the highlighted spaces, Bob with the action buttons.
        page = by_seat[seat]
        _, doc = play(page, aggressive, via="space" if page is ann else "button")
        sync((ann, bob), doc["version"])
        moves += 1

    result = view(ann)["result"]
    assert view(bob)["result"] == result
    for page in (ann, bob):
        banner = page.locator("#result-banner")
        expect(banner).to_be_visible()
        expect(page.locator("#match-status")).to_have_attribute("data-status", "finished")
        me = view(page)["seat"]
        if result.get("draw"):
            expect(banner).to_contain_text("Draw")
        elif result["winner"] == me:
            expect(banner).to_contain_text("You won")
            expect(banner).to_have_attribute("data-result", "win")
        else:
            expect(banner).to_contain_text(f"{names[result['winner']]} won")
            expect(banner).to_have_attribute("data-result", "loss")
        # Hands stay secret: checked on every view document the page ever received.
        assert spies[page].assert_secret_kept(me) >= moves
        assert spies[page].counts["websocket"] >= moves and spies[page].counts["http"] >= 1
        # The socket knew the seat (the views above are the seat's) from the token in its
        # subprotocols: no socket URL carries it (access logs print URLs).
        urls_with_token = sum("token" in url for url in spies[page].socket_urls)
        assert spies[page].socket_urls and urls_with_token == 0
        final = view(page)["state"]
        assert [s for s, h in final["hands"].items() if h is not None] == [me]
    assert moves >= 2


# ------------------------------------------------------------------------------------------
def test_b_reconnect_and_resume(new_page):
    """Ann's socket drops mid-match (offline), Bob moves meanwhile, Ann comes back: the
    connection banner shows, then clears, and Ann's board has Bob's move."""
    ann, bob, _, _, _ = start_match(new_page)
    by_seat = seats(ann, bob)
    ann_seat = view(ann)["seat"]
    bob_seat = view(bob)["seat"]

    # Mid-match: at least one move each, and Bob to move next.
    played = set()
    while not (played >= {ann_seat, bob_seat} and to_move(by_seat) == bob_seat):
        seat = to_move(by_seat)
        _, doc = play(by_seat[seat], cautious)
        sync((ann, bob), doc["version"])
        played.add(seat)
    before = view(ann)["version"]

    ann.context.set_offline(True)
    ann.evaluate("() => window.duelhall.reconnect()")  # drop the socket; reopening fails offline
    banner = ann.locator("#conn-banner")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-state", "reconnecting")
    expect(banner).to_contain_text("reconnecting")

    bob_move, bob_doc = play(bob, cautious)
    to = bob_doc["state"]["positions"][bob_seat]
    ann.wait_for_timeout(1500)
    assert view(ann)["version"] == before, "Ann was offline and still got Bob's move"
    expect(banner).to_be_visible()

    ann.context.set_offline(False)
    expect(banner).to_be_hidden()
    expect(banner).to_have_attribute("data-state", "connected")
    ann_doc = wait_version(ann, bob_doc["version"])
    assert ann_doc["version"] == view(bob)["version"] == bob_doc["version"]
    assert ann_doc["state"]["positions"] == bob_doc["state"]["positions"]
    # ... and it is drawn: Bob's fencer on its new space, the move in the log, Ann to move.
    expect(ann.locator(f"{BOARD} g.duell-fencer.opp title")).to_have_text(f"Bob on space {to}")
    expect(ann.locator(f"{BOARD} .duell-log")).to_contain_text(
        f"Bob moves {bob_move['card']} {bob_move['dir']} to space {to}.")
    expect(ann.locator("#turn-indicator")).to_have_text("Your move")

    # The resumed socket carries play on both ways.
    _, doc = play(ann, cautious)
    wait_version(bob, doc["version"])
    expect(ann.locator("#error-message")).to_be_hidden()


# ------------------------------------------------------------------------------------------
class Valve:
    """Routes a page's match websocket through Playwright. Once the page has received a view
    that gives it the move, later messages from the server are held back (a connection that
    lags) until release(); what the page sends still goes straight to the server."""

    def __init__(self, page):
        self.hold = False
        self.held: list = []
        self.sockets: list = []
        page.route_web_socket(re.compile(r"/ws/matches/"), self._route)

    @staticmethod
    def _gives_the_move(message) -> bool:
        try:
            msg = json.loads(message)
        except (TypeError, ValueError):
            return False
        return (isinstance(msg, dict) and msg.get("type") == "view" and msg.get("status") == "live"
                and msg.get("seat") is not None and msg["seat"] in (msg.get("pending") or []))

    def _route(self, ws):
        server = ws.connect_to_server()
        self.sockets.append(ws)

        def from_server(message):
            if self.hold:
                self.held.append(message)
                return
            ws.send(message)
            if self._gives_the_move(message):
                self.hold = True

        server.on_message(from_server)

    def release(self):
        self.hold = False
        ws = self.sockets[-1]
        for message in self.held:
            ws.send(message)
        self.held.clear()


def test_c_rejected_move_shows_a_message(new_page):
    """The board only offers legal moves, so a rejection needs a race: Ann's connection lags
    (her page is frozen on the view that gave her the move), her 5 s clock runs out (the server
    moves for her; Bob is to move), and she clicks a move on her stale board. The server refuses
    it and the page says so in #error-message; then it catches up."""
    ann, bob = new_page("Ann"), new_page("Bob")
    valve = Valve(ann)
    open_app(ann), open_app(bob)
    sign_in(ann, "Ann")
    match_id, _ = create_duell(ann, mode="prologo", duels_to_win=1, clock_seconds=5)
    sign_in(bob, "Bob")
    join_from_lobby(bob, match_id, host="Ann")
    wait_board(ann)
    wait_board(bob)
    ann_seat, bob_seat = view(ann)["seat"], view(bob)["seat"]
    assert ann_seat != bob_seat

    if view(bob)["pending"] == [bob_seat]:
        # Bob starts: his move gives Ann the move (the valve closes right after that view).
        try:
            play(bob, cautious)
        except (AssertionError, PlaywrightError):
            pass  # only on a badly overloaded machine: Bob's own 5 s ran out and the server moved
    ann.wait_for_function("() => { const v = window.duelhall.view();"
                          " return v.status === 'live' && v.pending.includes(v.seat); }")
    assert valve.hold
    stale = view(ann)
    assert my_turn(stale)

    action = cautious(stale)
    select_card(ann, action)
    # Ann's clock runs out: the server moves for her and Bob (not lagging) is to move.
    bob.wait_for_function(
        "(s) => (window.duelhall.view().pending || []).includes(s)", arg=bob_seat)
    bob_turn = view(bob)
    assert view(ann)["version"] == stale["version"], "Ann's page was not frozen"
    space(ann, target_space(stale, action)).click()
    expect(ann.locator(f"{BOARD} .duell-actions")).to_contain_text("Sending…")
    ann.wait_for_timeout(300)  # the refusal is on its way back (held)
    valve.release()

    error = ann.locator("#error-message")
    expect(error).to_be_visible()
    expect(error).to_have_text("Move rejected: It is not your turn.")
    # The board says it too, until the next position replaces it (on a very slow machine
    # Bob's own 5 s can run out first, and then the board has moved on).
    ann.wait_for_function(
        """(v) => {
            const msg = document.querySelector('#board section.duell .duell-message');
            if (msg && msg.textContent.includes('Move rejected: It is not your turn.')) return 'shown';
            return window.duelhall.view().version > v ? 'moved on' : false;
        }""", arg=bob_turn["version"])
    # The page then catches up with the real position: the clock's move for Ann is on her
    # board (and the message stays until her next action).
    doc = wait_version(ann, bob_turn["version"])
    assert doc["version"] > stale["version"]
    expect(ann.locator(f"{BOARD} .duell-log li.log-timeout").filter(
        has_text=re.compile(r"^Ann\b.*clock ran out"))).not_to_have_count(0)
    expect(error).to_have_text("Move rejected: It is not your turn.")
    if view(ann)["version"] == bob_turn["version"]:  # (Bob's own 5 s may be up by now)
        assert view(ann)["state"]["positions"] == bob_turn["state"]["positions"]


# ------------------------------------------------------------------------------------------
def test_d_spectators_see_the_board_but_no_hands(new_page):
    """A spectator from the lobby's live list and one from the invite link see the board and
    its updates, but never a card of either hand."""
    cid, dee = new_page("Cid"), new_page("Dee")
    spies = {cid: ViewSpy(cid), dee: ViewSpy(dee)}
    open_app(cid)
    ann, bob, _, match_id, invite = start_match(new_page)
    by_seat = seats(ann, bob)
    _, doc = play(by_seat[to_move(by_seat)], cautious)
    sync((ann, bob), doc["version"])

    sign_in(cid, "Cid")
    row = cid.locator(f"[data-testid=live-match][data-match-id='{match_id}']")
    expect(row).to_contain_text("Ann")
    expect(row).to_contain_text("Bob")
    row.locator("[data-testid=spectate]").click()
    cid.wait_for_url(f"**/#/match/{match_id}")
    sign_in(dee, "Dee", url=invite)  # the invite link asks for a name, then opens the match
    assert dee.url == invite

    for page in (cid, dee):
        doc = wait_board(page)
        assert doc["seat"] is None and doc["version"] >= view(ann)["version"]
        board = page.locator(BOARD)
        expect(page.locator("#turn-indicator")).to_contain_text("You are watching")
        expect(board.locator(".duell-status")).to_contain_text("You are watching")
        expect(board.locator(".duell-hand")).to_be_hidden()
        expect(board.locator("button.duell-card")).to_have_count(0)
        expect(board.locator(".duell-actions button")).to_have_count(0)
        expect(page.locator("#resign-button")).to_have_count(0)
        # Both players' hands are face down: backs only, as many as each holds.
        expect(board.locator(".duell-opp")).to_have_count(2)
        expect(board.locator(".duell-opp .duell-card-face")).to_have_count(0)
        sizes = doc["state"]["hand_sizes"]
        expect(board.locator(".duell-opp .duell-card-back")).to_have_count(sum(sizes.values()))

    # The spectators follow the play live.
    seat = to_move(by_seat)
    move, doc = play(by_seat[seat], cautious)
    name = "Ann" if by_seat[seat] is ann else "Bob"
    to = doc["state"]["positions"][seat]
    for page in (cid, dee):
        assert wait_version(page, doc["version"])["state"]["positions"] == doc["state"]["positions"]
        expect(page.locator(f"{BOARD} .duell-log")).to_contain_text(
            f"{name} moves {move['card']} {move['dir']} to space {to}.")
        expect(page.locator(f"{BOARD} .duell-opp .duell-card-face")).to_have_count(0)
        assert spies[page].assert_secret_kept(None) >= 2

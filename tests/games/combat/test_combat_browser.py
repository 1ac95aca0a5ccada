"""Combat in a real browser: the lobby for groups, the board (static/games/combat.js) and the
result, against the real server started as a subprocess.

Three browser contexts (three guest users) use the product as people do: the host creates a
table in the lobby, the others join from the open list, everybody plays by pressing the board's
"Fight!" button (one of them with the keyboard), and all of them see the final standings and
the result banner. ``window.duelhall.view()`` (the shell's test handle) and the view documents
the pages receive (websocket frames and HTTP views) are only READ: to know whose turn it is and
to check that no page ever receives a draw-pile order or a face-down card value.

The browser tests are skipped only when /usr/bin/chromium is missing and CI is not "true".
"""
from __future__ import annotations

import json
import re
import time

import pytest

from tests.browser_support import BROWSER_MARKS, ROOT, chromium, run_server, server_env

STATIC = ROOT / "static"
LANGS = ("en", "it", "pt", "hu")
ENTRY_KEYS = {"down", "cards", "value", "op", "text"}

browser_test = BROWSER_MARKS[1]


# ------------------------------------------------------------------------------ catalogues
def _catalogue(lang: str) -> dict:
    return json.loads((STATIC / "i18n" / lang / "combat.json").read_text(encoding="utf-8"))


def _base_keys(cat: dict) -> set[str]:
    """Keys without their plural variants (`_one`, `_few`... are optional per language)."""
    return {k for k in cat if not re.search(r"_(zero|one|two|few|many)$", k)}


def test_catalogues_cover_every_string_of_the_board_and_the_form():
    """Every key the board asks for exists in English, and the four languages hold the same
    keys; every option of the game has a label (and every choice a name) in each language."""
    from games.combat import GAME

    en = _catalogue("en")
    source = (STATIC / "games" / "combat.js").read_text(encoding="utf-8")
    # t("key", ...) and the keys picked by a ternary: t(cond ? "a" : "b", ...)
    used = set(re.findall(r'\bt\("([a-z0-9_]+)"', source))
    used |= set(re.findall(r'\bt\([^()"]*\?\s*"([a-z0-9_]+)"\s*:\s*"[a-z0-9_]+"', source))
    used |= set(re.findall(r'\bt\([^()"]*\?\s*"[a-z0-9_]+"\s*:\s*"([a-z0-9_]+)"', source))
    # keys built from the view: variants, endings, reasons a seat is out
    from games.combat import rules as R

    used |= {f"variant_{v}" for v in R.VARIANTS} | {f"variant_{v}_desc" for v in R.VARIANTS}
    used |= {f"ending_{e}" for e in R.ENDINGS}
    used |= {f"out_{r}" for r in ("resigned", "timeouts", "no_cards")}
    assert len(used) > 60
    missing = sorted(k for k in used if f"combat.{k}" not in en)
    assert not missing, f"keys missing from en/combat.json: {missing}"

    schema = GAME.options_schema()["properties"]
    wanted = {f"options.{n}" for n in schema} | {f"options.{n}_help" for n in schema}
    for name, prop in schema.items():
        wanted |= {f"options.{name}.{v}" for v in prop.get("enum", []) if v is not None}
    wanted |= {f"reason.{r}" for r in ("cards_out", "last_standing", "all_out", "max_battles")}
    for lang in LANGS:
        cat = _catalogue(lang)
        assert _base_keys(cat) == _base_keys(en), lang
        assert not sorted(wanted - set(cat)), (lang, sorted(wanted - set(cat)))
        for key, text in cat.items():
            assert text.strip(), (lang, key)
            # the same placeholders as English
            assert set(re.findall(r"\{(\w+)\}", text)) <= set(
                re.findall(r"\{(\w+)\}", en.get(key) or en[re.sub(r"_(one|few|many)$", "", key)])
            ), (lang, key)


# ----------------------------------------------------------------------------------- server
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The real app in a subprocess on a free port, with its own DATA_DIR."""
    data_dir = tmp_path_factory.mktemp("combat-browser")
    with run_server(data_dir, server_env(data_dir, "combat")) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium(expect_timeout_ms=15_000) as b:  # the waiting room polls every 2 s; CI is slow
        yield b


class Player:
    """One person: a browser context of their own (own storage, so own guest user), a page,
    and every view document the page received."""

    def __init__(self, browser, base: str, name: str):
        self.name = name
        self.ctx = browser.new_context(base_url=base, locale="en-US",
                                       viewport={"width": 1280, "height": 1000})
        self.ctx.set_default_timeout(15_000)
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.docs: list[dict] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.page.route("**/api/matches/*/view*", self._http_view)

    def _frame(self, payload) -> None:
        if isinstance(payload, bytes):
            payload = payload.decode("utf-8", "replace")
        try:
            msg = json.loads(payload)
        except ValueError:
            return
        if isinstance(msg, dict) and msg.get("type") == "view":
            self.docs.append(msg)

    def _http_view(self, route) -> None:
        response = route.fetch()
        try:
            self.docs.append(response.json())
        except ValueError:
            pass
        route.fulfill(response=response)

    # -- reading ---------------------------------------------------------------------------
    def view(self) -> dict | None:
        return self.page.evaluate("() => window.duelhall ? window.duelhall.view() : null")

    def peek(self) -> dict:
        """The page's current view document, as the shell holds it (one round trip)."""
        raw = self.page.evaluate(
            "() => JSON.stringify(window.duelhall ? window.duelhall.view() : null)")
        return json.loads(raw)

    def wait_newer(self, version: int) -> None:
        self.page.wait_for_function(
            "(v) => { const d = window.duelhall && window.duelhall.view();"
            " return !!d && d.version > v; }", arg=version, polling=25)

    def close(self) -> None:
        self.ctx.close()


def open_all(players: list[Player]) -> None:
    """Start loading every page at once (they load side by side while the first signs in)."""
    for p in players:
        p.page.goto("/", wait_until="commit")


def sign_in(p: Player) -> None:
    from playwright.sync_api import expect

    if not p.page.url.startswith("http"):
        p.page.goto("/")
    p.page.fill("#name-input", p.name)
    p.page.click("#name-submit")
    expect(p.page.locator("#user-name")).to_contain_text(p.name)


def create_combat(p: Player, seats: int | None, variant: str) -> str:
    """In the lobby: choose Combat, fill the form (its labels come from combat.json), create.
    Returns the match id."""
    from playwright.sync_api import expect

    en = _catalogue("en")
    page = p.page
    page.select_option("#create-game", "combat")
    form = page.locator("#create-form")
    # the game's own catalogue names its options and their choices
    expect(form.locator("label[for=opt-variant]")).to_have_text(en["options.variant"])
    expect(form.locator("label[for=opt-seats]")).to_have_text(en["options.seats"])
    form.locator("[name=variant]").select_option(label=en[f"options.variant.{variant}"])
    form.locator("[name=seats]").fill("" if seats is None else str(seats))
    page.click("#create-submit")
    expect(page.locator("[data-testid=waiting-room]")).to_be_visible()
    return re.search(r"#/match/([^/?]+)$", page.url).group(1)


def join_from_lobby(p: Player, match_id: str) -> None:
    from playwright.sync_api import expect

    row = p.page.locator(f"[data-testid=open-match][data-match-id='{match_id}']")
    expect(row).to_be_visible()
    row.locator("[data-testid=join]").click()
    p.page.wait_for_url(f"**/#/match/{match_id}")
    expect(p.page.locator("[data-testid=waiting-room]")).to_be_visible()


def wait_board(p: Player) -> dict:
    from playwright.sync_api import expect

    expect(p.page.locator("#board section.combat svg.cb-svg")).to_be_visible()
    p.page.wait_for_function("() => { const v = window.duelhall && window.duelhall.view();"
                             " return !!(v && v.state && v.status === 'live'); }")
    return p.view()


# --------------------------------------------------------------------------------- secrecy
def _walk(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "result":  # {"draw": bool, "places": ...}: nothing secret, other meanings
                continue
            yield path + "." + str(k), k, v
            yield from _walk(v, path + "." + str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]")


def assert_no_secrets(doc: dict) -> None:
    """No draw-pile order, no prisoner contents, no face-down card values, no seed."""
    raw = json.dumps(doc)
    assert "down_cards" not in raw and '"hidden"' not in raw and '"seed"' not in raw, raw[:400]
    for path, key, value in _walk(doc):
        if key in ("draw", "prisoners", "down", "set_aside", "face_down"):
            # counts only: a pile's order would be a list or a string
            assert isinstance(value, int) and not isinstance(value, bool), (path, value)
    for event in doc.get("events") or []:
        assert event.get("type") != "face_down", event
    st = doc.get("state")
    if not st:
        return
    assert {st["seats"][s]["draw"] for s in st["seats"]} <= set(range(81))
    rounds = list(st["table"]["rounds"]) + list((st.get("last_battle") or {}).get("rounds") or [])
    rounds += [e["attacks"] for e in doc.get("events") or [] if e.get("type") == "attack"]
    for rnd in rounds:
        for entry in rnd.values():
            assert set(entry) == ENTRY_KEYS, entry
            assert len(entry["cards"]) <= st["attack_cards"], entry


def formula(entry: dict) -> str:
    """What the board writes for an attack."""
    cards, op, value = entry["cards"], entry["op"], entry["value"]
    if len(cards) <= 1 or op == "card":
        return str(value)
    if op == "sum":
        return " + ".join(map(str, cards)) + f" = {value}"
    if op == "subtract":
        return f"{max(cards)} − {min(cards)} = {value}"
    return " × ".join(map(str, cards)) + f" = {value}"


def my_fight(doc: dict | None) -> bool:
    return bool(doc and doc.get("status") == "live" and not doc.get("result")
                and doc.get("seat") in (doc.get("pending") or [])
                and any(a.get("type") == "fight" for a in doc.get("legal") or []))


def press_fight(p: Player, doc: dict, keyboard: bool) -> None:
    """Press the board's Fight button (with the mouse, or Tab-focus + Enter) and wait for the
    page to receive the view that follows."""
    button = p.page.locator("#board section.combat button[data-testid=fight]")
    button.wait_for(state="visible")
    if keyboard:
        button.focus()
        assert p.page.evaluate("() => document.activeElement.dataset.testid") == "fight"
        p.page.keyboard.press("Enter")
    else:
        button.click()
    p.wait_newer(doc["version"])


# The view document and what the board drew from it, read in one go (one JS task: no view
# can arrive in between).
SNAPSHOT_JS = """() => {
  const doc = window.duelhall ? window.duelhall.view() : null;
  const board = document.querySelector('#board section.combat');
  if (!doc || !board) return JSON.stringify({doc});
  const text = (el) => (el ? el.textContent : null);
  const pods = {}, stakes = {};
  for (const g of board.querySelectorAll('g.cb-pod')) {
    pods[g.dataset.seat] = {
      draw: text(g.querySelector('.cb-draw .cb-pile-count')),
      prisoners: text(g.querySelector('.cb-prisoners .cb-pile-count')),
      classes: g.getAttribute('class').split(' '),
    };
  }
  for (const g of board.querySelectorAll('g.cb-stake')) stakes[g.dataset.seat] = text(g.querySelector('.cb-formula'));
  const fight = board.querySelector('button[data-testid=fight]');
  const stamp = board.querySelector('.cb-war-stamp');
  return JSON.stringify({
    doc, pods, stakes,
    backs: board.querySelectorAll('.cb-trail .cb-back').length,
    war: board.dataset.war,
    stamp: !!stamp && stamp.getBoundingClientRect().width > 0,
    fight: fight ? fight.textContent.trim() : null,
  });
}"""


def check_table(snap: dict, seen: dict) -> None:
    """What the board shows matches the view: every seat's piles, who is pending, the
    attacks with their formulas, face-down cards as card backs, the war stamp."""
    doc = snap["doc"]
    st = doc["state"]
    assert set(snap["pods"]) == set(st["seats"])
    for seat, x in st["seats"].items():
        pod = snap["pods"][seat]
        assert (pod["draw"], pod["prisoners"]) == (str(x["draw"]), str(x["prisoners"])), (seat, pod)
        assert ("pending" in pod["classes"]) == x["pending"], (seat, x, pod)
    rounds = st["table"]["rounds"] or (st["last_battle"] or {}).get("rounds") or []
    if rounds:
        assert snap["stakes"] == {s: formula(e) for s, e in rounds[-1].items()}, snap["stakes"]
        seen["formulas"] += len(rounds[-1])
    if sum(e["down"] for r in rounds for e in r.values()):
        assert snap["backs"] >= 1  # face-down war cards are drawn as card backs
        seen["backs"] += 1
    if st["clash"] and st["clash"]["kind"] == "war":
        assert snap["war"] == "1" and snap["stamp"]
        if my_fight(doc):
            assert snap["fight"].endswith(_catalogue("en")["combat.to_war"])
        seen["war"] += 1
    elif my_fight(doc):
        assert snap["fight"].endswith(_catalogue("en")["combat.fight"])


def play_out(players: list[Player], keyboard: set[str], seen: dict, limit_s: float = 150) -> None:
    """Everyone presses Fight whenever their board offers it, until every page has the result.
    Presses on different pages do not wait for each other (the board hides its button while
    an action is on its way, so nobody presses twice). About 30 presses: some 15 s on a quiet
    machine; the limit is only a safety net."""
    deadline = time.monotonic() + limit_s
    while True:
        assert time.monotonic() < deadline, (
            "the match did not finish in time: "
            + repr({p.name: (p.view() or {}).get("state", {}).get("battles_done") for p in players}))
        done = 0
        acted = False
        for p in players:
            snap = json.loads(p.page.evaluate(SNAPSHOT_JS))
            doc = snap["doc"]
            assert_no_secrets(doc)
            if doc.get("result"):
                done += 1
                continue
            if not my_fight(doc) or not snap.get("fight"):
                continue
            check_table(snap, seen)
            seen["checks"] += 1
            button = p.page.locator("#board section.combat button[data-testid=fight]")
            if p.name in keyboard:
                button.focus()
                p.page.keyboard.press("Enter")
            else:
                button.click()
            acted = True
        if done == len(players):
            return
        if not acted:
            players[0].page.wait_for_timeout(30)


def check_finish(players: list[Player]) -> dict:
    """Every page shows the result banner and the final standings, ties sharing a place."""
    from playwright.sync_api import expect

    en = _catalogue("en")
    result = None
    for p in players:
        expect(p.page.locator("#result-banner")).to_be_visible()
        board = p.page.locator("#board section.combat")
        expect(board).to_have_attribute("data-over", "1")
        expect(board.locator(".combat-standings-box h3")).to_have_text(en["combat.final_standings"])
        doc = p.view()
        assert_no_secrets(doc)
        result = result or doc["result"]
        assert doc["result"] == result
        places = {r.get_attribute("data-seat"): int(r.get_attribute("data-place"))
                  for r in board.locator("table.combat-standings tbody tr").all()}
        assert places == result["places"]
        shared = [s for s, n in places.items() if list(places.values()).count(n) > 1]
        for seat in shared:
            row = board.locator(f"table.combat-standings tbody tr[data-seat={seat}] .cb-st-place")
            assert row.inner_text().startswith("=")
        # no Fight button and no concede once it is over
        assert board.locator("button[data-testid=fight], button[data-testid=concede]").count() == 0
        assert board.locator(".combat-log li.log-end").count() == 1
    return result


# ------------------------------------------------------------------------------------ tests
@browser_test
@pytest.mark.browser
def test_three_players_lobby_to_final_standings(server, browser):
    """The host opens a table for 2-6 (no size: the host starts it), two friends join from the
    lobby (one leaves and comes back: leaving frees the seat), the host starts, everyone
    fights by clicking (Cy by keyboard) until the cards run out, and all three see the final
    standings and the result banner. No page ever received a secret."""
    from playwright.sync_api import expect

    ann, bob, cy = (Player(browser, server, n) for n in ("Ann", "Bob", "Cy"))
    players = [ann, bob, cy]
    try:
        open_all(players)
        sign_in(ann)
        match_id = create_combat(ann, seats=None, variant="basic")
        start = ann.page.locator("#start-button")
        expect(start).to_be_disabled()  # one player is not enough
        sign_in(bob)
        join_from_lobby(bob, match_id)
        sign_in(cy)
        join_from_lobby(cy, match_id)
        expect(ann.page.locator("[data-testid=waiting-room] .lead")).to_contain_text("3 of 6")
        # Cy leaves before the start: the seat is free again, then Cy comes back.
        cy.page.click("#leave-button")
        cy.page.wait_for_url(re.compile(r"#/$"))
        expect(ann.page.locator("[data-testid=waiting-room] .lead")).to_contain_text("2 of 6")
        join_from_lobby(cy, match_id)
        expect(ann.page.locator("[data-testid=waiting-room] .lead")).to_contain_text("3 of 6")
        expect(start).to_be_enabled()
        # only the host has a Start button
        assert bob.page.locator("#start-button").count() == 0
        start.click()

        docs = [wait_board(p) for p in players]
        assert sorted(d["seat"] for d in docs) == ["A", "B", "C"]
        st = docs[0]["state"]
        assert st["variant"] == "basic" and st["deck_size"] == 40 and len(st["seats"]) == 3
        assert sum(x["draw"] for x in st["seats"].values()) == 40
        for p in players:
            board = p.page.locator("#board section.combat")
            expect(board.locator("g.cb-pod")).to_have_count(3)
            # your own seat is marked, at the bottom of the table
            assert board.locator("g.cb-pod.me").get_attribute("data-seat") == p.view()["seat"]
        seen = {"war": 0, "backs": 0, "formulas": 0, "checks": 0}
        play_out(players, keyboard={"Cy"}, seen=seen)
        assert seen["formulas"] > 0
        result = check_finish(players)
        assert result["reason"] == "cards_out"
        assert sum(result["scores"].values()) <= 40
        # the log told the battles in words
        log = ann.page.locator("#board .combat-log").inner_text()
        assert "wins battle" in log and ("wins the Combat" in log or "first place shared" in log)
        for p in players:
            assert len(p.docs) > 10, (p.name, len(p.docs))
            for doc in p.docs:
                assert_no_secrets(doc)
            assert not p.errors, (p.name, p.errors)
    finally:
        for p in players:
            p.close()


@browser_test
@pytest.mark.browser
def test_fixed_table_starts_when_full_and_concede_with_confirmation(server, browser):
    """A table of 3 (options.seats = 3) has no Start button and starts when the third player
    joins; attacks show their formula ("7 × 6 = 42"); conceding asks first, puts the seat out
    and the others play on; the last one standing wins, and everyone sees it."""
    from playwright.sync_api import expect

    en = _catalogue("en")
    ann, bob, cy = (Player(browser, server, n) for n in ("Ann", "Bob", "Cy"))
    players = [ann, bob, cy]
    try:
        open_all(players)
        sign_in(ann)
        match_id = create_combat(ann, seats=3, variant="multiply")
        expect(ann.page.locator("[data-testid=waiting-room] .lead")).to_contain_text("1 of 3")
        assert ann.page.locator("#start-button").count() == 0
        sign_in(bob)
        join_from_lobby(bob, match_id)
        assert ann.page.locator("#start-button").count() == 0
        sign_in(cy)
        row = cy.page.locator(f"[data-testid=open-match][data-match-id='{match_id}']")
        expect(row.locator("[data-testid=seats]")).to_have_text("2 / 3")
        row.locator("[data-testid=join]").click()
        docs = [wait_board(p) for p in players]  # full: it started by itself
        seat = {p.name: d["seat"] for p, d in zip(players, docs)}

        # one battle, everybody by mouse; then the multiplication is on the table
        for p in players:
            press_fight(p, p.view(), keyboard=False)
        for p in players:
            p.page.wait_for_function("() => !!window.duelhall.view().state.last_battle")
            doc = p.view()
            last = doc["state"]["last_battle"]
            for s, entry in last["rounds"][-1].items():
                text = p.page.locator(f"#board g.cb-stake[data-seat={s}] .cb-formula").text_content()
                assert text == formula(entry)
                assert " × " in text or len(entry["cards"]) == 1

        # Ann concedes: the board asks first; "Keep fighting" keeps her in
        board = ann.page.locator("#board section.combat")
        board.locator("button[data-testid=concede]").click()
        expect(board.locator(".combat-confirm")).to_contain_text(en["combat.concede_confirm"])
        board.locator(".combat-confirm-no").click()
        expect(board.locator(".combat-confirm")).to_have_count(0)
        assert ann.view()["state"]["seats"][seat["Ann"]]["out"] is None
        version = ann.view()["version"]
        board.locator("button[data-testid=concede]").click()
        board.locator("button[data-testid=concede-yes]").click()
        ann.wait_newer(version)
        for p in players:
            p.page.wait_for_function(
                "(s) => window.duelhall.view().state.seats[s].out === 'resigned'", arg=seat["Ann"])
            pod = p.page.locator(f"#board g.cb-pod[data-seat={seat['Ann']}]")
            expect(pod).to_have_class(re.compile(r"\bout\b"))
            expect(p.page.locator("#board .combat-log")).to_contain_text(
                re.compile(r"Ann( \(you\))? concedes"))
        assert board.locator("button[data-testid=fight], button[data-testid=concede]").count() == 0

        # the others play on for a battle, then Bob concedes too: Cy is the last one standing
        for p in (bob, cy):
            doc = p.view()
            if my_fight(doc):
                press_fight(p, doc, keyboard=False)
        bob_board = bob.page.locator("#board section.combat")
        bob_board.locator("button[data-testid=concede]").click()
        bob_board.locator("button[data-testid=concede-yes]").click()
        result = check_finish(players)
        assert result["reason"] == "last_standing" and result["winner"] == seat["Cy"]
        assert result["places"] == {seat["Cy"]: 1, seat["Bob"]: 2, seat["Ann"]: 3}
        expect(cy.page.locator("#result-banner")).to_contain_text("You won")
        expect(ann.page.locator("#result-banner")).to_contain_text("Cy won")
        for p in players:
            for doc in p.docs:
                assert_no_secrets(doc)
            assert not p.errors, (p.name, p.errors)
    finally:
        for p in players:
            p.close()

"""The browser client works under the server's Content-Security-Policy (app/main.py): every
board, the lobby and the other pages load and run in chromium without a single CSP violation,
while an inline script, which the policy exists to stop, is blocked and reported."""
from __future__ import annotations

import json

import pytest

from tests.browser.duell_ui import open_app, sign_in

pytestmark = pytest.mark.browser

# Recorded before any page script runs: every CSP violation the page meets.
COLLECT = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""
GAMES = {"duell": {}, "duel": {}, "combat": {"seats": 2}, "parbaj": {}}


def api(page, method: str, path: str, body=None) -> dict:
    """A call with the page's own token (as the client makes them)."""
    return page.evaluate(
        """async ([method, path, body]) => {
             const token = localStorage.getItem('duelhall.token');
             const res = await fetch(path, {method, headers: {'Content-Type': 'application/json',
               Authorization: `Bearer ${token}`}, body: body === null ? undefined : JSON.stringify(body)});
             return {status: res.status, body: await res.json()};
           }""", [method, path, body])


def violations(page) -> list[str]:
    return page.evaluate("() => window.__cspViolations")


def test_every_board_and_page_runs_under_the_policy(new_page):
    ann, bob = new_page("Ann"), new_page("Bob")
    console: list[str] = []
    for page in (ann, bob):
        page.add_init_script(COLLECT)
        page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text else None)
    response = ann.goto("/")
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    sign_in(ann, "Ann")
    open_app(bob)
    sign_in(bob, "Bob")

    for game, options in GAMES.items():
        made = api(ann, "POST", "/api/matches", {"game": game, "options": options})
        assert made["status"] == 200, made
        mid = made["body"]["id"]
        joined = api(bob, "POST", f"/api/matches/{mid}/join")
        assert joined["status"] == 200 and joined["body"]["status"] == "live", joined
        for page in (ann, bob):
            page.evaluate("(id) => { location.hash = `#/match/${id}`; }", mid)
            page.wait_for_function(
                "(id) => { const v = window.duelhall && window.duelhall.view();"
                " return !!(v && v.match === id && v.status === 'live'); }", arg=mid)
            page.locator(f"#board .board-host[data-game={game}]").wait_for()
            page.wait_for_function(  # the board drew something (SVG or HTML)
                "(g) => document.querySelector(`#board .board-host[data-game=${g}]`)"
                ".querySelectorAll('*').length > 10", arg=game)
            page.wait_for_timeout(300)  # its stylesheet and images
        for page in (ann, bob):
            assert violations(page) == [], (game, violations(page))

    me = api(ann, "GET", "/api/me")["body"]["id"]
    for route in ("#/decks", "#/tournaments", "#/leaderboard/duell", f"#/users/{me}", "#/"):
        ann.evaluate("(r) => { location.hash = r; }", route)
        ann.wait_for_timeout(800)
    assert violations(ann) == [] and violations(bob) == []
    assert console == []

    # The policy is really enforced and the collector really collects.
    ran = ann.evaluate("""() => { const s = document.createElement('script');
                                  s.textContent = 'window.__inlineRan = true;';
                                  document.head.appendChild(s); return window.__inlineRan === true; }""")
    ann.wait_for_timeout(200)
    assert ran is False
    assert any(v.startswith("script-src") for v in violations(ann)), json.dumps(violations(ann))

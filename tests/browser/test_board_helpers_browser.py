"""static/games/board.js, the helpers every game board shares, run in the browser the boards
run in: the clock text and its urgent mark, the DOM builders' rules for attributes and
children, and submitAction's single report (applied, refused, or nothing once unmounted)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PROBE = """async () => {
  const b = await import('/static/games/board.js');
  const out = {};
  const clock = document.createElement('div');
  const label = (ms) => `Clock ${b.fmtClock(ms)}`;
  b.showClock(clock, new Date(Date.now() + 95_000).toISOString(), label);
  out.calm = [clock.textContent, clock.classList.contains('urgent')];
  b.showClock(clock, new Date(Date.now() + 4_200).toISOString(), label);
  out.urgent = [clock.textContent, clock.classList.contains('urgent')];
  b.showClock(clock, null, label);
  out.none = [clock.textContent, clock.classList.contains('urgent')];
  out.fmt = [b.fmtClock(0), b.fmtClock(-5), b.fmtClock(59_001), b.fmtClock(600_000)];

  let clicks = 0;
  const node = b.el('p', { class: 'x', hidden: true, title: false, text: 'first', onclick: () => clicks++ },
                    [null, 'a', [b.el('b', {}, 'b'), [false, 2]], undefined]);
  node.click();
  out.el = [node.outerHTML, clicks];
  out.svg = b.svg('rect', { width: 3 }).namespaceURI;
  out.same = [b.same({ a: [1, 2] }, { a: [1, 2] }), b.same({ a: 1 }, { a: 2 })];

  const reports = [];
  const wait = () => new Promise((r) => setTimeout(r, 0));
  b.submitAction({ act: async () => ({}) }, {}, () => true, (m) => reports.push(['ok', m]));
  b.submitAction({ act: async () => { throw { code: 'illegal_action', message: 'Not now.' }; } }, {},
                 () => true, (m) => reports.push(['refused', m]));
  b.submitAction({ act: async () => { throw { code: 'out_of_turn' }; } }, {}, () => true,
                 (m) => reports.push(['code', m]));
  b.submitAction({ act: async () => { throw new Error('x'); } }, {}, () => false,
                 (m) => reports.push(['unmounted', m]));
  await wait(); await wait();
  out.reports = reports;
  return out;
}"""


def test_board_helpers(new_page):
    page = new_page("helpers")
    page.goto("/")
    out = page.evaluate(PROBE)
    assert out["calm"] == ["Clock 1:35", False]
    assert out["urgent"] == ["Clock 0:05", True]
    assert out["none"] == ["", False]
    assert out["fmt"] == ["0:00", "0:00", "1:00", "10:00"]
    html, clicks = out["el"]
    # text sets the content first, children follow; null/undefined/false dropped, arrays flattened
    assert html == '<p class="x" hidden="">firsta<b>b</b>2</p>'
    assert clicks == 1
    assert out["svg"] == "http://www.w3.org/2000/svg"
    assert out["same"] == [True, False]
    assert sorted(out["reports"]) == [["code", "out_of_turn"], ["ok", None], ["refused", "Not now."]]

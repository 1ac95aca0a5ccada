"""static/ws.js in the browser: a socket the server closes with 1012 ("service restart", a
deploy draining that server: docs/operations.md) is not fatal and reconnects at once, after a
random 0-1 s; a second 1012 soon after backs off as any other close. Other closes back off
(0.5 s doubling, 50-100 % jitter). The server's side: tests/app/test_drain.py and
tests/multiprocess/test_drain.py."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PROBE = """async (rnd) => {
  const { MatchSocket } = await import('/static/ws.js');
  const made = [];
  class FakeSocket {
    constructor() { this.readyState = 0; this.sent = []; made.push(this); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() {}
  }
  const sock = new MatchSocket('m1', { token: 't', WebSocket: FakeSocket, random: () => rnd });
  const out = { delays: [], statuses: [], fatal: 0 };
  sock.on('reconnect_scheduled', (ms) => out.delays.push(ms));
  sock.on('status', (s) => out.statuses.push(s));
  sock.on('fatal', () => out.fatal++);
  const opened = () => {
    const ws = made.at(-1);
    ws.readyState = 1;
    ws.onopen();
    return ws;
  };
  const reopened = async (n) => {
    while (made.length < n) await new Promise((r) => setTimeout(r, 5));
  };
  sock.connect();
  opened().onclose({ code: 1012 });           // a drain: straight back
  await reopened(2);
  opened().onclose({ code: 1012 });           // again at once: backs off this time
  await reopened(3);
  opened().onclose({ code: 1006 });           // a dropped socket: backs off
  out.sockets = made.length;
  sock.close();
  return out;
}"""


@pytest.mark.parametrize("rnd, quick, backoff", [(0.0, 0, 250), (0.999, 999, 500)])
def test_1012_reconnects_at_once_with_jitter_and_is_not_fatal(new_page, rnd, quick, backoff):
    page = new_page("restart")
    page.goto("/")
    out = page.evaluate(PROBE, rnd)
    assert out["fatal"] == 0 and "fatal" not in out["statuses"]
    # 1012: within the jitter (0-1 s), not the backoff; the second soon after: the backoff's
    # first step (0.5 s at 50-100 %); then a dropped socket: the first step again (it had opened).
    assert out["delays"] == [quick, backoff, backoff]
    assert out["statuses"].count("reconnecting") == 3 and out["sockets"] == 3

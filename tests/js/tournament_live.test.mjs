// static/tournaments/live.js: a tournament page's live updates on the shared socket client
// (static/ws.js), against a scripted WebSocket with Node's mocked timers: the notices, polling
// while the socket is down, a draft's final 4404 and wake(), close().
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';

import { POLL_MS, liveUpdates } from '../../static/tournaments/live.js';
import { fakeWebSocketClass } from './fake_websocket.mjs';

const LOC = { protocol: 'https:', host: 'duel.example' };
let WS;
let revisions;
let states;

function live(opts = {}) {
  return liveUpdates('t/7', {
    token: 'tok-123',
    onRevision: (rev) => revisions.push(rev),
    onStatus: (state) => states.push(state),
    WebSocket: WS,
    random: () => 1,
    loc: LOC,
    ...opts,
  });
}

function latest() {
  return WS.instances[WS.instances.length - 1];
}

beforeEach(() => {
  WS = fakeWebSocketClass();
  revisions = [];
  states = [];
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 0 });
});

afterEach(() => {
  mock.timers.reset();
});

describe('tournament live updates', () => {
  test('opens the event socket with the token as a subprotocol, never in the URL', () => {
    live();
    assert.equal(WS.instances.length, 1);
    assert.equal(latest().url, 'wss://duel.example/ws/tournaments/t%2F7');
    assert.deepEqual(latest().protocols, ['duelhall.v1', 'bearer.tok-123']);
  });

  test('live once open; each notice with a whole revision reaches the page, nothing else does', () => {
    live();
    latest().open();
    latest().receive({ type: 'tournament', id: 't/7', revision: 3 });
    latest().receive({ type: 'tournament', id: 't/7', revision: '4' });
    latest().receive({ type: 'error', code: 'rate_limited', message: 'Slow down.' });
    latest().receive({ type: 'tournament', id: 't/7', revision: 5 });
    assert.deepEqual(states, ['live']);
    assert.deepEqual(revisions, [3, 5]);
  });

  test('while the socket is down the page polls every 5 s; back live, the polling stops', () => {
    live();
    latest().open();
    latest().drop(1006);
    assert.deepEqual(states, ['live', 'polling']);
    mock.timers.tick(POLL_MS - 1);
    assert.deepEqual(revisions, []);
    mock.timers.tick(1); // 5 s: a poll, and the reconnect (0.5 s) went out long ago
    assert.deepEqual(revisions, [null]);
    assert.equal(WS.instances.length, 2);
    latest().open();
    mock.timers.tick(4 * POLL_MS);
    assert.deepEqual(revisions, [null], 'no polling while live');
    assert.deepEqual(states, ['live', 'polling', 'live']);
  });

  test('a draft refuses the socket (4404) for good: polling, no reconnects; wake() opens a new one', () => {
    const updates = live();
    latest().open();
    latest().receive({ type: 'error', code: 'not_found', message: 'There is no tournament with that id.' });
    latest().drop(4404);
    mock.timers.tick(60000);
    assert.equal(WS.instances.length, 1, 'a refused socket is not retried');
    assert.equal(revisions.length, 60000 / POLL_MS);
    assert.deepEqual(states, ['live', 'polling']);
    updates.wake(); // the organiser opened registration: the event is public now
    assert.equal(WS.instances.length, 2);
    latest().open();
    assert.deepEqual(states, ['live', 'polling', 'live']);
    latest().receive({ type: 'tournament', id: 't/7', revision: 9 });
    assert.equal(revisions.at(-1), 9);
    const polls = revisions.length;
    mock.timers.tick(3 * POLL_MS);
    assert.equal(revisions.length, polls, 'polling stopped');
  });

  test('wake() does nothing while the socket is fine or only reconnecting', () => {
    const updates = live();
    updates.wake();
    latest().open();
    updates.wake();
    latest().drop(1006);
    updates.wake();
    assert.equal(WS.instances.length, 1);
  });

  test('close() closes the socket (1000), stops polling and reconnecting', () => {
    const updates = live();
    latest().open();
    latest().drop(1006);
    mock.timers.tick(500);
    const ws = latest();
    updates.close();
    assert.deepEqual(ws.closedWith, { code: 1000, reason: 'bye' });
    const before = [WS.instances.length, revisions.length, states.length];
    mock.timers.tick(60000);
    assert.deepEqual([WS.instances.length, revisions.length, states.length], before);
    updates.wake();
    assert.equal(WS.instances.length, before[0]);
  });

  test('a heartbeat ping every 20 s (the server answers pong)', () => {
    live();
    latest().open();
    mock.timers.tick(20000);
    assert.deepEqual(latest().sent, [{ type: 'ping' }]);
  });
});

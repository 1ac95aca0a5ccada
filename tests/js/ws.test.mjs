// static/ws.js (MatchSocket) against a scripted WebSocket, with Node's mocked timers and clock:
// reconnect with jittered backoff, resume with `since`, re-sending unacknowledged actions with
// the same client_seq, the heartbeat, and the error paths.
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';

import { MatchSocket, matchSocketUrl, socketProtocols } from '../../static/ws.js';

/** A WebSocket class whose instances the test drives: open(), receive(), drop(). */
function fakeWebSocketClass() {
  class FakeWebSocket {
    static instances = [];

    constructor(url, protocols) {
      this.url = url;
      this.protocols = protocols;
      this.readyState = 0; // CONNECTING
      this.sent = [];
      this.closedWith = null;
      FakeWebSocket.instances.push(this);
    }

    send(text) {
      if (this.readyState !== 1) throw new Error('InvalidStateError');
      this.sent.push(JSON.parse(text));
    }

    close(code, reason) {
      // Like a browser: the close event comes later (the tests call drop() for it).
      this.closedWith = { code, reason };
      this.readyState = 2;
    }

    // ---- the server's side
    open() {
      this.readyState = 1;
      this.onopen?.({});
    }

    receive(msg) {
      this.onmessage?.({ data: JSON.stringify(msg) });
    }

    drop(code = 1006) {
      this.readyState = 3;
      this.onclose?.({ code });
    }
  }
  return FakeWebSocket;
}

/** Random numbers for the jitter, in order (the last one repeats). */
function sequence(...values) {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)];
}

let WS;

function newSocket(opts = {}) {
  return new MatchSocket('m1', { url: 'ws://test/ws/matches/m1', WebSocket: WS, random: () => 0, ...opts });
}

function latest() {
  return WS.instances[WS.instances.length - 1];
}

const actions = (ws) => ws.sent.filter((m) => m.type === 'action');

beforeEach(() => {
  WS = fakeWebSocketClass();
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 0 });
});

afterEach(() => {
  mock.timers.reset();
});

describe('matchSocketUrl', () => {
  test('wss behind https, ack=view in the query, the id encoded, never the token', () => {
    const url = matchSocketUrl('a/b', 't k', { protocol: 'https:', host: 'duel.example' });
    assert.equal(url, 'wss://duel.example/ws/matches/a%2Fb?ack=view');
  });

  test('the token travels as a subprotocol beside duelhall.v1', () => {
    assert.deepEqual(socketProtocols('t1'), ['duelhall.v1', 'bearer.t1']);
    assert.deepEqual(socketProtocols(null), ['duelhall.v1']);
    newSocket({ token: 't1' }).connect();
    assert.deepEqual(latest().protocols, ['duelhall.v1', 'bearer.t1']);
    assert.ok(!latest().url.includes('t1'));
  });

  test('ws behind http; no query without a token', () => {
    assert.equal(matchSocketUrl('m1', null, { protocol: 'http:', host: 'h:8000' }), 'ws://h:8000/ws/matches/m1');
  });
});

describe('connecting', () => {
  test('opens the given url and reports connecting, then connected', () => {
    const sock = newSocket();
    const statuses = [];
    sock.on('status', (s) => statuses.push(s));
    sock.connect();
    assert.equal(WS.instances.length, 1);
    assert.equal(latest().url, 'ws://test/ws/matches/m1');
    assert.deepEqual(statuses, ['connecting']);
    latest().open();
    assert.deepEqual(statuses, ['connecting', 'connected']);
    assert.deepEqual(latest().sent, [], 'a first connection has nothing to resume');
  });

  test('connect() while a socket is open or opening opens no second one', () => {
    const sock = newSocket();
    sock.connect();
    sock.connect();
    latest().open();
    sock.connect();
    assert.equal(WS.instances.length, 1);
  });
});

describe('reconnect', () => {
  test('backoff doubles from 0.5 s to 8 s, each delay jittered to 50-100 % of its step', () => {
    const sock = newSocket({ random: sequence(0, 1, 0.5, 0, 1, 1, 0) });
    const delays = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.connect();
    for (let i = 0; i < 7; i++) {
      const before = WS.instances.length;
      latest().drop();
      assert.equal(sock.status, 'reconnecting');
      const delay = delays[delays.length - 1];
      mock.timers.tick(delay - 1);
      assert.equal(WS.instances.length, before, `no new socket before ${delay} ms`);
      mock.timers.tick(1);
      assert.equal(WS.instances.length, before + 1, `a new socket after ${delay} ms`);
    }
    // steps 500, 1000, 2000, 4000, 8000, 8000 (capped), 8000; factors 0.5 + 0.5 * random
    assert.deepEqual(delays, [250, 1000, 1500, 2000, 8000, 8000, 4000]);
  });

  test('a connection that opened resets the backoff', () => {
    const sock = newSocket({ random: () => 1 });
    const delays = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.connect();
    latest().drop();
    mock.timers.tick(delays[0]);
    latest().drop();
    mock.timers.tick(delays[1]);
    latest().open();
    latest().drop();
    assert.deepEqual(delays, [500, 1000, 500]);
  });

  test('after a reconnect the socket asks to resume since the last view it saw', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 7, version: 3, client_seq: 0 });
    latest().drop();
    mock.timers.tick(250);
    latest().open();
    assert.deepEqual(latest().sent[0], { type: 'resume', since: 7 });
  });

  test('1012 (a server draining) is not fatal: back within 0-1 s, resumes, re-sends the queue', () => {
    const sock = newSocket({ random: sequence(0.3) });
    const delays = [];
    const statuses = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.on('status', (s) => statuses.push(s));
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 4, version: 4, client_seq: 2 });
    void sock.act({ type: 'wait' });
    latest().drop(1012);
    assert.deepEqual(delays, [300], 'the restart jitter (0.3 of 1 s), not the backoff (0.65 of 0.5 s)');
    mock.timers.tick(299);
    assert.equal(WS.instances.length, 1);
    mock.timers.tick(1);
    assert.equal(WS.instances.length, 2);
    latest().open();
    assert.deepEqual(latest().sent, [
      { type: 'resume', since: 4 },
      { type: 'action', action: { type: 'wait' }, client_seq: 3 },
    ]);
    assert.ok(!statuses.includes('fatal'));
    assert.deepEqual(statuses, ['connecting', 'connected', 'reconnecting', 'connected']);
  });

  test('a second 1012 within 8 s backs off as any close; after that a 1012 is quick again', () => {
    const sock = newSocket({ random: () => 1 });
    const delays = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.connect();
    latest().open();
    latest().drop(1012);
    mock.timers.tick(delays.at(-1));
    latest().open();
    latest().drop(1012); // the next server sent us away too: no tight loop
    mock.timers.tick(delays.at(-1));
    latest().open();
    mock.timers.tick(8000);
    latest().drop(1012);
    assert.deepEqual(delays, [1000, 500, 1000]);
  });

  test('an online event while reconnecting retries at once', () => {
    const target = new EventTarget();
    globalThis.addEventListener = target.addEventListener.bind(target);
    globalThis.removeEventListener = target.removeEventListener.bind(target);
    try {
      const sock = newSocket({ random: () => 1 });
      sock.connect();
      latest().drop();
      assert.equal(WS.instances.length, 1);
      target.dispatchEvent(new Event('online'));
      assert.equal(WS.instances.length, 2, 'reopened without waiting for the backoff');
      sock.close();
    } finally {
      delete globalThis.addEventListener;
      delete globalThis.removeEventListener;
    }
  });

  test('reconnectNow() on a live socket drops it and reopens, keeping the queue', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 1, version: 1, client_seq: 0 });
    void sock.act({ type: 'wait' });
    const first = latest();
    sock.reconnectNow();
    assert.deepEqual(first.closedWith, { code: 4000, reason: 'reconnect' });
    mock.timers.tick(250);
    assert.equal(WS.instances.length, 2);
    latest().open();
    assert.deepEqual(actions(latest()), [{ type: 'action', action: { type: 'wait' }, client_seq: 1 }]);
  });
});

describe('actions', () => {
  test('numbered from the first view client_seq + 1; the ack resolves act()', async () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 1, version: 1, client_seq: 4 });
    const done = sock.act({ type: 'play', card: 3 });
    assert.deepEqual(actions(latest()), [{ type: 'action', action: { type: 'play', card: 3 }, client_seq: 5 }]);
    assert.equal(sock.unacked, 1);
    latest().receive({ type: 'ack', client_seq: 5, version: 2 });
    assert.deepEqual(await done, { client_seq: 5, version: 2, duplicate: false });
    assert.equal(sock.unacked, 0);
  });

  test('actions asked for before the first view wait for its numbering', () => {
    const sock = newSocket();
    void sock.act({ type: 'a' });
    sock.connect();
    latest().open();
    void sock.act({ type: 'b' });
    assert.deepEqual(actions(latest()), [], 'nothing goes before the numbering is known');
    latest().receive({ type: 'view', seq: 1, version: 1, client_seq: 2 });
    assert.deepEqual(actions(latest()).map((m) => [m.action.type, m.client_seq]), [['a', 3], ['b', 4]]);
  });

  test('an unacknowledged action is re-sent after the reconnect with the same client_seq', async () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 4, version: 2, client_seq: 0 });
    const done = sock.act({ type: 'move', dir: 'forward' });
    latest().drop(); // the ack is lost with the socket
    const queued = sock.act({ type: 'pass' }); // asked for while disconnected
    mock.timers.tick(250);
    const ws = latest();
    ws.open();
    assert.deepEqual(ws.sent, [
      { type: 'resume', since: 4 },
      { type: 'action', action: { type: 'move', dir: 'forward' }, client_seq: 1 },
      { type: 'action', action: { type: 'pass' }, client_seq: 2 },
    ]);
    ws.receive({ type: 'ack', client_seq: 1, version: 3, duplicate: true });
    ws.receive({ type: 'ack', client_seq: 2, version: 4 });
    assert.deepEqual(await done, { client_seq: 1, version: 3, duplicate: true });
    assert.deepEqual(await queued, { client_seq: 2, version: 4, duplicate: false });
  });

  test('a view whose client_seq covers a queued action settles it (its ack was lost)', async () => {
    const sock = newSocket();
    const seen = [];
    sock.on('view', (v) => seen.push(v.version));
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 1, version: 1, client_seq: 0 });
    const done = sock.act({ type: 'wait' });
    latest().receive({ type: 'view', seq: 2, version: 2, client_seq: 1 });
    assert.deepEqual(await done, { client_seq: 1, version: 2, duplicate: false, applied: true });
    assert.deepEqual(seen, [1, 2]);
    assert.equal(sock.unacked, 0);
  });

  test('an error for an action rejects that action only', async () => {
    const sock = newSocket();
    const other = [];
    sock.on('error', (e) => other.push(e));
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 1, version: 1, client_seq: 0 });
    const bad = sock.act({ type: 'nonsense' });
    latest().receive({ type: 'error', code: 'illegal_action', message: 'No.', client_seq: 1 });
    await assert.rejects(bad, { code: 'illegal_action', message: 'No.', client_seq: 1 });
    latest().receive({ type: 'error', code: 'rate_limited', message: 'Slow down.' });
    assert.deepEqual(other, [{ code: 'rate_limited', message: 'Slow down.', client_seq: null }]);
    assert.equal(sock.status, 'connected');
  });
});

describe('heartbeat', () => {
  test('a ping every 20 s while the server answers', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    mock.timers.tick(20000);
    assert.deepEqual(latest().sent, [{ type: 'ping' }]);
    latest().receive({ type: 'pong' });
    mock.timers.tick(20000);
    latest().receive({ type: 'pong' });
    mock.timers.tick(20000);
    assert.equal(latest().sent.filter((m) => m.type === 'ping').length, 3);
    assert.equal(sock.status, 'connected');
    assert.equal(WS.instances.length, 1);
  });

  test('a socket silent for more than 50 s is dropped and reopened', () => {
    const sock = newSocket();
    sock.connect();
    const ws = latest();
    ws.open();
    mock.timers.tick(40000); // pings at 20 s and 40 s, no answer
    assert.equal(sock.status, 'connected');
    mock.timers.tick(20000); // at 60 s: 60 s since the last message
    assert.deepEqual(ws.closedWith, { code: 4000, reason: 'heartbeat timeout' });
    assert.equal(sock.status, 'reconnecting');
    mock.timers.tick(250);
    assert.equal(WS.instances.length, 2);
  });
});

describe('views', () => {
  test('only strictly newer views reach the listeners; a newer version after a server restart does', () => {
    const sock = newSocket();
    const seen = [];
    sock.on('view', (v) => seen.push([v.seq, v.version]));
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 5, version: 5 });
    latest().receive({ type: 'view', seq: 5, version: 5 }); // repeated
    latest().receive({ type: 'view', seq: 3, version: 3 }); // old
    latest().receive({ type: 'view', seq: 1, version: 6 }); // counters restarted, game moved on
    assert.deepEqual(seen, [[5, 5], [1, 6]]);
    assert.equal(sock.view.version, 6);
  });
});

describe('ending', () => {
  test('a fatal error rejects what is queued and never reconnects', async () => {
    const sock = newSocket();
    const fatal = [];
    sock.on('fatal', (e) => fatal.push(e.code));
    sock.connect();
    latest().open();
    const pending = sock.act({ type: 'wait' });
    latest().receive({ type: 'error', code: 'unauthorized', message: 'Sign in again.' });
    await assert.rejects(pending, { code: 'unauthorized' });
    assert.deepEqual(fatal, ['unauthorized']);
    latest().drop(4401);
    mock.timers.tick(60000);
    sock.connect();
    assert.equal(WS.instances.length, 1);
    assert.equal(sock.status, 'fatal');
    await assert.rejects(sock.act({ type: 'wait' }), { code: 'unauthorized' });
  });

  test('close() rejects pending actions with "closed" and stops for good', async () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 1, version: 1, client_seq: 0 });
    const pending = sock.act({ type: 'wait' });
    const ws = latest();
    sock.close();
    assert.deepEqual(ws.closedWith, { code: 1000, reason: 'bye' });
    await assert.rejects(pending, { code: 'closed' });
    ws.drop(1000);
    mock.timers.tick(60000);
    assert.equal(WS.instances.length, 1);
    assert.equal(sock.status, 'closed');
    await assert.rejects(sock.act({ type: 'wait' }), { code: 'closed' });
  });

  test('after settle() the server closing the socket ends it without a reconnect', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    sock.settle();
    latest().drop(1000);
    mock.timers.tick(60000);
    assert.equal(sock.status, 'closed');
    assert.equal(WS.instances.length, 1);
  });
});

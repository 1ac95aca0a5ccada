// static/ws.js ReconnectingSocket (the socket every endpoint uses) against a scripted WebSocket,
// with Node's mocked timers and clock: the URL and subprotocols, messages and pongs, the close
// codes (4401/4403/4404 final, 1012 back at once), backoff, heartbeat, settle, fail and close;
// and what the final close codes now mean for a MatchSocket.
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';

import { MatchSocket, ReconnectingSocket, socketUrl, tournamentSocketUrl } from '../../static/ws.js';
import { fakeWebSocketClass, sequence } from './fake_websocket.mjs';

let WS;

function newSocket(opts = {}) {
  return new ReconnectingSocket({ url: 'ws://test/ws/x', WebSocket: WS, random: () => 0, ...opts });
}

function latest() {
  return WS.instances[WS.instances.length - 1];
}

function record(sock, ...types) {
  const seen = [];
  for (const type of types) sock.on(type, (payload) => seen.push([type, payload]));
  return seen;
}

beforeEach(() => {
  WS = fakeWebSocketClass();
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 0 });
});

afterEach(() => {
  mock.timers.reset();
});

describe('urls and the handshake', () => {
  test('socketUrl and tournamentSocketUrl: wss behind https, the id encoded', () => {
    assert.equal(socketUrl('/ws/x', { protocol: 'https:', host: 'duel.example' }), 'wss://duel.example/ws/x');
    assert.equal(tournamentSocketUrl('t/1', { protocol: 'http:', host: 'h:8000' }), 'ws://h:8000/ws/tournaments/t%2F1');
  });

  test('the url may be a function, asked again at every connect; the token only in the subprotocols', () => {
    let n = 0;
    const sock = newSocket({ url: () => `ws://test/ws/x?n=${++n}`, token: 'secret-token' });
    sock.connect();
    assert.equal(latest().url, 'ws://test/ws/x?n=1');
    assert.deepEqual(latest().protocols, ['duelhall.v1', 'bearer.secret-token']);
    latest().drop();
    mock.timers.tick(250);
    assert.equal(latest().url, 'ws://test/ws/x?n=2');
    assert.ok(WS.instances.every((ws) => !ws.url.includes('secret-token')));
  });

  test('without a token only duelhall.v1 is offered', () => {
    newSocket().connect();
    assert.deepEqual(latest().protocols, ['duelhall.v1']);
  });
});

describe('messages', () => {
  test('parsed frames go to message listeners, pongs to pong listeners; text that is not JSON is dropped', () => {
    const sock = newSocket();
    const seen = record(sock, 'message', 'pong');
    sock.connect();
    latest().open();
    latest().receive({ type: 'tournament', revision: 4 });
    latest().receive({ type: 'pong' });
    latest().receive('not json');
    latest().receive('7');
    assert.deepEqual(seen, [
      ['message', { type: 'tournament', revision: 4 }],
      ['pong', { type: 'pong' }],
    ]);
  });

  test('send() is true on an open socket and false otherwise (nothing is queued)', () => {
    const sock = newSocket();
    assert.equal(sock.send({ type: 'x' }), false);
    sock.connect();
    assert.equal(sock.send({ type: 'x' }), false, 'still connecting');
    latest().open();
    assert.equal(sock.isOpen, true);
    assert.equal(sock.send({ type: 'y' }), true);
    assert.deepEqual(latest().sent, [{ type: 'y' }]);
  });

  test('open listeners run once connected, before anything else is sent', () => {
    const sock = newSocket();
    sock.on('open', () => sock.send({ type: 'hello' }));
    sock.connect();
    latest().open();
    assert.equal(sock.status, 'connected');
    assert.deepEqual(latest().sent, [{ type: 'hello' }]);
  });
});

describe('close codes', () => {
  for (const [code, name] of [[4401, 'unauthorized'], [4403, 'forbidden'], [4404, 'not_found']]) {
    test(`${code} is final: status fatal, a fatal event (${name}), no reconnect, connect() does nothing`, () => {
      const sock = newSocket();
      const seen = record(sock, 'status', 'fatal', 'reconnect_scheduled');
      sock.connect();
      latest().open();
      latest().drop(code);
      mock.timers.tick(60000);
      sock.connect();
      assert.equal(WS.instances.length, 1);
      assert.equal(sock.status, 'fatal');
      assert.equal(sock.fatal.code, name);
      assert.deepEqual(seen.map(([type, p]) => (type === 'fatal' ? [type, p.code] : [type, p])), [
        ['status', 'connecting'],
        ['status', 'connected'],
        ['fatal', name],
        ['status', 'fatal'],
      ]);
    });
  }

  for (const code of [1000, 1006, 1008, 1011, 1013, 4000]) {
    test(`${code} is worth a retry: reconnect after the backoff`, () => {
      const sock = newSocket({ random: () => 1 });
      const delays = [];
      sock.on('reconnect_scheduled', (d) => delays.push(d));
      sock.connect();
      latest().open();
      latest().drop(code);
      assert.equal(sock.status, 'reconnecting');
      assert.deepEqual(delays, [500]);
      mock.timers.tick(500);
      assert.equal(WS.instances.length, 2);
    });
  }

  test('1012 (a server draining) comes back within 0-1 s, even after failures had grown the backoff', () => {
    const sock = newSocket({ random: sequence(1, 1, 1, 0.3) });
    const delays = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.connect();
    latest().drop(); // 500
    mock.timers.tick(500);
    latest().drop(); // 1000
    mock.timers.tick(1000);
    latest().drop(); // 2000
    mock.timers.tick(2000);
    latest().open();
    latest().drop(1012);
    assert.deepEqual(delays, [500, 1000, 2000, 300]);
    mock.timers.tick(299);
    assert.equal(WS.instances.length, 4);
    mock.timers.tick(1);
    assert.equal(WS.instances.length, 5);
    assert.equal(sock.status, 'reconnecting');
    latest().open();
    assert.equal(sock.status, 'connected');
  });

  test('a second 1012 within 8 s backs off like any close; after that a 1012 is quick again', () => {
    const sock = newSocket({ random: () => 1 });
    const delays = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.connect();
    latest().open();
    latest().drop(1012);
    mock.timers.tick(delays.at(-1));
    latest().open();
    latest().drop(1012);
    mock.timers.tick(delays.at(-1));
    latest().open();
    mock.timers.tick(8000);
    latest().drop(1012);
    assert.deepEqual(delays, [1000, 500, 1000]);
  });
});

describe('reconnecting', () => {
  test('backoff doubles from 0.5 s to 8 s with jitter; an opened socket resets it', () => {
    const sock = newSocket({ random: sequence(0, 1, 0.5, 0, 1, 1, 0, 1) });
    const delays = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.connect();
    for (let i = 0; i < 7; i++) {
      latest().drop();
      mock.timers.tick(delays.at(-1));
    }
    latest().open();
    latest().drop();
    assert.deepEqual(delays, [250, 1000, 1500, 2000, 8000, 8000, 4000, 500]);
  });

  test('a WebSocket constructor that throws is retried after the backoff', () => {
    let fail = true;
    class Throwing extends WS {
      constructor(url, protocols) {
        if (fail) throw new Error('SecurityError');
        super(url, protocols);
      }
    }
    const sock = newSocket({ WebSocket: Throwing, random: () => 1 });
    const warn = mock.method(console, 'warn', () => {});
    try {
      sock.connect();
      assert.equal(sock.status, 'reconnecting');
      assert.equal(warn.mock.callCount(), 1);
      fail = false;
      mock.timers.tick(500);
      assert.equal(WS.instances.length, 1);
    } finally {
      warn.mock.restore();
    }
  });

  test('reconnectNow() drops a live socket and opens another at once', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    const first = latest();
    sock.reconnectNow();
    assert.deepEqual(first.closedWith, { code: 4000, reason: 'reconnect' });
    mock.timers.tick(250);
    assert.equal(WS.instances.length, 2);
  });

  test('a drop listener hears of every lost socket before the reconnect is scheduled', () => {
    const sock = newSocket();
    const seen = record(sock, 'drop', 'status');
    sock.connect();
    latest().open();
    latest().drop(1006);
    assert.deepEqual(seen.slice(-2), [['drop', { code: 1006 }], ['status', 'reconnecting']]);
  });
});

describe('heartbeat', () => {
  test('a ping every 20 s; silent for more than 50 s: dropped and reopened', () => {
    const sock = newSocket();
    sock.connect();
    const ws = latest();
    ws.open();
    mock.timers.tick(20000);
    assert.deepEqual(ws.sent, [{ type: 'ping' }]);
    ws.receive({ type: 'pong' }); // heard at 20 s
    mock.timers.tick(40000); // pings at 40 s and 60 s: 40 s of silence, still fine
    assert.equal(sock.status, 'connected');
    mock.timers.tick(20000); // at 80 s: 60 s since the pong
    assert.deepEqual(ws.closedWith, { code: 4000, reason: 'heartbeat timeout' });
    assert.equal(sock.status, 'reconnecting');
    mock.timers.tick(250);
    assert.equal(WS.instances.length, 2);
  });

  test('no pings once the socket is closed', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    sock.close();
    mock.timers.tick(100000);
    assert.deepEqual(latest().sent, []);
  });
});

describe('ending', () => {
  test('close() closes with 1000 and never reconnects', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    const ws = latest();
    sock.close();
    assert.deepEqual(ws.closedWith, { code: 1000, reason: 'bye' });
    assert.equal(sock.status, 'closed');
    ws.drop(1000);
    mock.timers.tick(60000);
    sock.connect();
    assert.equal(WS.instances.length, 1);
    assert.equal(sock.closed, true);
  });

  test('after settle() the server closing the socket ends it', () => {
    const sock = newSocket();
    sock.connect();
    latest().open();
    sock.settle();
    latest().drop(1006);
    mock.timers.tick(60000);
    assert.equal(sock.status, 'closed');
    assert.equal(WS.instances.length, 1);
  });

  test('fail() while waiting to reconnect cancels the reconnect', () => {
    const sock = newSocket();
    const fatal = [];
    sock.on('fatal', (e) => fatal.push(e));
    sock.connect();
    latest().drop();
    sock.fail({ code: 'gone', message: 'Gone.' });
    mock.timers.tick(60000);
    assert.equal(WS.instances.length, 1);
    assert.equal(sock.status, 'fatal');
    assert.deepEqual(fatal, [{ code: 'gone', message: 'Gone.' }]);
  });
});

describe('MatchSocket on the generic socket', () => {
  test('a 4404 close without an error frame stops it: the queue rejects with not_found, no reconnect', async () => {
    const sock = new MatchSocket('m1', { url: 'ws://test/ws/matches/m1', WebSocket: WS, random: () => 0 });
    const fatal = [];
    sock.on('fatal', (e) => fatal.push(e.code));
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 1, version: 1, client_seq: 0 });
    const pending = sock.act({ type: 'wait' });
    latest().drop(4404);
    assert.equal(sock.status, 'fatal');
    assert.deepEqual(fatal, ['not_found']);
    mock.timers.tick(60000);
    assert.equal(WS.instances.length, 1);
    await assert.rejects(pending, { code: 'not_found' });
    await assert.rejects(sock.act({ type: 'wait' }), { code: 'not_found' });
  });

  test('1012 brings it back at once; the resume and the unacked action follow', () => {
    const sock = new MatchSocket('m1', { url: 'ws://test/ws/matches/m1', WebSocket: WS, random: () => 0.1 });
    const delays = [];
    sock.on('reconnect_scheduled', (d) => delays.push(d));
    sock.connect();
    latest().open();
    latest().receive({ type: 'view', seq: 3, version: 3, client_seq: 1 });
    void sock.act({ type: 'wait' });
    latest().drop(1012);
    assert.deepEqual(delays, [100], '0.1 of the 1 s restart jitter, not the backoff (275 ms)');
    mock.timers.tick(100);
    assert.equal(WS.instances.length, 2);
    latest().open();
    assert.deepEqual(latest().sent, [
      { type: 'resume', since: 3 },
      { type: 'action', action: { type: 'wait' }, client_seq: 2 },
    ]);
  });
});

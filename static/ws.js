// Shared websocket client for one match: /ws/matches/{id}, the token in the handshake's
// subprotocols (never in the URL, which access logs print): see socketProtocols.
//
//   const sock = new MatchSocket(matchId, { token });
//   sock.on('view', (viewDoc) => ...);        // newer views only (seq strictly increasing)
//   sock.on('status', (s) => ...);            // 'connecting' | 'connected' | 'reconnecting' | 'closed' | 'fatal'
//   sock.on('error', ({code, message}) => ...)// server errors not tied to one of our actions
//   sock.on('fatal', ({code, message}) => ...)// unauthorized / not_found: no reconnect
//   sock.connect();
//   await sock.act({type: 'play', ...});      // resolves on ack, rejects with {code, message}
//   sock.close();
//
// Delivery: every action gets a client_seq (per match, increasing, starting at the first
// view's client_seq + 1). Until it is acked it stays in a queue; after a reconnect the client
// sends {"type":"resume","since":lastSeq} and then re-sends the queue with the SAME client_seq,
// so the server (which dedupes by client_seq) applies each action at most once. A view whose
// client_seq covers a queued action settles that action too (its ack was lost with the socket).
//
// Reconnect: backoff 0.5 s doubling to 8 s, with jitter (50–100 % of the step). A socket the
// server closes with 1012 ("service restart": a deploy drains that server) reconnects at once,
// after a random 0–1 s only, so a server's players do not all arrive together; the balancer
// has already taken that server out (another 1012 within 8 s backs off as usual). A heartbeat ping goes every 20 s; a socket silent for
// 50 s is treated as dead and reopened.

const FATAL_CODES = new Set(['unauthorized', 'not_found']);
const PING_MS = 20000;
const DEAD_MS = 50000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 8000;
const SERVICE_RESTART = 1012;
const RESTART_JITTER_MS = 1000;

export const SUBPROTOCOL = 'duelhall.v1';

/** The subprotocols a socket offers: `duelhall.v1`, and `bearer.<token>` when signed in. The
 *  server answers `duelhall.v1` (docs/protocol.md). Every socket of ours opens with these. */
export function socketProtocols(token) {
  return token ? [SUBPROTOCOL, `bearer.${token}`] : [SUBPROTOCOL];
}

export function matchSocketUrl(matchId, token, loc = globalThis.location) {
  const proto = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  // ack=view: the view an action causes (its client_seq) settles the action (see _onView), so
  // the server sends no separate ack frame for it; repeats are still acked.
  const q = token ? '?ack=view' : '';
  return `${proto}//${loc.host}/ws/matches/${encodeURIComponent(matchId)}${q}`;
}

export class MatchSocket {
  /**
   * @param {string} matchId
   * @param {{token?: string, url?: string, WebSocket?: any, random?: () => number}} opts
   */
  constructor(matchId, opts = {}) {
    this.matchId = matchId;
    this.token = opts.token || null;
    this.url = opts.url || null;
    this._WS = opts.WebSocket || globalThis.WebSocket;
    this._random = opts.random || Math.random;
    this._listeners = new Map();
    this._ws = null;
    this._status = 'idle';
    this._closed = false; // close() was called: never reconnect
    this._settled = false; // match over: do not reconnect when the server closes
    this._fatal = null;
    this._attempt = 0;
    this._reconnectTimer = null;
    this._restartAt = -Infinity; // when a 1012 close last got a quick reconnect
    this._pingTimer = null;
    this._lastHeard = 0;
    this.lastSeq = 0;
    this.lastVersion = -1;
    this.view = null;
    this._nextSeq = null; // known after the first view
    this._queue = []; // [{action, client_seq|null, resolve, reject, sent}]
    this._onOnline = () => {
      if (this._status === 'reconnecting') this._reconnectNow();
    };
  }

  // ---- events ---------------------------------------------------------------------------
  on(type, fn) {
    if (!this._listeners.has(type)) this._listeners.set(type, new Set());
    this._listeners.get(type).add(fn);
    return () => this._listeners.get(type)?.delete(fn);
  }

  _emit(type, payload) {
    for (const fn of [...(this._listeners.get(type) || [])]) {
      try {
        fn(payload);
      } catch (err) {
        console.error(`MatchSocket ${type} listener failed`, err);
      }
    }
  }

  get status() {
    return this._status;
  }

  _setStatus(s) {
    if (this._status === s) return;
    this._status = s;
    this._emit('status', s);
  }

  // ---- lifecycle --------------------------------------------------------------------------
  connect() {
    if (this._closed || this._fatal) return;
    if (this._ws && (this._ws.readyState === 0 || this._ws.readyState === 1)) return;
    clearTimeout(this._reconnectTimer);
    this._reconnectTimer = null;
    if (this._status === 'idle') this._setStatus('connecting');
    globalThis.addEventListener?.('online', this._onOnline);
    let ws;
    try {
      ws = new this._WS(this.url || matchSocketUrl(this.matchId, this.token), socketProtocols(this.token));
    } catch (err) {
      console.warn('MatchSocket: cannot open', err);
      this._scheduleReconnect();
      return;
    }
    this._ws = ws;
    ws.onopen = () => {
      if (ws !== this._ws) return;
      this._attempt = 0;
      this._lastHeard = Date.now();
      this._setStatus('connected');
      if (this.lastSeq > 0) this._send({ type: 'resume', since: this.lastSeq });
      this._flush();
      this._startPing();
    };
    ws.onmessage = (ev) => {
      if (ws !== this._ws) return;
      this._lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(typeof ev.data === 'string' ? ev.data : String(ev.data));
      } catch {
        return;
      }
      if (msg && typeof msg === 'object') this._handle(msg);
    };
    ws.onerror = () => {
      /* onclose follows and decides */
    };
    ws.onclose = (ev) => {
      if (ws !== this._ws) return;
      this._ws = null;
      this._stopPing();
      for (const item of this._queue) item.sent = false;
      if (this._closed) return;
      if (this._fatal) {
        this._setStatus('fatal');
        return;
      }
      if (this._settled) {
        this._setStatus('closed');
        return;
      }
      if (ev && ev.code === SERVICE_RESTART && Date.now() - this._restartAt > BACKOFF_MAX_MS) {
        // Not a failure: the server is going away and another takes the match now. (A second
        // 1012 soon after the first backs off as usual: no tight loop against a balancer that
        // keeps sending us to servers on their way out.)
        this._restartAt = Date.now();
        this._attempt = 0;
        this._scheduleReconnect(Math.round(RESTART_JITTER_MS * this._random()));
        return;
      }
      // 4401/4404/1008 style closes without an error frame are still worth a retry: the
      // server sends an error message first when it means it.
      this._scheduleReconnect();
    };
  }

  /** Stop for good: no reconnect; pending act() promises reject with code "closed". */
  close() {
    this._closed = true;
    clearTimeout(this._reconnectTimer);
    this._reconnectTimer = null;
    this._stopPing();
    globalThis.removeEventListener?.('online', this._onOnline);
    const ws = this._ws;
    this._ws = null;
    if (ws) {
      try {
        ws.close(1000, 'bye');
      } catch {
        /* already closing */
      }
    }
    this._rejectAll({ code: 'closed', message: 'The connection was closed.' });
    this._setStatus('closed');
  }

  /** The match is over: keep the socket while it lasts but do not reopen it. */
  settle() {
    this._settled = true;
  }

  /** Reconnect after `delay` ms, or after the backoff's next step when none is given. */
  _scheduleReconnect(delay = null) {
    if (this._closed || this._fatal) return;
    this._setStatus('reconnecting');
    clearTimeout(this._reconnectTimer);
    if (delay === null) {
      const step = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this._attempt);
      delay = Math.round(step * (0.5 + 0.5 * this._random()));
      this._attempt = Math.min(this._attempt + 1, 10);
    }
    this._reconnectTimer = setTimeout(() => {
      this._reconnectTimer = null;
      this.connect();
    }, delay);
    this._emit('reconnect_scheduled', delay);
  }

  _reconnectNow() {
    clearTimeout(this._reconnectTimer);
    this._reconnectTimer = null;
    this.connect();
  }

  /** Retry at once while reconnecting; with a live socket, drop it and reconnect (the queue
   *  of unacked actions is re-sent with the same client_seq). */
  reconnectNow() {
    if (this._closed || this._fatal) return;
    const ws = this._ws;
    if (ws && (ws.readyState === 0 || ws.readyState === 1)) {
      try {
        ws.close(4000, 'reconnect');
      } catch {
        /* ignore */
      }
      if (ws === this._ws && ws.onclose) ws.onclose({ code: 4000 });
      return;
    }
    this._attempt = 0;
    this._reconnectNow();
  }

  _startPing() {
    this._stopPing();
    this._pingTimer = setInterval(() => {
      if (!this._ws || this._ws.readyState !== 1) return;
      if (Date.now() - this._lastHeard > DEAD_MS) {
        // Half-open socket: drop it and reconnect.
        const ws = this._ws;
        try {
          ws.close(4000, 'heartbeat timeout');
        } catch {
          /* ignore */
        }
        if (ws.onclose) ws.onclose({ code: 4000 });
        return;
      }
      this._send({ type: 'ping' });
    }, PING_MS);
  }

  _stopPing() {
    clearInterval(this._pingTimer);
    this._pingTimer = null;
  }

  _send(msg) {
    const ws = this._ws;
    if (!ws || ws.readyState !== 1) return false;
    try {
      ws.send(JSON.stringify(msg));
      return true;
    } catch {
      return false;
    }
  }

  // ---- actions ----------------------------------------------------------------------------
  /** Send a game action; resolves with the ack, rejects with {code, message}. */
  act(action) {
    if (this._closed) {
      return Promise.reject({ code: 'closed', message: 'The connection was closed.' });
    }
    if (this._fatal) return Promise.reject({ ...this._fatal });
    return new Promise((resolve, reject) => {
      const item = { action, client_seq: null, resolve, reject, sent: false };
      if (this._nextSeq !== null) item.client_seq = this._nextSeq++;
      this._queue.push(item);
      this._flush();
    });
  }

  /** Number of actions sent or waiting that have no ack yet. */
  get unacked() {
    return this._queue.length;
  }

  _flush() {
    if (!this._ws || this._ws.readyState !== 1 || this._nextSeq === null) return;
    for (const item of this._queue) {
      if (item.client_seq === null) item.client_seq = this._nextSeq++;
      if (item.sent) continue;
      if (this._send({ type: 'action', action: item.action, client_seq: item.client_seq })) {
        item.sent = true;
      } else {
        break;
      }
    }
  }

  _settle(clientSeq, ok, payload) {
    const i = this._queue.findIndex((it) => it.client_seq === clientSeq);
    if (i < 0) return false;
    const [item] = this._queue.splice(i, 1);
    if (ok) item.resolve(payload);
    else item.reject(payload);
    return true;
  }

  _rejectAll(err) {
    const items = this._queue.splice(0);
    for (const it of items) it.reject({ ...err });
  }

  // ---- incoming ---------------------------------------------------------------------------
  _handle(msg) {
    switch (msg.type) {
      case 'view':
        this._onView(msg);
        break;
      case 'ack':
        this._settle(msg.client_seq, true, {
          client_seq: msg.client_seq,
          version: msg.version,
          duplicate: !!msg.duplicate,
        });
        break;
      case 'error': {
        const err = { code: msg.code || 'error', message: msg.message || msg.code || 'Error' };
        if (FATAL_CODES.has(err.code)) {
          this._fatal = err;
          this._rejectAll(err);
          this._emit('fatal', err);
          this._setStatus('fatal');
          clearTimeout(this._reconnectTimer);
          break;
        }
        const mine =
          msg.client_seq !== undefined &&
          msg.client_seq !== null &&
          this._settle(msg.client_seq, false, { ...err, client_seq: msg.client_seq });
        if (!mine) this._emit('error', { ...err, client_seq: msg.client_seq ?? null });
        break;
      }
      case 'pong':
        this._emit('pong', msg);
        break;
      default:
        this._emit('message', msg);
    }
  }

  _onView(msg) {
    const seq = typeof msg.seq === 'number' ? msg.seq : null;
    const version = typeof msg.version === 'number' ? msg.version : null;
    if (seq !== null && seq <= this.lastSeq) {
      // Old or repeated. Only a strictly newer game version (a server that restarted its
      // counters) gets through.
      if (version === null || version <= this.lastVersion) return;
    }
    if (seq !== null) this.lastSeq = seq;
    if (version !== null) this.lastVersion = Math.max(this.lastVersion, version);
    const { type, ...doc } = msg;
    void type;
    this.view = doc;
    const applied = typeof doc.client_seq === 'number' ? doc.client_seq : null;
    const firstSeq = applied !== null ? applied + 1 : 1;
    if (this._nextSeq === null || this._nextSeq < firstSeq) {
      // The first view fixes the numbering; a larger client_seq (the same seat playing from
      // another tab) moves it on, so new actions are never mistaken for repeats.
      const hadSeq = this._nextSeq !== null;
      this._nextSeq = firstSeq;
      if (!hadSeq || this._queue.some((it) => it.client_seq === null)) {
        for (const item of this._queue) {
          if (item.client_seq === null) item.client_seq = this._nextSeq++;
        }
      }
    }
    this._emit('view', doc);
    if (applied !== null) {
      // The view says these actions are applied: settle them now (the ack follows, or was
      // lost with a dropped socket). Listeners have already seen the view.
      for (const item of [...this._queue]) {
        if (item.client_seq !== null && item.client_seq <= applied) {
          this._settle(item.client_seq, true, {
            client_seq: item.client_seq,
            version: doc.version,
            duplicate: false,
            applied: true,
          });
        }
      }
    }
    this._flush();
  }
}

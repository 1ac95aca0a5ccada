// A WebSocket class whose instances a test drives from the server's side: open(), receive(),
// drop(code). Like a browser's, close() only records the call; the close event comes with drop().
// (tests/js/ws.test.mjs keeps its own copy of the same class.)

export function fakeWebSocketClass() {
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
      this.closedWith = { code, reason };
      this.readyState = 2;
    }

    // ---- the server's side
    open() {
      this.readyState = 1;
      this.onopen?.({});
    }

    receive(msg) {
      this.onmessage?.({ data: typeof msg === 'string' ? msg : JSON.stringify(msg) });
    }

    drop(code = 1006) {
      this.readyState = 3;
      this.onclose?.({ code });
    }
  }
  return FakeWebSocket;
}

/** Random numbers for the jitter, in order (the last one repeats). */
export function sequence(...values) {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)];
}

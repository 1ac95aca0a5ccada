// A tournament page's live updates: /ws/tournaments/<id> over the shared reconnecting socket
// (static/ws.js: backoff, heartbeat, the token in the subprotocols), polling while it is down.
//
//   const live = liveUpdates(id, { token, onRevision, onStatus });
//   onRevision(rev)    a notice with the event's revision; onRevision(null) every POLL_MS while
//                      the socket is down (the page then reloads and compares for itself)
//   onStatus(state)    'live' once the socket is open, 'polling' while it is not
//   live.wake()        the event became public (a draft's socket is refused, 4404, for good):
//                      open a new socket
//   live.close()
//
// `WebSocket`, `random` and `loc` are for tests (a scripted socket, the jitter, the page's
// location).

import { ReconnectingSocket, tournamentSocketUrl } from '../ws.js';

export const POLL_MS = 5000;

export function liveUpdates(id, { token = null, onRevision, onStatus = () => {}, WebSocket, random, loc } = {}) {
  let socket = null;
  let poll = null;
  let closed = false;

  function open() {
    socket = new ReconnectingSocket({
      name: 'TournamentSocket',
      url: () => tournamentSocketUrl(id, loc),
      token,
      WebSocket,
      random,
    });
    socket.on('status', (state) => {
      if (closed) return;
      if (state === 'connected') {
        stopPolling();
        onStatus('live');
      } else if (state === 'reconnecting' || state === 'fatal') {
        onStatus('polling');
        startPolling();
      }
    });
    socket.on('message', (msg) => {
      if (msg.type === 'tournament' && Number.isInteger(msg.revision)) onRevision(msg.revision);
    });
    socket.connect();
  }

  function startPolling() {
    if (poll || closed) return;
    poll = setInterval(() => onRevision(null), POLL_MS);
  }

  function stopPolling() {
    clearInterval(poll);
    poll = null;
  }

  open();
  return {
    wake() {
      if (closed || !socket.fatal) return;
      socket.close();
      open();
    },
    close() {
      closed = true;
      stopPolling();
      socket.close();
    },
  };
}

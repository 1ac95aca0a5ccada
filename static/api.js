// HTTP helper for the Duelhall JSON API.
//
// Every call sends `Authorization: Bearer <token>` when a token is stored. Failures throw an
// ApiError {status, code, message}: the server's `{"error": {"code", "message"}}` when it sent
// one, `network_error` when the request never got an answer. A 401 also clears the stored
// token and calls the handler registered with onUnauthorized() (the app asks for a name again).

import { newSeed, rememberSeed } from './fairness.js';

const TOKEN_KEY = 'duelhall.token';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

let unauthorizedHandler = null;

export function onUnauthorized(fn) {
  unauthorizedHandler = fn;
}

export function getToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage disabled: the token lives as long as the page */
  }
}

export function clearToken() {
  setToken(null);
}

// Device tokens (docs/accounts.md): one per account name this browser signed in to, kept
// across sign-outs. Sent with the next login of that name, it lets the right password in even
// while other people's wrong guesses have locked the name.
const DEVICES_KEY = 'duelhall.devices';

function deviceKey(name) {
  return String(name || '').trim().toLowerCase();
}

function readDevices() {
  try {
    const all = JSON.parse(localStorage.getItem(DEVICES_KEY) || '{}');
    return all && typeof all === 'object' ? all : {};
  } catch {
    return {};
  }
}

export function getDeviceToken(name) {
  return readDevices()[deviceKey(name)] || null;
}

export function setDeviceToken(name, token) {
  if (!token || !name) return;
  const all = readDevices();
  all[deviceKey(name)] = token;
  try {
    localStorage.setItem(DEVICES_KEY, JSON.stringify(all));
  } catch {
    /* storage disabled: this browser stays an unknown device */
  }
}

/** request('GET', '/api/games') -> parsed JSON (null for an empty body). */
export async function request(method, path, body, { signal } = {}) {
  const headers = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers, signal };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err?.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', err?.message || 'Network error');
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const e = data && data.error;
    const err = new ApiError(
      res.status,
      (e && e.code) || (res.status === 401 ? 'unauthorized' : `http_${res.status}`),
      (e && e.message) || res.statusText || `HTTP ${res.status}`,
    );
    if (res.status === 401) {
      clearToken();
      if (unauthorizedHandler) unauthorizedHandler(err);
    }
    throw err;
  }
  return data;
}

const enc = encodeURIComponent;

export const api = {
  guest: (name) => request('POST', '/api/auth/guest', { name }),
  me: () => request('GET', '/api/me'),
  games: () => request('GET', '/api/games'),
  matches: (status) =>
    request('GET', status ? `/api/matches?status=${enc(status)}` : '/api/matches'),
  // Creating and joining add this browser's own seed to the deal (docs/fairness.md).
  createMatch: (game, options) => withSeed((seed) => request('POST', '/api/matches', { game, options, seed })),
  match: (id) => request('GET', `/api/matches/${enc(id)}`),
  join: (id) => withSeed((seed) => request('POST', `/api/matches/${enc(id)}/join`, { seed })),
  leave: (id) => request('POST', `/api/matches/${enc(id)}/leave`),
  start: (id) => request('POST', `/api/matches/${enc(id)}/start`),
  view: (id) => request('GET', `/api/matches/${enc(id)}/view`),
};

/** Send a fresh player seed with `send(seed)` (a call answering with a match summary) and
 * remember it for that match when the server took it (static/fairness.js). */
export async function withSeed(send) {
  const seed = newSeed();
  const summary = await send(seed);
  rememberSeed(summary, seed);
  return summary;
}

/** Fetch ``path`` with the session token and save the answer as ``filename`` (exports,
 * reports); throws an error shaped like the API's when the server refuses. */
export async function download(path, filename) {
  const headers = {};
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { headers });
  if (!res.ok) {
    let e = null;
    try {
      e = (await res.json()).error;
    } catch {
      e = null;
    }
    throw { status: res.status, code: e?.code || `http_${res.status}`, message: e?.message || res.statusText };
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
}

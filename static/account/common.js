// What the account parts share: the server's rules for names and passwords, the POST that
// tells a wrong password from an expired session, failed calls in words.

import { getToken } from '../api.js';

// The server's rule (app/api/schemas.py): \w, then \w, space, . ' - _; 1-24 characters.
const NAME_RE = /^[\p{L}\p{M}\p{N}\p{Pc}][\p{L}\p{M}\p{N}\p{Pc} .'-]*$/u;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export function isGuest(user) {
  return !user || user.guest !== false;
}

export function isAdmin(user) {
  return !!user && user.role === 'admin';
}

/** Fold runs of spaces like the server does. */
export function foldName(raw) {
  return String(raw || '').trim().split(/\s+/).filter(Boolean).join(' ');
}

/**
 * POST without api.js's "401 = signed out" handling: on these routes a 401 means a wrong
 * name or password, not an expired session. Throws {status, code, message}.
 */
export async function send(path, body, { auth = false } = {}) {
  const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
  const token = getToken();
  if (auth && token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (err) {
    throw { status: 0, code: 'network_error', message: err?.message || '' };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const e = data && data.error;
    throw { status: res.status, code: (e && e.code) || `http_${res.status}`, message: (e && e.message) || '' };
  }
  return data;
}

/**
 * The words for a failed account call: our translation of the server's sentence when the
 * catalogue has one for this code (per context first), else the server's own error.message.
 */
export function accountErrorText(shell, err, context) {
  const code = err?.code || 'error';
  if (code === 'network_error') return shell.errorText(err);
  const own =
    shell.t(`account.error.${context}_${code}`, null, { fallback: '' }) ||
    shell.t(`account.error.${code}`, null, { fallback: '' });
  return own || err?.message || shell.errorText(err);
}

export function checkName(shell, name) {
  if (!name) return shell.t('account.name_required');
  if (name.length > 24 || !NAME_RE.test(name)) return shell.t('account.name_invalid');
  return null;
}

export function checkPassword(shell, pw) {
  if (pw.length < PASSWORD_MIN || pw.length > PASSWORD_MAX) {
    return shell.t('account.password_length', { min: PASSWORD_MIN, max: PASSWORD_MAX });
  }
  return null;
}

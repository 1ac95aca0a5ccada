// What the admin pages share: user names (looked up once), times for the API, compact JSON,
// results and players in words.

import { request } from '../api.js';
import { botName, isBot } from '../bots.js';

export const enc = encodeURIComponent;
const names = new Map(); // user id -> Promise<name>

/** A user's name by id (the id itself when it cannot be had), asked for once per page load. */
export function nameOf(id) {
  if (!id) return Promise.resolve('—');
  if (!names.has(id)) {
    names.set(
      id,
      request('GET', `/api/users/${enc(id)}`)
        .then((p) => p?.user?.name || id)
        .catch(() => id),
    );
  }
  return names.get(id);
}

/** datetime-local value (local wall clock) -> ISO 8601 UTC, or null. */
export function localToIso(value) {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function compact(value) {
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

export function resultText(t, result, seatName) {
  if (!result) return '—';
  if (result.draw) return t('result.draw');
  let winner = result.winner ?? null;
  if (!winner) {
    const firsts = Object.entries(result.places || {}).filter(([, p]) => p === 1);
    if (firsts.length === 1) winner = firsts[0][0];
  }
  if (winner) return t('result.player_won', { name: seatName(winner) });
  return t('result.over');
}

export function playersText(seats, t) {
  const name = (u) => (isBot(u) ? `${botName(t, u)} [${t('bots.badge')}]` : u.name);
  return (seats || []).map((s) => `${s.seat} ${s.user ? name(s.user) : '—'}`).join(' · ');
}

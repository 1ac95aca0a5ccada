// Provably fair chance, the browser's half (docs/fairness.md):
// * the seed this client adds when it creates or joins a match (16 bytes of
//   crypto.getRandomValues), and what it remembers per match: its own seed and the commitment it
//   saw while the match was live (localStorage, the newest KEEP matches);
// * the check of a finished match's `fairness` block, as games/fairness.py does it:
//     sha256(server_seed bytes) == server_seed_sha256
//     match seed = HMAC-SHA256(server_seed bytes, "duelhall-fair-v1" + "\n" + seat + ":" + seed ...)
//                  first 8 bytes, big-endian, >> 1
//   with WebCrypto where the page has it (secure contexts), else the built-in SHA-256.
// The browser does not replay the moves (the engines are Python): `duelhall verify` does.

import { sha256Fallback } from './games/duel_commit.js';

const STORE_KEY = 'duelhall.fairness';
const KEEP = 200;
const LABEL = 'duelhall-fair-v1';
const HEX64 = /^[0-9a-f]{64}$/;

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function fromHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** A fresh player seed: 16 random bytes as 32 hex digits. */
export function newSeed() {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

// ---------------------------------------------------------------------------------------------
// What this browser remembers per match
// ---------------------------------------------------------------------------------------------
function readAll() {
  try {
    const data = JSON.parse(localStorage.getItem(STORE_KEY) || '{}');
    return data && typeof data === 'object' ? data : {};
  } catch {
    return {};
  }
}

function update(matchId, fields) {
  if (!matchId) return;
  const all = readAll();
  all[matchId] = { ...(all[matchId] || {}), ...fields, at: Date.now() };
  const ids = Object.keys(all);
  if (ids.length > KEEP) {
    ids.sort((a, b) => (all[a].at || 0) - (all[b].at || 0));
    for (const id of ids.slice(0, ids.length - KEEP)) delete all[id];
  }
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(all));
  } catch {
    /* storage disabled: the checks that need memory say so */
  }
}

/** {seed?, commitment?} this browser remembers of a match. */
export function remembered(matchId) {
  return readAll()[matchId] || {};
}

/** Remember `seed` as this browser's for the match `summary`, if the server took it (a
 *  rematch offer may answer with somebody else's match, which our seed is not in). */
export function rememberSeed(summary, seed) {
  const seeds = Object.values(summary?.fairness?.player_seeds || {});
  if (summary?.id && seeds.includes(seed)) update(summary.id, { seed });
}

/** Note the commitment of a match while it is live (the first one seen stays). */
export function noteFairness(matchId, fairness) {
  if (!fairness || fairness.server_seed || typeof fairness.server_seed_sha256 !== 'string') return;
  if (remembered(matchId).commitment) return;
  update(matchId, { commitment: fairness.server_seed_sha256 });
}

// ---------------------------------------------------------------------------------------------
// Hashes
// ---------------------------------------------------------------------------------------------
function subtle() {
  const s = globalThis.crypto && globalThis.crypto.subtle;
  return s && typeof s.digest === 'function' ? s : null;
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export async function sha256(bytes) {
  const s = subtle();
  if (s) {
    try {
      return new Uint8Array(await s.digest('SHA-256', bytes));
    } catch {
      /* fall through */
    }
  }
  return sha256Fallback(bytes);
}

/** HMAC-SHA256 (RFC 2104) of `message` under `key` (both bytes). */
export async function hmacSha256(key, message) {
  const s = subtle();
  if (s) {
    try {
      const k = await s.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return new Uint8Array(await s.sign('HMAC', k, message));
    } catch {
      /* fall through */
    }
  }
  return hmacSha256Fallback(key, message);
}

/** HMAC-SHA256 on the built-in SHA-256 (pages outside a secure context have no crypto.subtle). */
export function hmacSha256Fallback(key, message) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256Fallback(key) : key);
  const inner = block.map((b) => b ^ 0x36);
  const outer = block.map((b) => b ^ 0x5c);
  return sha256Fallback(concat(outer, sha256Fallback(concat(inner, message))));
}

/** The canonical list the server seed is applied to (games.fairness.seed_message). */
export function seedMessage(playerSeeds) {
  const seats = Object.keys(playerSeeds).sort();
  const lines = [LABEL, ...seats.map((s) => `${s}:${String(playerSeeds[s]).toLowerCase()}`)];
  return new TextEncoder().encode(lines.join('\n'));
}

/** The match seed as a decimal string (it has 63 bits: more than a JS number holds). */
export async function deriveMatchSeed(serverSeed, playerSeeds) {
  const digest = await hmacSha256(fromHex(serverSeed), seedMessage(playerSeeds));
  let n = 0n;
  for (const b of digest.slice(0, 8)) n = (n << 8n) | BigInt(b);
  return (n >> 1n).toString();
}

// ---------------------------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------------------------
/**
 * Check a finished match's fairness block. `mine`: what this browser remembers of the match
 * ({seed, commitment}); `seat`: this browser's seat in it (or null).
 * -> {ok, checks: [{id, status: 'ok'|'failed'|'skipped', why?}], derived}
 * Checks: revealed, commitment, seen, own_seed, derivation. `ok` is true when none failed and
 * the server seed was revealed.
 */
export async function checkFairness(fairness, { mine = {}, seat = null } = {}) {
  const checks = [];
  const add = (id, status, why) => checks.push(why ? { id, status, why } : { id, status });
  const serverSeed = fairness?.server_seed;
  let derived = null;
  if (typeof serverSeed !== 'string' || !HEX64.test(serverSeed)) {
    add('revealed', 'failed');
    return { ok: false, checks, derived };
  }
  add('revealed', 'ok');
  const hash = toHex(await sha256(fromHex(serverSeed)));
  add('commitment', hash === fairness.server_seed_sha256 ? 'ok' : 'failed');
  if (mine.commitment) add('seen', mine.commitment === fairness.server_seed_sha256 ? 'ok' : 'failed');
  else add('seen', 'skipped', 'not_seen');
  const seeds = fairness.player_seeds || {};
  if (mine.seed && seat) add('own_seed', seeds[seat] === mine.seed ? 'ok' : 'failed');
  else add('own_seed', 'skipped', 'no_seed');
  if (fairness.match_seed === null || fairness.match_seed === undefined) {
    add('derivation', 'skipped', 'not_started');
  } else {
    derived = await deriveMatchSeed(serverSeed, seeds);
    add('derivation', derived === String(fairness.match_seed) ? 'ok' : 'failed');
  }
  return { ok: !checks.some((c) => c.status === 'failed'), checks, derived };
}

// What the tournament pages share: form controls, the status pill, results in words, deck
// lists, who may organise. Strings: static/i18n/<lang>/tournaments.json (ctx.t).

import { request } from '../api.js';
import { h } from '../dom.js';
import { hasKey } from '../i18n.js';

export const enc = encodeURIComponent;
export const FORMATS = ['swiss', 'single_elimination', 'double_elimination', 'round_robin'];
export const STATUSES = ['registration', 'check_in', 'running', 'finished', 'cancelled', 'draft'];

/** A failed call in words: the tournaments catalogue's sentence for the code when it has one
 *  (with the server's own words after it), else the shell's. */
export function errText(ctx, err) {
  const code = err?.code;
  if (code && hasKey(`error.${code}`, { ns: 'tournaments' })) {
    const base = ctx.t(`error.${code}`);
    return err.message && err.message !== code ? `${base} (${err.message})` : base;
  }
  return ctx.errorText(err);
}

export function check(id, label, checked, help) {
  return h(
    'div',
    { class: 'field field-check' },
    h('input', { id, name: id, type: 'checkbox', checked }),
    h('label', { for: id }, label),
    help ? h('p', { class: 'help' }, help) : null,
  );
}

/** A <select> of [value, label] pairs. */
export function select(id, options, value) {
  return h(
    'select',
    { id, name: id },
    options.map(([v, label]) => h('option', { value: String(v), selected: String(v) === String(value) }, label)),
  );
}

export function numberInput(id, value, { min, max, placeholder } = {}) {
  const input = h('input', { id, name: id, type: 'number', inputmode: 'numeric', step: '1', min, max, placeholder });
  if (value !== null && value !== undefined) input.value = String(value);
  return input;
}

/** A whole number, or null for an empty field. */
export function readNumber(input) {
  const raw = input.value.trim();
  return raw === '' ? null : Math.trunc(Number(raw));
}

export function statusPill(t, status) {
  return h('span', { class: `status-pill tstatus tstatus-${status}`, 'data-status': status }, t(`state.${status}`));
}

let cardNamesPromise = null;

/** Card id -> card name (the Párbaj pool), loaded once. */
export function cardNames() {
  if (!cardNamesPromise) {
    cardNamesPromise = request('GET', '/api/parbaj/cards')
      .then((list) => Object.fromEntries((list || []).map((c) => [c.id, c.name])))
      .catch(() => {
        cardNamesPromise = null;
        return {};
      });
  }
  return cardNamesPromise;
}

/** A deck as "2× Ember Pup" lines, in the order of first appearance. */
export function deckList(t, deck, names, id = null) {
  const counts = new Map();
  for (const c of deck) counts.set(c, (counts.get(c) || 0) + 1);
  return h('ul', { class: 'deck-list', id }, [...counts].map(([c, n]) => h('li', { 'data-card': c }, t('me.card_count', { n, name: names[c] || c }))));
}

export function canOrganise(me) {
  return !!me && (me.role === 'organiser' || me.role === 'admin');
}

export function isAccount(me) {
  return !!me && me.guest === false;
}

/** A pairing's state or result in words. */
export function resultText(t, p, nameOf) {
  if (p.bye) return t('pairing.bye');
  if (p.status === 'waiting') return t('pairing.waiting');
  if (p.status === 'skipped') return t('pairing.skipped');
  if (p.status === 'pending') return t('pairing.playing');
  const games = p.result?.games;
  const score = games ? `${games[0]}–${games[1]}${p.result.draws ? `–${p.result.draws}` : ''}` : '';
  if (p.winner === null || p.winner === undefined) return t('pairing.draw', { score });
  return t('pairing.won', { name: nameOf(p.winner), score });
}

export function howText(t, how) {
  return how ? t(`how.${how}`, null, { fallback: how }) : '';
}

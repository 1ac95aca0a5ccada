// #/tournaments/<id>/me: a player's own page. Sign up (Párbaj: with one of their decks or a
// starter deck), check in, withdraw, change the deck until it locks, the opponent and match of
// this round, drop, dispute a result, their pairings. Reloads on every notice of the event's
// socket (live.js).

import { getToken, request } from '../api.js';
import { h } from '../dom.js';
import { alertBox, dataTable, field, focusHeading, setAlert } from '../ui.js';
import { cardNames, deckList, enc, errText, isAccount, resultText, select, statusPill } from './common.js';
import { liveUpdates } from './live.js';

export function mePage(main, ctx, id) {
  const { t } = ctx;
  let gone = false;
  const error = alertBox();
  const body = h('div', { id: 'me-body', 'aria-live': 'polite' });
  main.append(
    h(
      'div',
      { class: 'page tournament-me', 'data-testid': 'tournament-me' },
      h('div', { class: 'page-head' },
        h('a', { class: 'btn btn-ghost btn-small', href: `#/tournaments/${enc(id)}` }, t('me.back')),
        h('h1', { id: 'me-title' }, t('me.title')), error),
      body,
    ),
  );
  if (!isAccount(ctx.me())) {
    body.append(h('p', { class: 'panel', id: 'me-account-needed' }, t('me.account_needed')));
    focusHeading(main);
    return { destroy() {} };
  }
  let me = null;
  let savedDecks = null;
  let starters = null;
  let cards = {};
  const updates = liveUpdates(id, { token: getToken(), onRevision: () => load() });

  async function load() {
    try {
      me = await request('GET', `/api/tournaments/${enc(id)}/me`);
      if (gone) return;
      if (me.tournament.game === 'parbaj' && savedDecks === null) {
        [savedDecks, starters, cards] = await Promise.all([
          request('GET', '/api/decks'), request('GET', '/api/parbaj/starter-decks'), cardNames()]);
      }
      if (!gone) render();
    } catch (err) {
      if (!gone) setAlert(error, errText(ctx, err));
    }
  }

  const post = (path, payload, method = 'POST') => async () => {
    setAlert(error, '');
    try {
      me = await request(method, `/api/tournaments/${enc(id)}/${path}`, payload);
      render();
      ctx.toast(t('me.saved'));
    } catch (err) {
      setAlert(error, errText(ctx, err));
    }
  };

  function deckPicker() {
    const options = [
      ...(savedDecks || []).filter((d) => d.ok).map((d) => [`saved:${d.id}`, t('me.saved_deck', { name: d.name })]),
      ...(starters || []).map((d) => [`starter:${d.id}`, t('me.starter_deck', { name: d.name })]),
    ];
    const pick = select('deck-choice', options, options[0]?.[0] || '');
    const choice = () => {
      const [kind, key] = pick.value.split(':');
      if (kind === 'saved') return { deck_id: key };
      return { starter: key };
    };
    return { el: field('deck-choice', t('me.deck'), pick, t('me.deck_help')), choice };
  }

  function render() {
    const tour = me.tournament;
    const e = me.entrant;
    const can = me.can;
    const parts = [];
    const nameOf = (uid) => (uid === null || uid === undefined ? '—' : me.names?.[uid] || String(uid));
    parts.push(h('p', { class: 'lead' }, h('a', { href: `#/tournaments/${enc(id)}` }, tour.name), ' · ', statusPill(t, tour.status)));
    parts.push(h('p', { id: 'my-status' }, e ? t(`entrant.${e.status}`, null, { fallback: e.status }) : t('me.not_entered'),
      e?.waitlist_position ? ` · ${t('me.waitlist_position', { n: e.waitlist_position })}` : ''));
    const actions = [];
    let picker = null;
    if (can.register) {
      if (tour.game === 'parbaj') {
        picker = deckPicker();
        parts.push(picker.el);
      }
      actions.push(h('button', {
        type: 'button', class: 'btn btn-primary', id: 'me-register',
        onclick: () => post('register', picker ? { deck: picker.choice() } : undefined)(),
      }, t('me.register')));
    }
    if (can.change_deck) {
      picker = picker || deckPicker();
      if (!can.register) parts.push(picker.el);
      actions.push(h('button', { type: 'button', class: 'btn', id: 'me-deck', onclick: () => post('deck', picker.choice(), 'PUT')() }, t('me.set_deck')));
    }
    if (can.check_in) actions.push(h('button', { type: 'button', class: 'btn btn-primary', id: 'me-check-in', onclick: post('check-in') }, t('me.check_in')));
    if (can.withdraw) actions.push(h('button', { type: 'button', class: 'btn btn-ghost', id: 'me-withdraw', onclick: post('withdraw') }, t('me.withdraw')));
    if (can.drop) {
      actions.push(h('button', {
        type: 'button', class: 'btn btn-ghost', id: 'me-drop',
        onclick: () => { if (confirm(t('me.drop_confirm'))) post('drop')(); },
      }, t('me.drop')));
    }
    if (actions.length) parts.push(h('div', { class: 'button-row' }, actions));
    if (me.current) {
      const p = me.current;
      parts.push(h('section', { class: 'panel', 'aria-labelledby': 'now-title', id: 'my-pairing' },
        h('h2', { id: 'now-title' }, t('me.this_round', { n: p.round })),
        h('p', {}, me.opponent ? t('me.opponent', { name: me.opponent.name }) : t('pairing.bye')),
        h('p', {}, resultText(t, p, nameOf)),
        me.match ? h('a', { class: 'btn btn-primary', id: 'play-match', href: `#/match/${enc(me.match)}` }, t('me.play')) : null));
    }
    if (can.dispute) {
      const reason = h('input', { id: 'dispute-reason', type: 'text', maxlength: '500' });
      const form = h('form', { id: 'dispute-form', class: 'stack' },
        h('h3', {}, t('me.dispute')), h('p', { class: 'help' }, t('me.dispute_help')),
        field('dispute-reason', t('organiser.reason'), reason),
        h('button', { type: 'submit', class: 'btn btn-small', id: 'dispute-submit' }, t('me.dispute_submit')));
      form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        if (reason.value.trim().length < 3) {
          setAlert(error, t('organiser.reason_required'));
          return;
        }
        post(`pairings/${enc(can.dispute)}/dispute`, { reason: reason.value.trim() })();
      });
      parts.push(form);
    }
    if (e?.deck) {
      parts.push(h('section', { class: 'panel', 'aria-labelledby': 'deck-title' },
        h('h2', { id: 'deck-title' }, t('me.my_deck', { name: e.deck_name || t('me.custom_deck') })),
        h('p', { class: 'help' }, e.deck_locked ? t('me.deck_locked') : t('me.deck_open')),
        deckList(t, e.deck, cards, 'my-deck')));
    }
    if (me.pairings.length) {
      parts.push(h('section', { class: 'panel', 'aria-labelledby': 'mine-title' },
        h('h2', { id: 'mine-title' }, t('me.results')),
        dataTable({
          id: 'my-pairings', caption: t('me.results'),
          columns: [{ label: t('event.col_round') }, { label: t('event.col_player_a') }, { label: t('event.col_player_b') }, { label: t('event.col_result') }],
          rows: me.pairings.map((p) => h('tr', { 'data-pairing': p.id }, h('td', {}, p.round), h('td', {}, nameOf(p.players[0])),
            h('td', {}, p.players[1] === null ? t('pairing.bye') : nameOf(p.players[1])), h('td', {}, resultText(t, p, nameOf)))),
        })));
    }
    if (me.disputes.length) {
      parts.push(h('ul', { class: 'plain-list', id: 'my-disputes' }, me.disputes.map((d) =>
        h('li', {}, t('me.dispute_status', { pairing: d.pairing, status: t(`dispute.${d.status}`) })))));
    }
    body.replaceChildren(...parts);
    // A draft's socket is refused for good: open one once the event is public.
    if (tour.status !== 'draft') updates.wake();
  }

  load().then(() => focusHeading(main));
  return {
    destroy() {
      gone = true;
      updates.close();
    },
  };
}

// The organiser's controls on an event page (#/tournaments/<id>, only for those who may manage
// it): the life-cycle buttons (open registration, check-in, start, next round, cancel), a result
// set with a reason, open disputes, computer players for a test event, dropping a player, every
// deck list. Each change answers with the new event, which the page then shows (`apply`).

import { request } from '../api.js';
import { levelName, botLevels } from '../bots.js';
import { h } from '../dom.js';
import { alertBox, field, setAlert } from '../ui.js';
import { cardNames, deckList, enc, errText, numberInput, readNumber, select } from './common.js';

/**
 * The controls for event `ev` (GET /api/tournaments/<id>), or null for a viewer who may not
 * manage it. `nameOf(uid)`, `findPairing(id)` read the event shown; `apply(fresh)` shows a
 * changed one (and resolves once it is drawn).
 */
export function organiserControls(ctx, id, ev, { nameOf, findPairing, apply }) {
  const { t } = ctx;
  if (!ev.viewer?.can_manage) return null;
  const alert = alertBox();
  alert.id = 'organiser-error';
  const act = (what, body) => async () => {
    setAlert(alert, '');
    try {
      await apply(await request('POST', `/api/tournaments/${enc(id)}/${what}`, body));
      ctx.toast(t(`organiser.done_${what.replace(/-/g, '_')}`, null, { fallback: t('organiser.done') }));
    } catch (err) {
      setAlert(alert, errText(ctx, err));
    }
  };
  const buttons = [];
  const btn = (what, label, primary = false) =>
    h('button', { type: 'button', class: `btn ${primary ? 'btn-primary' : ''} btn-small`, id: `org-${what}`, onclick: act(what) }, label);
  if (ev.status === 'draft') buttons.push(btn('open-registration', t('organiser.open_registration'), true));
  if (ev.status === 'registration') buttons.push(btn('open-check-in', t('organiser.open_check_in'), true));
  if (ev.status === 'check_in') buttons.push(btn('start', t('organiser.start'), true));
  if (ev.status === 'running') buttons.push(btn('next-round', t('organiser.next_round')));
  if (!['finished', 'cancelled'].includes(ev.status)) {
    buttons.push(h('button', {
      type: 'button', class: 'btn btn-ghost btn-small', id: 'org-cancel',
      onclick: () => { if (confirm(t('organiser.cancel_confirm'))) act('cancel', { reason: null })(); },
    }, t('organiser.cancel')));
  }
  const parts = [h('div', { class: 'button-row' }, buttons)];
  // The rarer tools fold away (details/summary: keyboard-operable without script).
  if (ev.status === 'running' || ev.status === 'finished') parts.push(overrideForm(alert));
  if (ev.disputes?.some((d) => d.status === 'open')) parts.push(disputesBox(alert));
  if (ev.status === 'registration' || ev.status === 'check_in') parts.push(botsForm(alert));
  if (ev.status !== 'finished' && ev.status !== 'cancelled' && ev.entrants.length) parts.push(dropForm(alert));
  if (ev.game === 'parbaj') parts.push(decksBox(alert));
  return h('section', { class: 'panel organiser', 'aria-labelledby': 'organiser-title' },
    h('h2', { id: 'organiser-title' }, t('organiser.title')), alert, ...parts);

  function resultFields(prefix, p) {
    const [a, b] = p ? p.players : [null, null];
    const winner = select(`${prefix}-winner`, [[a ?? '', nameOf(a)], [b ?? '', nameOf(b)], ['__draw', t('organiser.draw')]], a ?? '');
    const ga = numberInput(`${prefix}-games-a`, null, { min: 0, max: 7, placeholder: t('create.auto') });
    const gb = numberInput(`${prefix}-games-b`, null, { min: 0, max: 7, placeholder: t('create.auto') });
    const read = () => {
      const out = { winner: winner.value === '__draw' ? null : winner.value };
      const x = readNumber(ga);
      const y = readNumber(gb);
      if (x !== null && y !== null) out.games = [x, y];
      return out;
    };
    const el = h('div', { class: 'option-fields' },
      field(`${prefix}-winner`, t('organiser.winner'), winner),
      field(`${prefix}-games-a`, t('organiser.games_of', { name: nameOf(a) }), ga),
      field(`${prefix}-games-b`, t('organiser.games_of', { name: nameOf(b) }), gb));
    return { el, read };
  }

  function overrideForm(alert) {
    const candidates = (ev.current_round?.pairings || []).filter((p) => !p.bye && (p.status === 'pending' || p.status === 'done'));
    if (!candidates.length) return null;
    const pick = select('override-pairing', candidates.map((p) => [p.id, `${p.id}: ${nameOf(p.players[0])} – ${nameOf(p.players[1])}`]), candidates[0].id);
    const holder = h('div');
    let fields = null;
    const showFields = () => {
      fields = resultFields('override', candidates.find((p) => p.id === pick.value));
      holder.replaceChildren(fields.el);
    };
    pick.addEventListener('change', showFields);
    showFields();
    const reason = h('input', { id: 'override-reason', name: 'reason', type: 'text', maxlength: '500', required: true });
    const form = h('form', { id: 'override-form', class: 'stack', novalidate: true },
      h('p', { class: 'help' }, t('organiser.override_help')),
      field('override-pairing', t('organiser.pairing'), pick), holder,
      field('override-reason', t('organiser.reason'), reason),
      h('button', { type: 'submit', class: 'btn btn-small', id: 'override-submit' }, t('organiser.override_submit')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (reason.value.trim().length < 3) {
        setAlert(alert, t('organiser.reason_required'));
        reason.focus();
        return;
      }
      try {
        await apply(await request('POST', `/api/tournaments/${enc(id)}/pairings/${enc(pick.value)}/override`, { result: fields.read(), reason: reason.value.trim() }));
        ctx.toast(t('organiser.done'));
      } catch (err) {
        setAlert(alert, errText(ctx, err));
      }
    });
    return h('details', { class: 'organiser-part', id: 'override-details' }, h('summary', {}, t('organiser.override')), form);
  }

  function disputesBox(alert) {
    const items = ev.disputes.filter((d) => d.status === 'open').map((d) => {
      const p = findPairing(d.pairing);
      const fields = resultFields(`dispute-${d.id}`, p);
      const reason = h('input', { id: `dispute-${d.id}-reason`, type: 'text', maxlength: '500' });
      const send = (decision) => async () => {
        if (reason.value.trim().length < 3) {
          setAlert(alert, t('organiser.reason_required'));
          reason.focus();
          return;
        }
        const body = { decision, reason: reason.value.trim() };
        if (decision === 'override') body.result = fields.read();
        try {
          await apply(await request('POST', `/api/tournaments/${enc(id)}/disputes/${d.id}/resolve`, body));
          ctx.toast(t('organiser.done'));
        } catch (err) {
          setAlert(alert, errText(ctx, err));
        }
      };
      return h('li', { class: 'dispute', 'data-dispute': d.id },
        h('p', {}, t('organiser.dispute_by', { name: nameOf(d.by), pairing: d.pairing })), h('blockquote', {}, d.reason),
        fields.el, field(`dispute-${d.id}-reason`, t('organiser.reason'), reason),
        h('div', { class: 'button-row' },
          h('button', { type: 'button', class: 'btn btn-small', id: `dispute-${d.id}-uphold`, onclick: send('uphold') }, t('organiser.uphold')),
          h('button', { type: 'button', class: 'btn btn-primary btn-small', id: `dispute-${d.id}-override`, onclick: send('override') }, t('organiser.override_submit'))));
    });
    return h('div', { id: 'disputes', class: 'organiser-part' }, h('h3', {}, t('organiser.disputes')), h('ul', { class: 'plain-list' }, items));
  }

  // Computer players for a test event (POST /api/tournaments/<id>/bots): checked in at once.
  function botsForm(alert) {
    const level = h('select', { id: 'bots-level', name: 'level' });
    const count = numberInput('bots-count', 1, { min: 1, max: 64 });
    const submit = h('button', { type: 'submit', class: 'btn btn-small', id: 'bots-submit' }, t('organiser.add_bots'));
    botLevels()
      .then((all) => {
        const levels = all[ev.game] || [];
        level.replaceChildren(...levels.map((lv) => h('option', { value: lv }, levelName(t, lv))));
        submit.disabled = !levels.length;
      })
      .catch((err) => setAlert(alert, errText(ctx, err)));
    const form = h('form', { id: 'bots-form', class: 'stack' },
      h('p', { class: 'help' }, t('organiser.bots_help')),
      field('bots-level', t('organiser.bots_level'), level),
      field('bots-count', t('organiser.bots_count'), count),
      submit);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      setAlert(alert, '');
      try {
        await apply(await request('POST', `/api/tournaments/${enc(id)}/bots`, { level: level.value, count: readNumber(count) ?? 1 }));
        ctx.toast(t('organiser.done_bots'));
      } catch (err) {
        setAlert(alert, errText(ctx, err));
      }
    });
    return h('details', { class: 'organiser-part', id: 'bots-details' }, h('summary', {}, t('organiser.add_bots')), form);
  }

  function dropForm(alert) {
    const people = ev.entrants.filter((e) => ['registered', 'checked_in', 'waitlisted', 'playing'].includes(e.status) && !e.dropped);
    if (!people.length) return null;
    const pick = select('drop-player', people.map((e) => [e.user.id, e.user.name]), people[0].user.id);
    const form = h('form', { id: 'drop-form', class: 'stack' },
      field('drop-player', t('organiser.drop_player'), pick),
      h('button', { type: 'submit', class: 'btn btn-small', id: 'drop-submit' }, t('organiser.drop')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (!confirm(t('organiser.drop_confirm', { name: pick.selectedOptions[0]?.textContent || '' }))) return;
      try {
        await apply(await request('POST', `/api/tournaments/${enc(id)}/players/${enc(pick.value)}/drop`, { reason: null }));
      } catch (err) {
        setAlert(alert, errText(ctx, err));
      }
    });
    return h('details', { class: 'organiser-part', id: 'drop-details' }, h('summary', {}, t('organiser.drop')), form);
  }

  function decksBox(alert) {
    const box = h('div', { id: 'deck-lists' });
    const show = h('button', {
      type: 'button', class: 'btn btn-ghost btn-small', id: 'show-decks',
      onclick: async () => {
        try {
          const [lists, names] = await Promise.all([request('GET', `/api/tournaments/${enc(id)}/decks`), cardNames()]);
          box.replaceChildren(lists.length
            ? h('ul', { class: 'plain-list' }, lists.map((d) => h('li', { 'data-user': d.user.id },
              h('strong', {}, d.user.name), ` — ${d.deck_name || t('me.custom_deck')}`, deckList(t, d.deck, names))))
            : h('p', { class: 'empty' }, t('organiser.no_decks')));
        } catch (err) {
          setAlert(alert, errText(ctx, err));
        }
      },
    }, t('organiser.show_decks'));
    return h('details', { class: 'organiser-part', id: 'decks-details' }, h('summary', {}, t('organiser.decks')), show, box);
  }
}

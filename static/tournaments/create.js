// The organiser's form for a new tournament (under the list, #/tournaments): format, best-of,
// seeding, rounds, top cut, cap, pairing, break, no-show, round timer, the game's own options
// (app.js optionFields, less those the tournament sets itself), open lists, late entry.

import { request } from '../api.js';
import { h } from '../dom.js';
import { field, setAlert } from '../ui.js';
import { FORMATS, check, enc, errText, numberInput, readNumber, select } from './common.js';

const TOP_CUTS = [0, 2, 4, 8, 16, 32, 64];
// Engine options the tournament sets for each match (not the organiser's to fix).
const RESERVED = { parbaj: ['best_of', 'decks', 'open_deck_lists'] };

export function createPanel(ctx, games, error) {
  const { t } = ctx;
  const name = h('input', { id: 'new-name', name: 'name', type: 'text', maxlength: '80', required: true, autocomplete: 'off' });
  const gameSel = select('new-game', games.map((g) => [g.id, g.name || g.id]), games[0]?.id || '');
  const formatSel = select('new-format', FORMATS.map((f) => [f, t(`format.${f}`)]), 'swiss');
  const bestOf = select('new-best-of', [1, 3, 5, 7].map((n) => [n, t('create.best_of_n', { n })]), 1);
  const seeding = select('new-seeding', ['rating', 'manual', 'random'].map((s) => [s, t(`seeding.${s}`)]), 'rating');
  const rounds = numberInput('new-rounds', null, { min: 1, max: 64, placeholder: t('create.auto') });
  const topCut = select('new-top-cut', TOP_CUTS.map((n) => [n, n ? t('create.top_n', { n }) : t('create.no_cut')]), 0);
  const cutBestOf = select('new-cut-best-of', [['', t('create.same')], ...[1, 3, 5, 7].map((n) => [n, t('create.best_of_n', { n })])], '');
  const cap = numberInput('new-cap', null, { min: 2, max: 1024, placeholder: t('create.no_limit') });
  const pairing = select('new-pairing', [['auto', t('create.pairing_auto')], ['manual', t('create.pairing_manual')]], 'auto');
  const breakSecs = numberInput('new-break', 60, { min: 0, max: 3600 });
  const noshow = numberInput('new-noshow', 300, { min: 30, max: 3600, placeholder: t('create.off') });
  const roundMin = numberInput('new-round-minutes', null, { min: 1, max: 600, placeholder: t('create.off') });
  const description = h('textarea', { id: 'new-description', name: 'description', maxlength: '2000', rows: '3' });
  const swissOnly = h(
    'div',
    { class: 'option-fields', 'data-only': 'swiss' },
    field('new-rounds', t('create.rounds'), rounds, t('create.rounds_help')),
    field('new-top-cut', t('create.top_cut'), topCut),
    field('new-cut-best-of', t('create.top_cut_best_of'), cutBestOf),
    check('new-late-entry', t('create.late_entry'), true, t('create.late_entry_help')),
  );
  const doubleOnly = h('div', { class: 'option-fields', 'data-only': 'double_elimination' },
    check('new-reset', t('create.grand_final_reset'), true, t('create.grand_final_reset_help')));
  const listsBox = h('div', { class: 'option-fields', 'data-only': 'parbaj' },
    check('new-open-lists', t('create.open_lists'), false, t('create.open_lists_help')));
  const gameOpts = h('div', { id: 'new-game-options' });
  let readGameOptions = () => ({});
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'new-submit' }, t('create.submit'));
  const form = h(
    'form',
    { id: 'new-tournament', class: 'stack', novalidate: true },
    h('div', { class: 'option-fields' },
      field('new-name', t('create.name'), name),
      field('new-game', t('create.game'), gameSel),
      field('new-format', t('create.format'), formatSel),
      field('new-best-of', t('create.best_of'), bestOf),
      field('new-seeding', t('create.seeding'), seeding),
      field('new-cap', t('create.cap'), cap, t('create.cap_help')),
      field('new-pairing', t('create.pairing'), pairing),
      field('new-break', t('create.round_break'), breakSecs, t('create.round_break_help')),
      field('new-noshow', t('create.noshow'), noshow, t('create.noshow_help')),
      field('new-round-minutes', t('create.round_minutes'), roundMin, t('create.round_minutes_help')),
    ),
    swissOnly,
    doubleOnly,
    listsBox,
    h('fieldset', { class: 'stack' }, h('legend', {}, t('create.game_options')), gameOpts),
    field('new-description', t('create.description'), description),
    submit,
  );

  function refresh() {
    const fmt = formatSel.value;
    swissOnly.hidden = fmt !== 'swiss';
    doubleOnly.hidden = fmt !== 'double_elimination';
    listsBox.hidden = gameSel.value !== 'parbaj';
    const game = games.find((g) => g.id === gameSel.value);
    const reserved = RESERVED[gameSel.value] || [];
    for (const opt of bestOf.options) opt.disabled = gameSel.value === 'parbaj' && opt.value === '7';
    if (!game) return;
    const props = Object.fromEntries(
      Object.entries(game.options_schema?.properties || {}).filter(([k]) => !reserved.includes(k)),
    );
    ctx.ensureNamespace(game.id).then(() => {
      const built = ctx.optionFields({ ...game, options_schema: { ...game.options_schema, properties: props } });
      gameOpts.replaceChildren(built.el);
      readGameOptions = built.read;
    });
  }
  formatSel.addEventListener('change', refresh);
  gameSel.addEventListener('change', refresh);
  refresh();

  let busy = false;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    if (!name.value.trim()) {
      setAlert(error, t('create.name_required'));
      name.focus();
      return;
    }
    const fmt = formatSel.value;
    const settings = {
      best_of: Number(bestOf.value),
      seeding: seeding.value,
      cap: readNumber(cap),
      pairing: pairing.value,
      round_break_seconds: readNumber(breakSecs) ?? 0,
      noshow_seconds: readNumber(noshow),
      round_minutes: readNumber(roundMin),
      game_options: readGameOptions(),
      description: description.value.trim(),
    };
    if (fmt === 'swiss') {
      settings.rounds = readNumber(rounds);
      settings.top_cut = Number(topCut.value);
      settings.top_cut_best_of = cutBestOf.value ? Number(cutBestOf.value) : null;
      settings.late_entry = form.querySelector('#new-late-entry').checked;
    }
    if (fmt === 'double_elimination') settings.grand_final_reset = form.querySelector('#new-reset').checked;
    if (gameSel.value === 'parbaj') settings.open_lists = form.querySelector('#new-open-lists').checked;
    busy = true;
    submit.disabled = true;
    try {
      const created = await request('POST', '/api/tournaments', { name: name.value.trim(), game: gameSel.value, format: fmt, settings });
      location.hash = `#/tournaments/${enc(created.id)}`;
    } catch (err) {
      setAlert(error, errText(ctx, err));
      error.scrollIntoView?.({ block: 'nearest' });
    } finally {
      busy = false;
      submit.disabled = false;
    }
  });
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'new-title', id: 'new-tournament-panel' },
    h('h2', { id: 'new-title' }, t('create.title')),
    h('p', { class: 'help' }, t('create.intro')),
    form,
  );
}

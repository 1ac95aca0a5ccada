// Computer players in the browser client: the lobby's "Play the computer" panel, the waiting
// room's "Add computer" for the host, and how a computer seat is named and marked everywhere
// (a robot badge next to its name). Server side: app/api/bots.py; see docs/bots.md.
//
// A computer seat's user carries `bot`: its level ("random", "strong", ...) in live matches
// and history alike (`true` when history cannot tell the level). Its name is shown in the
// reader's language from the level, not the English name the server stores.

import { request, withSeed } from './api.js';

const LEVEL_KEY = 'duelhall.botLevel';
let levelsCache = null;

/** {game: [levels, weakest first]} from GET /api/bots (fetched once per page). */
export function botLevels() {
  if (!levelsCache) {
    levelsCache = request('GET', '/api/bots')
      .then((r) => (r && r.levels) || {})
      .catch((err) => {
        levelsCache = null; // try again next time
        throw err;
      });
  }
  return levelsCache;
}

export function isBot(user) {
  return !!(user && typeof user === 'object' && user.bot);
}

export function levelName(t, level) {
  return t(`bots.levels.${level}`, null, { fallback: String(level) });
}

/** "Computer (random)", "Computer 2 (random)": the number of a second bot of one level. The
 *  level is `user.bot`, or read from the id `bot-<level>-<n>` (profiles say only `bot: true`). */
export function botName(t, user) {
  const m = /^bot-(.+)-(\d+)$/.exec(String(user.id || ''));
  const code = typeof user.bot === 'string' ? user.bot : m && m[1];
  if (!code) return user.name || t('bots.badge');
  const n = m ? Number(m[2]) : 1;
  const level = levelName(t, code);
  return n > 1 ? t('bots.name_n', { n, level }) : t('bots.name', { level });
}

/** `doc` (a view document) with its computer players' names in the reader's language. */
export function withBotNames(t, doc) {
  const players = Array.isArray(doc.players) ? doc.players : [];
  if (!players.some((p) => isBot(p.user))) return doc;
  const named = players.map((p) => (isBot(p.user) ? { ...p, user: { ...p.user, name: botName(t, p.user) } } : p));
  return { ...doc, players: named };
}

// A small robot head, drawn in the text colour (no font or image needed).
const ROBOT_SVG =
  '<svg viewBox="0 0 16 16" width="11" height="11" focusable="false" aria-hidden="true">' +
  '<g fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round">' +
  '<rect x="2.5" y="5" width="11" height="8.5" rx="1.5"/><path d="M8 5V2.6M1 9v2M15 9v2"/></g>' +
  '<g fill="currentColor"><circle cx="8" cy="2" r="1.2"/><circle cx="5.7" cy="8.6" r="1.2"/>' +
  '<circle cx="10.3" cy="8.6" r="1.2"/><rect x="5.5" y="11" width="5" height="1.2" rx=".6"/></g></svg>';

/** The badge marking a computer player (a .tag, like "host" and "you"). */
export function botBadge(h, t) {
  const icon = h('span', { class: 'bot-icon', 'aria-hidden': 'true' });
  icon.innerHTML = ROBOT_SVG;
  return h('span', { class: 'tag tag-bot', 'data-testid': 'bot-badge' }, icon, ' ', t('bots.badge'));
}

function remembered() {
  try {
    return localStorage.getItem(LEVEL_KEY);
  } catch {
    return null;
  }
}

function remember(level) {
  try {
    localStorage.setItem(LEVEL_KEY, level);
  } catch {
    /* storage disabled */
  }
}

function levelOptions(h, t, select, levels) {
  const keep = select.value || remembered();
  select.replaceChildren(...levels.map((lv) => h('option', { value: lv, selected: lv === keep }, levelName(t, lv))));
}

/**
 * The lobby's "Play the computer" controls (a fieldset under the create form, sharing its game
 * and options). ctx: {h, t, errorText, showError, clearError, options() -> the form's options
 * or null when the form is not valid, onCreated(summary)}. Returns {el, update(game)}.
 */
export function playComputerPanel(ctx) {
  const { h, t } = ctx;
  const level = h('select', { id: 'play-computer-level', name: 'bot_level' });
  const count = h('input', {
    id: 'play-computer-count',
    name: 'bot_count',
    type: 'number',
    inputmode: 'numeric',
    min: '1',
    max: '1',
    step: '1',
    required: true,
    value: '1',
    'aria-describedby': 'play-computer-count-help',
  });
  const countField = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'play-computer-count' }, t('bots.count')),
    count,
    h('p', { id: 'play-computer-count-help', class: 'help' }, t('bots.count_help')),
  );
  const note = h('p', { class: 'help', id: 'play-computer-note' }, t('bots.intro'));
  const submit = h('button', { type: 'button', id: 'play-computer', class: 'btn', disabled: true }, t('bots.submit'));
  const el = h(
    'fieldset',
    { class: 'options play-computer', id: 'play-computer-panel', 'aria-describedby': 'play-computer-note' },
    h('legend', {}, t('bots.title')),
    h(
      'div',
      { class: 'option-fields' },
      note,
      h('div', { class: 'field' }, h('label', { for: 'play-computer-level' }, t('bots.level')), level),
      countField,
      h('div', {}, submit),
    ),
  );
  let gameId = null;
  let busy = false;

  async function update(game) {
    const id = game?.id || null;
    gameId = id;
    submit.disabled = true;
    let levels = {};
    try {
      levels = await botLevels();
    } catch {
      levels = {};
    }
    if (gameId !== id) return; // another game was picked meanwhile
    const list = levels[id] || [];
    levelOptions(h, t, level, list);
    level.disabled = !list.length;
    submit.disabled = busy || !list.length;
    note.textContent = list.length ? t('bots.intro') : t('bots.none');
    const room = Math.max(1, (game?.max_players || 2) - 1);
    count.max = String(room);
    if (Number(count.value) > room) count.value = String(room);
    countField.hidden = room <= 1;
  }

  // Outside the create form, so Enter in the count would do nothing: make it play.
  count.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      submit.click();
    }
  });

  submit.addEventListener('click', async () => {
    if (busy || !gameId || !level.value) return;
    const options = ctx.options();
    if (options === null) return;
    if (!countField.hidden && !count.reportValidity()) return;
    busy = true;
    submit.disabled = true;
    ctx.clearError();
    remember(level.value);
    try {
      const bots = countField.hidden ? 1 : Math.trunc(Number(count.value)) || 1;
      const summary = await withSeed((seed) =>
        request('POST', '/api/bots/matches', { game: gameId, options, level: level.value, bots, seed }),
      );
      ctx.onCreated(summary);
    } catch (err) {
      ctx.showError(ctx.errorText(err));
      submit.disabled = false;
    } finally {
      busy = false;
    }
  });

  return { el, update };
}

/**
 * The host's "Add computer" in a waiting room: a level and a button; made once per match
 * screen and put back on every redraw (so the chosen level and the focus stay).
 * ctx: {h, t, matchId, game, onAdded(summary), onError(err)}. Returns {el}.
 */
export function addComputerControl(ctx) {
  const { h, t } = ctx;
  const level = h('select', { id: 'add-computer-level', name: 'bot_level', 'aria-describedby': 'add-computer-help' });
  const button = h('button', { type: 'button', id: 'add-computer', class: 'btn btn-small', disabled: true }, t('bots.add'));
  const el = h(
    'div',
    { class: 'field invite-field add-computer', 'data-testid': 'add-computer' }, // the invite link's layout
    h('label', { for: 'add-computer-level' }, t('bots.level')),
    h('div', { class: 'input-row' }, level, button),
    h('p', { id: 'add-computer-help', class: 'help' }, t('bots.add_help')),
  );
  let busy = false;
  botLevels()
    .then((levels) => {
      const list = levels[ctx.game] || [];
      levelOptions(h, t, level, list);
      button.disabled = !list.length;
      if (!list.length) el.hidden = true;
    })
    .catch(() => {
      el.hidden = true;
    });
  button.addEventListener('click', async () => {
    if (busy || !level.value) return;
    busy = true;
    button.disabled = true;
    remember(level.value);
    try {
      ctx.onAdded(await request('POST', `/api/matches/${encodeURIComponent(ctx.matchId)}/bots`, { level: level.value }));
    } catch (err) {
      ctx.onError(err);
    } finally {
      busy = false;
      button.disabled = false;
    }
  });
  return { el };
}

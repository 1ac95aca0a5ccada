// Generic board: for games without a board module of their own (or whose module failed).
// Shows whose move it is, one button per legal action (templates with {"one_of": [...]}
// values get a select per choice), the recent events and the JSON state.

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function isChoice(v) {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.keys(v).length === 1 &&
    Array.isArray(v.one_of)
  );
}

/** Paths (arrays of keys) of every {"one_of": [...]} inside a template. */
export function choicePaths(value, path = [], out = []) {
  if (isChoice(value)) {
    out.push({ path, options: value.one_of });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => choicePaths(v, [...path, i], out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) choicePaths(v, [...path, k], out);
  }
  return out;
}

/** Replace each one_of at the given paths by the chosen value. */
export function fillTemplate(template, picks) {
  const walk = (value, path) => {
    if (isChoice(value)) {
      const key = JSON.stringify(path);
      return picks.has(key) ? picks.get(key) : value.one_of[0];
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, i]));
    if (value && typeof value === 'object') {
      const out = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, [...path, k]);
      return out;
    }
    return value;
  };
  return walk(template, []);
}

function short(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A readable label for an action: "type key=value …". */
export function describeAction(action) {
  if (!action || typeof action !== 'object') return short(action);
  const parts = [String(action.type ?? '?')];
  for (const [k, v] of Object.entries(action)) {
    if (k === 'type') continue;
    parts.push(`${k}=${short(v)}`);
  }
  return parts.join(' ');
}

export function mount(el, ctx) {
  const t = ctx.t;
  let view = null;
  let busy = false;
  let buttons = [];

  const turn = h('p', { class: 'generic-turn', 'aria-live': 'polite' });
  const actionsList = h('div', { class: 'generic-actions' });
  const feedback = h('p', { class: 'generic-feedback', role: 'status' });
  const eventsList = h('ol', { class: 'generic-events' });
  const statePre = h('pre', { class: 'generic-state', tabindex: '0' });

  const root = h(
    'div',
    { class: 'board board-generic', 'data-testid': 'generic-board' },
    h('p', { class: 'muted small' }, t('generic.note')),
    turn,
    h(
      'section',
      { class: 'generic-block', 'aria-labelledby': `generic-actions-${ctx.matchId}` },
      h('h3', { id: `generic-actions-${ctx.matchId}` }, t('generic.actions')),
      actionsList,
      feedback,
    ),
    h(
      'details',
      { class: 'generic-block', open: true },
      h('summary', {}, t('generic.events')),
      eventsList,
    ),
    h('details', { class: 'generic-block' }, h('summary', {}, t('generic.state')), statePre),
  );
  el.append(root);

  async function send(action) {
    if (busy) return;
    busy = true;
    buttons.forEach((b) => (b.disabled = true));
    feedback.textContent = t('generic.sending');
    try {
      await ctx.act(action);
      feedback.textContent = '';
    } catch (err) {
      feedback.textContent = t('generic.rejected', {
        message: err?.message || err?.code || String(err),
      });
    } finally {
      busy = false;
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  let legalKey = null;
  function renderActions() {
    // Rebuild only when the legal set changed, so keyboard focus survives other updates.
    const key = JSON.stringify(view?.legal ?? []);
    if (key === legalKey) return;
    legalKey = key;
    actionsList.replaceChildren();
    buttons = [];
    const legal = Array.isArray(view?.legal) ? view.legal : [];
    if (!legal.length) {
      actionsList.append(h('p', { class: 'muted' }, t('generic.no_actions')));
      return;
    }
    legal.forEach((action, i) => {
      const choices = choicePaths(action);
      if (!choices.length) {
        const b = h(
          'button',
          { type: 'button', class: 'btn', 'data-testid': 'legal-action', 'data-index': i },
          describeAction(action),
        );
        b.addEventListener('click', () => send(action));
        buttons.push(b);
        actionsList.append(b);
        return;
      }
      // Template: one select per choice, then a send button.
      const form = h('form', { class: 'generic-template', 'data-testid': 'legal-template' });
      const selects = choices.map(({ path, options }, j) => {
        const id = `gen-${ctx.matchId}-${i}-${j}`;
        const sel = h(
          'select',
          { id, 'data-path': JSON.stringify(path) },
          options.map((o, k) => h('option', { value: String(k) }, short(o))),
        );
        form.append(h('label', { for: id, class: 'field-inline' }, path.join('.') || 'value'), sel);
        return { sel, path, options };
      });
      const b = h(
        'button',
        { type: 'submit', class: 'btn', 'data-testid': 'legal-action', 'data-index': i },
        t('generic.send', { type: String(action.type ?? '?') }),
      );
      form.append(b);
      buttons.push(b);
      form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const picks = new Map();
        for (const { sel, path, options } of selects) {
          picks.set(JSON.stringify(path), options[Number(sel.value)]);
        }
        send(fillTemplate(action, picks));
      });
      actionsList.append(form);
    });
    if (busy) buttons.forEach((b) => (b.disabled = true));
  }

  function renderTurn() {
    const pending = Array.isArray(view?.pending) ? view.pending : [];
    if (view?.result || view?.status === 'finished' || view?.status === 'aborted') {
      turn.textContent = t('generic.over');
    } else if (ctx.seat && pending.includes(ctx.seat)) {
      turn.textContent = t('match.your_move');
    } else if (pending.length) {
      turn.textContent = t('match.waiting_for', { seats: pending.join(', ') });
    } else {
      turn.textContent = '';
    }
  }

  function renderEvents() {
    const events = Array.isArray(view?.events) ? view.events : [];
    eventsList.replaceChildren(
      ...events.slice(-30).map((e) => h('li', {}, describeAction(e))),
    );
    if (!events.length) eventsList.append(h('li', { class: 'muted' }, t('generic.no_events')));
  }

  return {
    update(doc) {
      view = doc;
      renderTurn();
      renderActions();
      renderEvents();
      statePre.textContent = JSON.stringify(doc?.state ?? null, null, 2);
    },
    destroy() {
      root.remove();
    },
  };
}

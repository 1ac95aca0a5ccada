// What the non-board screens (profile, admin, tournaments, lab, accounts, deck builder) share:
// the formats of dates, numbers and durations, the data table, the hash's query, saving a file,
// a screen's stylesheet, the error line under a heading, form fields, focus on arrival, the
// modal dialog. Plain ES module; nodes come from dom.js.

import { h } from './dom.js';
import { fmtClock } from './games/board.js';

// ---- formats ----------------------------------------------------------------------------------
/** A date and time in the reader's language ('—' for none; the text itself if unreadable). */
export function fmtDate(iso, lang, opts = { dateStyle: 'medium', timeStyle: 'short' }) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  try {
    return new Intl.DateTimeFormat(lang, opts).format(d);
  } catch {
    return d.toISOString();
  }
}

/** A number with at most `digits` decimals, in the reader's language ('—' for none). */
export function fmtNum(n, lang, digits = 2) {
  if (n === null || n === undefined || Number.isNaN(Number(n))) return '—';
  try {
    return new Intl.NumberFormat(lang, { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(Number(n));
  } catch {
    return String(n);
  }
}

/** A share 0..1 as a percentage with at most two decimals ('—' for none). */
export function fmtPercent(v, lang) {
  if (v === null || v === undefined) return '—';
  try {
    return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 2 }).format(v);
  } catch {
    return String(v);
  }
}

/** A length of time in seconds: "12.5 s" under a minute, else the clock's own format
 *  (games/board.js fmtClock, the one clock formatter: m:ss, h:mm:ss from an hour). */
export function fmtDuration(seconds, lang) {
  if (seconds === null || seconds === undefined) return '—';
  const s = Number(seconds);
  if (s < 60) return `${fmtNum(s, lang, 1)} s`;
  return fmtClock(Math.round(s) * 1000);
}

// ---- tables -----------------------------------------------------------------------------------
/**
 * A table with a caption (for screen readers) and column headers. A column is its label (text
 * or a node) or {label, num} (num: a right-aligned number column); rows are <tr> nodes.
 */
export function dataTable({ id, caption, columns, rows, cls = 'matches data-table' }) {
  const th = (c) => {
    const col = c && typeof c === 'object' && !(c instanceof Node) ? c : { label: c };
    return h('th', { scope: 'col', class: col.num ? 'num' : null }, col.label);
  };
  return h(
    'table',
    { class: cls, id },
    h('caption', { class: 'sr-only' }, caption),
    h('thead', {}, h('tr', {}, columns.map(th))),
    h('tbody', {}, rows),
  );
}

// ---- the hash's query (#/path?k=v): filters and positions a link can carry -------------------
export function hashQuery() {
  const raw = location.hash || '';
  const i = raw.indexOf('?');
  return new URLSearchParams(i >= 0 ? raw.slice(i + 1) : '');
}

/** Replace the hash's query without a hashchange (the screen is already showing it). */
export function setHashQuery(params) {
  const raw = location.hash || '#/';
  const path = raw.split('?')[0];
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  }
  const qs = q.toString();
  const next = qs ? `${path}?${qs}` : path;
  if (next !== raw) history.replaceState(history.state, '', next);
}

// ---- files ------------------------------------------------------------------------------------
/** Offer `blob` to the reader as the file `filename`. */
export function saveFile(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
}

// ---- page parts -------------------------------------------------------------------------------
/** A screen's own stylesheet, linked once (a <link>: the Content-Security-Policy allows no
 *  inline styles). */
export function loadCss(id, href) {
  if (typeof document === 'undefined' || document.getElementById(id)) return;
  document.head.append(h('link', { id, rel: 'stylesheet', href }));
}

/** The page's error line (announced when it changes); setAlert fills or hides it. */
export function alertBox(id = 'error-message') {
  return h('p', { class: 'error', role: 'alert', hidden: true, id });
}

export function setAlert(box, text) {
  box.textContent = text || '';
  box.hidden = !text;
}

/** A labelled form field with optional help under it (`<id>-help`). */
export function field(id, label, control, help) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    help ? h('p', { class: 'help', id: `${id}-help` }, help) : null,
  );
}

/** On arrival, focus the page's heading unless the reader is already somewhere on the page
 *  (keyboard and screen-reader users start at the top of the new screen). */
export function focusHeading(main) {
  const heading = main.querySelector('h1');
  const active = document.activeElement;
  if (heading && (!active || active === document.body || !document.contains(active))) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
}

/**
 * A modal <dialog> (focus stays inside, Escape closes); removed from the page when closed.
 * `onSubmit()` answers null to close, or the problem's words to show them and stay open.
 * `shell`: {t, errorText} from app.js.
 */
export function modal(shell, { id, title, body, submitText, onSubmit, returnFocus }) {
  const { t } = shell;
  const error = alertBox(`${id}-error`);
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: `${id}-submit` }, submitText);
  const cancel = h('button', { type: 'button', class: 'btn btn-ghost', id: `${id}-cancel` }, t('common.cancel'));
  const form = h(
    'form',
    { class: 'stack', method: 'dialog', novalidate: true },
    h('h2', { id: `${id}-title` }, title),
    ...body,
    error,
    h('div', { class: 'button-row' }, submit, cancel),
  );
  const dialog = h('dialog', { id, class: 'dh-dialog', 'aria-labelledby': `${id}-title` }, form);
  let busy = false;
  const close = () => {
    if (dialog.open) dialog.close();
  };
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
  });
  cancel.addEventListener('click', close);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    busy = true;
    submit.disabled = true;
    setAlert(error, '');
    try {
      const problem = await onSubmit();
      if (problem) setAlert(error, problem);
      else close();
    } catch (err) {
      setAlert(error, typeof err === 'string' ? err : shell.errorText(err));
    } finally {
      busy = false;
      submit.disabled = false;
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector('input, textarea, select')?.focus();
  return { dialog, close };
}

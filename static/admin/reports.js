// #/admin/reports: the report queue (open or resolved), each report resolvable from here.

import { request } from '../api.js';
import { h } from '../dom.js';
import { alertBox, dataTable, fmtDate, hashQuery, setHashQuery } from '../ui.js';
import { enc, nameOf } from './common.js';

export function reportsPage(root, shell) {
  const { t } = shell;
  const lang = shell.lang();
  let gone = false;
  const status = hashQuery().get('status') === 'resolved' ? 'resolved' : 'open';
  const sel = h(
    'select',
    { id: 'reports-status' },
    ['open', 'resolved'].map((s) => h('option', { value: s, selected: s === status }, t(`admin.reports_${s}`))),
  );
  sel.addEventListener('change', () => {
    setHashQuery({ status: sel.value });
    load(sel.value);
  });
  const box = h('div', { id: 'reports', 'aria-live': 'polite', 'aria-busy': 'true' });
  const error = alertBox();
  root.append(
    h('h1', { id: 'admin-title' }, t('admin.reports_title')),
    error,
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'admin-title' },
      h('div', { class: 'field field-narrow' }, h('label', { for: 'reports-status' }, t('admin.f_status')), sel),
      box,
    ),
  );

  async function load(which) {
    box.setAttribute('aria-busy', 'true');
    try {
      const list = await request('GET', `/api/admin/reports?status=${enc(which)}`);
      if (gone) return;
      render(list || []);
    } catch (err) {
      if (gone) return;
      error.textContent = shell.errorText(err);
      error.hidden = false;
    }
  }

  function render(list) {
    box.removeAttribute('aria-busy');
    if (!list.length) {
      box.replaceChildren(h('p', { class: 'empty', id: 'reports-empty' }, t('admin.no_reports')));
      return;
    }
    const rows = list.map((rep) => {
      const who = h('a', { href: `#/users/${enc(rep.user_id)}` }, rep.user_id);
      nameOf(rep.user_id).then((n) => (who.textContent = n));
      let action;
      if (rep.status === 'open') {
        action = h('button', { type: 'button', class: 'btn btn-small btn-primary', 'data-testid': 'resolve', 'aria-label': t('admin.resolve_aria', { id: rep.id }) }, t('admin.resolve'));
        action.addEventListener('click', async () => {
          action.disabled = true;
          try {
            await request('POST', `/api/admin/reports/${rep.id}/resolve`);
            shell.toast(t('admin.resolved_toast'));
            await load(sel.value);
            box.querySelector('button')?.focus();
          } catch (err) {
            action.disabled = false;
            error.textContent = shell.errorText(err);
            error.hidden = false;
          }
        });
      } else {
        const by = h('span', {}, rep.resolved_by || '');
        if (rep.resolved_by) nameOf(rep.resolved_by).then((n) => (by.textContent = n));
        action = h('span', { class: 'muted small' }, t('admin.resolved_by'), ' ', by, ' · ', fmtDate(rep.resolved_at, lang));
      }
      return h(
        'tr',
        { 'data-testid': 'report-row', 'data-report-id': rep.id, 'data-match-id': rep.match_id },
        h('td', { class: 'num', 'data-label': '#' }, String(rep.id)),
        h('td', { 'data-label': t('admin.col_match') }, h('a', { href: `#/admin/match/${enc(rep.match_id)}` }, h('code', {}, rep.match_id))),
        h('td', { 'data-label': t('admin.col_reporter') }, who),
        h('td', { 'data-label': t('admin.col_reason') }, rep.reason),
        h('td', { 'data-label': t('admin.col_created') }, fmtDate(rep.created_at, lang)),
        h('td', { class: 'actions' }, action),
      );
    });
    box.replaceChildren(
      dataTable({
        id: 'reports-table',
        caption: t('admin.reports_title'),
        columns: ['#', t('admin.col_match'), t('admin.col_reporter'), t('admin.col_reason'), t('admin.col_created'), h('span', { class: 'sr-only' }, t('lobby.col_actions'))],
        rows,
      }),
    );
  }

  load(status);
  return {
    destroy() {
      gone = true;
    },
  };
}

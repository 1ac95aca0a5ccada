// #/admin/audit: every admin action, newest first.

import { request } from '../api.js';
import { h } from '../dom.js';
import { alertBox, dataTable, fmtDate } from '../ui.js';
import { compact, enc, nameOf } from './common.js';

export function auditPage(root, shell) {
  const { t } = shell;
  const lang = shell.lang();
  let gone = false;
  const box = h('div', { id: 'audit', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('common.loading')));
  const error = alertBox();
  root.append(
    h('h1', { id: 'admin-title' }, t('admin.audit_title')),
    h('p', { class: 'lead' }, t('admin.audit_intro')),
    error,
    h('section', { class: 'panel', 'aria-labelledby': 'admin-title' }, box),
  );

  function target(tg) {
    const [kind, rest] = String(tg).split(/:(.*)/s);
    if (kind === 'match' && rest) return h('a', { href: `#/admin/match/${enc(rest)}` }, tg);
    if (kind === 'user' && rest) {
      const a = h('a', { href: `#/users/${enc(rest)}` }, tg);
      nameOf(rest).then((n) => (a.textContent = n));
      return a;
    }
    return tg;
  }

  request('GET', '/api/admin/audit')
    .then((list) => {
      if (gone) return;
      box.removeAttribute('aria-busy');
      if (!list.length) {
        box.replaceChildren(h('p', { class: 'empty' }, t('admin.no_audit')));
        return;
      }
      const rows = list.map((a) => {
        const actor = h('a', { href: `#/users/${enc(a.actor_id)}` }, a.actor_id);
        nameOf(a.actor_id).then((n) => (actor.textContent = n));
        return h(
          'tr',
          { 'data-testid': 'audit-row', 'data-action': a.action, 'data-target': a.target },
          h('td', { 'data-label': t('admin.col_when') }, fmtDate(a.at, lang, { dateStyle: 'short', timeStyle: 'medium' })),
          h('td', { 'data-label': t('admin.col_actor') }, actor),
          h('td', { 'data-label': t('admin.col_audit_action') }, t(`admin.audit_${a.action}`, null, { fallback: a.action })),
          h('td', { 'data-label': t('admin.col_target') }, target(a.target)),
          h('td', { 'data-label': t('admin.col_details') }, a.details ? h('code', { class: 'action-json' }, compact(a.details)) : '—'),
        );
      });
      box.replaceChildren(
        dataTable({
          id: 'audit-table',
          caption: t('admin.audit_title'),
          columns: [t('admin.col_when'), t('admin.col_actor'), t('admin.col_audit_action'), t('admin.col_target'), t('admin.col_details')],
          rows,
        }),
      );
    })
    .catch((err) => {
      if (gone) return;
      box.removeAttribute('aria-busy');
      box.replaceChildren();
      error.textContent = shell.errorText(err);
      error.hidden = false;
    });

  return {
    destroy() {
      gone = true;
    },
  };
}

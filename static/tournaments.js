// Tournament pages (loaded on demand by app.js), one module each under static/tournaments/:
//
//   #/tournaments            list.js: the public list (filters: status, game); organisers also get
//                            "New tournament" (create.js)
//   #/tournaments/<id>       event.js: the public page: bracket (SVG, bracket.js), pairings and
//                            standings per round with every tie-breaker, live-match links,
//                            exports; the organiser's controls (organiser.js: open registration,
//                            check-in, start, next round, override with a reason, disputes, drops,
//                            decks, computer players: a test event, bots marked with a robot badge)
//   #/tournaments/<id>/me    me.js: the player's own page: sign up (Párbaj: with a deck), check
//                            in, next opponent and match, deck, drop, dispute
//
// The pages update without reload over the tournament socket (live.js, on static/ws.js), polling
// while it is down. Shared parts: common.js here, static/ui.js for every screen.
// Strings: static/i18n/<lang>/tournaments.json (ctx.t), falling back to core.json.

import { eventPage } from './tournaments/event.js';
import { listPage } from './tournaments/list.js';
import { mePage } from './tournaments/me.js';
import { loadCss } from './ui.js';

/** ctx: app.js's shell with t = the tournaments translator, route {id, me}, optionFields and
 *  ensureNamespace. Answers {destroy()}. */
export function mount(main, ctx) {
  loadCss('tournaments-css', new URL('./tournaments.css', import.meta.url).href);
  const route = ctx.route || {};
  if (route.id && route.me) return mePage(main, ctx, route.id);
  if (route.id) return eventPage(main, ctx, route.id);
  return listPage(main, ctx);
}

// Game id -> board module, as GET /api/games says: each game's `board` names
// static/games/<board>.js and its message catalogue static/i18n/<lang>/<board>.json; `null`
// means the game has no board of its own. No list of games is kept here.
//
// A board module exports
//   mount(el, ctx) -> {update(viewDoc), destroy()}
// with ctx = {t(key, params), act(action) -> Promise, seat, matchId, lang}.
// The admins' review (static/admin.js) mounts the same modules read-only with ctx.review = true,
// ctx.matchId = null (a board must not fetch anything of the match itself then) and
// ctx.act rejecting with {code: "read_only"}; its view documents carry the viewer's events of
// the steps up to the one shown (the last 64 at most), each tagged with its step's version.
// A game without a board module, or whose module fails to load or has no mount(), gets the
// generic board (generic.js): the state as data and one button per legal action.
//
// Styles: when the board module has a sibling stylesheet (duell.js -> duell.css), the shell
// adds it to the page once, before mounting.

import { api } from '../api.js';
import { ensureNamespace } from '../i18n.js';

const BOARD_NAME = /^[a-z][a-z0-9_]*$/;

let gamesList = null;
const cache = new Map();
const styles = new Map();

/** GET /api/games, fetched once per page (again after a failure). */
function games() {
  if (!gamesList) {
    gamesList = api
      .games()
      .then((list) => (Array.isArray(list) ? list : []))
      .catch((err) => {
        gamesList = null;
        console.warn('The list of games could not be loaded; using the generic board.', err);
        return [];
      });
  }
  return gamesList;
}

/** The board module name of a game (null: the generic board). */
export async function boardName(gameId) {
  const game = (await games()).find((g) => g.id === gameId);
  const name = game && game.board;
  return typeof name === 'string' && BOARD_NAME.test(name) ? name : null;
}

/** Resolve the board for a game id: {mount, generic: bool, ns}, `ns` the catalogue its ctx.t
 *  reads (loaded before this resolves). Never throws. */
export function loadBoard(gameId) {
  if (!cache.has(gameId)) cache.set(gameId, resolveBoard(gameId));
  return cache.get(gameId);
}

async function resolveBoard(gameId) {
  const name = await boardName(gameId);
  if (name) {
    try {
      const [mod] = await Promise.all([import(`./${name}.js`), loadBoardStyle(name), ensureNamespace(name)]);
      if (typeof mod.mount === 'function') return { mount: mod.mount, generic: false, ns: name };
      console.warn(`Board module ${name} (${gameId}) has no mount(); using the generic board.`);
    } catch (err) {
      console.warn(`Board module ${name} (${gameId}) could not be loaded; using the generic board.`, err);
    }
  }
  const generic = await import('./generic.js');
  return { mount: generic.mount, generic: true, ns: 'core' };
}

/** Add a board module's stylesheet (if it has one) to the page; resolves when it is applied. */
export function loadBoardStyle(name) {
  if (styles.has(name)) return styles.get(name);
  const p = (async () => {
    if (!BOARD_NAME.test(String(name)) || typeof document === 'undefined') return false;
    const href = new URL(`./${name}.css`, import.meta.url).href;
    try {
      const res = await fetch(href, { method: 'HEAD' });
      if (!res.ok) return false;
    } catch {
      return false;
    }
    return new Promise((resolve) => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      link.dataset.board = name;
      link.onload = () => resolve(true);
      link.onerror = () => resolve(false);
      document.head.append(link);
    });
  })();
  styles.set(name, p);
  return p;
}

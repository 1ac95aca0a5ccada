// Párbaj board (plain ES module, no build step).
//
//   import { mount } from "/static/games/parbaj.js";
//   const board = mount(element, { t, act, seat, matchId, lang });
//   board.update(viewDoc);  ...  board.destroy();
//
// ctx.t(key, params) translates "parbaj.*" keys (static/i18n/<lang>/parbaj.json); ctx.act(action)
// returns a Promise that resolves on ack and rejects with {code, message}. The view document's
// `state` is the engine view of games/parbaj (docs/rules/parbaj.md §6). Card data comes from the
// public card pool (GET /api/parbaj/cards), so every card is drawn from data.
//
// Playing: select something (a hand card, an ability of one of your creatures, your coach), then
// click one of the highlighted targets (a creature or an empty slot). Every highlighted target
// is also a button in the controls, so the whole board works from the keyboard (Tab, Enter,
// Escape to clear the selection). Only actions listed in `legal` are sent, except a custom deck
// (`{"type": "choose_deck", "cards": [...]}`), which the engine validates.
//
// The card helpers below (cardFace, abilityLine, …) are shared with the deck builder
// (static/parbaj_decks.js).

import { request } from "../api.js";
import { el, fmtClock, same, showClock, submitAction } from "./board.js";

export { el };

export const ELEMENTS = ["fire", "water", "earth", "air", "light", "shadow"];
export const TYPES = [...ELEMENTS, "neutral"];
export const KINDS = ["creature", "field", "coach", "ability"];
export const KEYWORDS = ["damage", "heal", "armor", "boost", "poison", "area", "assassin", "token", "stun", "shroud"];
export const ROMAN = { 1: "I", 2: "II", 3: "III" };
export const MAX_DECK = 15;
const RESERVE_SLOTS = 4;
const POISON_ROUNDS = 2;
const LOG_MAX = 60;
const STEP_MS = 550;

// ------------------------------------------------------------------------------------------
// Data shared by every board on the page
// ------------------------------------------------------------------------------------------
let poolPromise = null;
/** The card pool: Promise<{id: card}> (retried after a failure). */
export function loadPool() {
  if (!poolPromise) {
    poolPromise = request("GET", "/api/parbaj/cards")
      .then((list) => Object.fromEntries((list || []).map((c) => [c.id, c])))
      .catch((err) => {
        poolPromise = null;
        throw err;
      });
  }
  return poolPromise;
}

let startersPromise = null;
export function loadStarters() {
  if (!startersPromise) {
    startersPromise = request("GET", "/api/parbaj/starter-decks").catch((err) => {
      startersPromise = null;
      throw err;
    });
  }
  return startersPromise;
}

// ------------------------------------------------------------------------------------------
// DOM helpers
// ------------------------------------------------------------------------------------------
// ------------------------------------------------------------------------------------------
// Card text from data (translated). `tr` takes keys without the "parbaj." prefix.
// ------------------------------------------------------------------------------------------
export function typeName(tr, type) {
  return tr(`element.${type}`);
}

export function costText(tr, cost) {
  const parts = Object.entries(cost || {}).map(([k, n]) => tr("cost_part", { n, type: tr(`element.${k}`) }));
  return parts.length ? tr("cost", { cost: parts.join(", ") }) : tr("cost_free");
}

/** What an ability does, e.g. "2 fire damage · poison 2 → enemy frontline". */
export function abilityEffect(tr, ab, dmgType) {
  const parts = [];
  const type = dmgType ? typeName(tr, dmgType) : tr("own_type");
  if (ab.damage) parts.push(tr("kw.damage", { n: ab.damage, type }));
  if (ab.boost) parts.push(tr(ab.kind === "attack" ? "kw.boost_attack" : "kw.boost", { n: ab.boost }));
  if (ab.poison) parts.push(tr("kw.poison", { n: ab.poison, rounds: POISON_ROUNDS }));
  if (ab.stun) parts.push(tr("kw.stun"));
  if (ab.heal) parts.push(tr("kw.heal", { n: ab.heal }));
  if (ab.armor) parts.push(tr("kw.armor", { n: ab.armor }));
  if (ab.shroud) parts.push(tr("kw.shroud"));
  if (ab.token) parts.push(tr("kw.token"));
  let target;
  if (ab.kind === "attack") target = ab.area ? tr("aim.area") : ab.assassin ? tr("aim.assassin") : tr("aim.front");
  else if (ab.kind === "passive") target = tr("aim.self");
  else target = ab.area ? tr("aim.all_own") : tr("aim.one_own");
  return tr("effect_to", { effects: parts.join(" · "), target });
}

export function abilityLine(tr, ab, dmgType, extra) {
  return el("span", { class: `pj-ab pj-ab-${ab.kind}` }, [
    el("strong", { class: "pj-ab-name" }, ab.name),
    " ",
    el("span", { class: "pj-ab-kind" }, tr(`ability_kind.${ab.kind}`)),
    " ",
    el("span", { class: "pj-ab-cost" }, costText(tr, ab.cost)),
    extra ? " " : null,
    extra || null,
    el("span", { class: "pj-ab-text" }, abilityEffect(tr, ab, dmgType)),
  ]);
}

function coachPassiveText(tr, p) {
  const gets = [];
  if (p.heal) gets.push(tr("kw.heal", { n: p.heal }));
  if (p.armor) gets.push(tr("kw.armor", { n: p.armor }));
  if (p.boost) gets.push(tr("kw.boost", { n: p.boost }));
  return tr(p.to === "all" ? "coach_passive_all" : "coach_passive_front", { name: p.name, effects: gets.join(" · ") });
}

/** The colour class of a card: its element, or "multi" for a field, "ink" otherwise. */
export function cardTone(card) {
  if (!card) return "ink";
  if (card.kind === "creature") return card.type;
  if (card.kind === "field") return card.types[0];
  return "ink";
}

/** A card drawn from its data: name, kind, element colour, level, endurance, weakness and
 *  immunity, every ability. Spans only, so it may sit inside a button or a label. */
export function cardFace(tr, card, opts = {}) {
  if (!card) return el("span", { class: "pj-card pj-el-ink" }, opts.id || "?");
  const kids = [];
  const head = [el("span", { class: "pj-card-name" }, card.name)];
  if (card.kind === "creature") head.push(el("span", { class: "pj-card-level", title: tr("level", { n: ROMAN[card.level] }) }, ROMAN[card.level]));
  if (opts.count) head.push(el("span", { class: "pj-card-count" }, `×${opts.count}`));
  kids.push(el("span", { class: "pj-card-head" }, head));
  let kindText;
  if (card.kind === "creature") kindText = tr("creature_line", { type: typeName(tr, card.type), level: ROMAN[card.level] });
  else if (card.kind === "field") kindText = tr("field_line", { a: typeName(tr, card.types[0]), b: typeName(tr, card.types[1]) });
  else if (card.kind === "ability") kindText = tr("ability_card_line", { kind: tr(`ability_kind.${card.ability.kind}`) });
  else kindText = tr("kind.coach");
  kids.push(el("span", { class: "pj-card-kind" }, kindText));
  if (card.kind === "creature") {
    const stats = [el("span", { class: "pj-stat" }, tr("endurance", { n: card.endurance }))];
    if (card.weakness) stats.push(el("span", { class: `pj-stat pj-weak pj-tx-${card.weakness}` }, tr("weakness", { type: typeName(tr, card.weakness) })));
    if (card.immunity) stats.push(el("span", { class: `pj-stat pj-immune pj-tx-${card.immunity}` }, tr("immunity", { type: typeName(tr, card.immunity) })));
    kids.push(el("span", { class: "pj-card-stats" }, stats));
    if (card.evolves_from && opts.names) {
      kids.push(el("span", { class: "pj-card-evo" }, tr("evolves_from", { name: opts.names(card.evolves_from) })));
    }
    if (!opts.noAbilities) {
      kids.push(el("span", { class: "pj-card-abilities" }, card.abilities.map((ab) => abilityLine(tr, ab, card.type))));
    }
  } else if (card.kind === "field") {
    kids.push(el("span", { class: "pj-card-abilities" }, el("span", { class: "pj-ab-text" }, tr("field_text", { a: typeName(tr, card.types[0]), b: typeName(tr, card.types[1]) }))));
  } else if (card.kind === "coach") {
    const lines = [abilityLine(tr, card.active, null, el("span", { class: "pj-ab-kind" }, ` ${tr("coach_active")} `))];
    if (card.passive) lines.push(el("span", { class: "pj-ab pj-ab-passive" }, el("span", { class: "pj-ab-text" }, coachPassiveText(tr, card.passive))));
    kids.push(el("span", { class: "pj-card-abilities" }, lines));
  } else if (card.kind === "ability") {
    kids.push(el("span", { class: "pj-card-abilities" }, abilityLine(tr, card.ability, null)));
  }
  return el("span", {
    class: `pj-card pj-el-${cardTone(card)} pj-kind-${card.kind}${opts.compact ? " compact" : ""}`,
    "data-card": card.id,
    title: card.text || null,
  }, kids);
}

/** "Fire base 3 ×2 weakness = 6, −1 armor = 5" from a damage event. */
export function damageCalc(tr, e) {
  let head = tr("calc.base", { type: typeName(tr, e.damage_type), n: e.base });
  if (e.weakness) head += " " + tr("calc.weak", { n: e.after_weakness });
  else if (e.immunity) head += " " + tr("calc.immune");
  const mods = [head];
  if (e.boost) mods.push(tr("calc.boost", { n: e.boost }));
  if (e.armor) mods.push(tr("calc.armor", { n: e.armor }));
  // "×2 weakness = 4" already ends in the total when nothing follows it.
  if (mods.length === 1 && (e.weakness || e.immunity)) return head;
  return `${mods.join(", ")} ${tr("calc.total", { n: e.total })}`;
}

// ------------------------------------------------------------------------------------------
// The board
// ------------------------------------------------------------------------------------------
export function mount(root, ctx) {
  const tr = (key, params) => ctx.t(`parbaj.${key}`, params ?? {});
  let doc = null;
  let pool = null;
  let starters = null;
  let myDecks = null;
  let decksLoading = false;
  let busy = false;
  let error = null;
  let destroyed = false;
  let sel = null; // {kind: "hand", card} | {kind: "ability", creature, ability} | {kind: "coach"}
  let tokenAsk = null; // actions that differ only in the token gained
  const cardOf = {}; // battlefield id -> card id (kept after a creature leaves the board)
  const seen = new Set();
  const log = [];
  let resolution = null; // {round, steps: [{text, kind}], shown}
  let revealTimer = null;
  let wantFocus = false; // keyboard focus was in the board when an action went out
  let logDirty = true;

  const board = el("section", { class: "parbaj", "aria-label": tr("title") });
  const top = el("div", { class: "pj-top" });
  const status = el("div", { class: "pj-status", role: "status", "aria-live": "polite", tabindex: "-1" });
  const field = el("div", { class: "pj-field" });
  const controls = el("div", { class: "pj-controls", role: "group", "aria-label": tr("controls") });
  const message = el("div", { class: "pj-message", role: "alert" });
  const handBox = el("section", { class: "pj-hand", "aria-label": tr("your_hand") });
  const resBox = el("section", { class: "pj-resolution", "aria-label": tr("res.title") });
  const logBox = el("ol", { class: "pj-log", "aria-label": tr("log_title") });
  board.append(top, status, controls, message, field, handBox, resBox,
    el("details", { class: "pj-log-wrap", open: true }, [el("summary", {}, tr("log_title")), logBox]));
  root.append(board);

  const clockTimer = setInterval(renderClock, 250);
  loadPool().then((p) => {
    pool = p;
    if (!destroyed) {
      rebuildLog();
      render();
    }
  }).catch(() => {
    if (!destroyed) {
      error = tr("pool_failed");
      render();
    }
  });

  // ---- helpers over the document -------------------------------------------------------
  const S = () => doc && doc.state;
  const me = () => (doc && "seat" in doc ? doc.seat : ctx.seat) || null;
  const seats = () => Object.keys((S() && S().players) || {}).sort();
  const otherSeat = (s) => seats().find((x) => x !== s);
  const legal = () => (doc && doc.legal) || [];
  const card = (cid) => (pool && pool[cid]) || null;
  const cname = (cid) => (card(cid) ? card(cid).name : cid);

  function nameOf(seat) {
    if (!seat) return "";
    const p = ((doc && doc.players) || []).find((x) => x.seat === seat);
    const name = (p && p.user && p.user.name) || tr("seat", { seat });
    return seat === me() ? tr("you_suffix", { name }) : name;
  }

  /** A seat's player name without "(you)", for sentences in the log. */
  function plainName(seat) {
    if (!seat) return "";
    const p = ((doc && doc.players) || []).find((x) => x.seat === seat);
    return (p && p.user && p.user.name) || tr("seat", { seat });
  }

  function creatureName(uid) {
    if (!uid) return "—";
    const st = S();
    const cid = (st && st.creatures[uid] && st.creatures[uid].card) || cardOf[uid];
    return cid ? tr("creature_ref", { name: cname(cid), id: uid }) : uid;
  }

  function canAct() {
    return !busy && doc && doc.status !== "finished" && !doc.result && me() && (doc.pending || []).includes(me());
  }

  function phase() {
    return S() ? S().phase : null;
  }

  // ---- sending -------------------------------------------------------------------------
  function send(action, { custom = false } = {}) {
    if (!canAct()) return;
    if (!custom && !legal().some((a) => same(a, action))) return; // only listed actions
    // The control that sent it disappears: bring keyboard focus back to the board after.
    wantFocus = board.contains(document.activeElement);
    busy = true;
    error = null;
    render();
    submitAction(ctx, action, () => !destroyed, (refused) => {
      busy = false;
      error = refused;
      if (!refused) {
        sel = null;
        tokenAsk = null;
      }
      render();
    });
  }

  function select(next) {
    sel = next && sel && same(sel, next) ? null : next;
    tokenAsk = null;
    error = null;
    render();
  }

  // ---- selection -> targets ------------------------------------------------------------
  const HAND_TYPES = ["place", "place_field", "place_coach", "evolve", "attach"];

  function actsFor(s) {
    const L = canAct() ? legal() : [];
    if (!s) return phase() === "promote" ? L.filter((a) => a.type === "promote") : [];
    if (s.kind === "hand") return L.filter((a) => HAND_TYPES.includes(a.type) && a.card === s.card);
    if (s.kind === "ability") return L.filter((a) => a.type === "declare" && a.creature === s.creature && a.ability === s.ability);
    if (s.kind === "coach") return L.filter((a) => a.type === "coach");
    return [];
  }

  function targetKey(a) {
    switch (a.type) {
      case "place": return `slot:${a.slot}`;
      case "evolve":
      case "attach":
      case "promote": return a.creature;
      case "declare":
      case "coach": return a.target ?? "none";
      default: return "none";
    }
  }

  /** Map target key -> actions (several when only the token gained differs). */
  function targets() {
    const out = new Map();
    for (const a of actsFor(sel)) {
      const k = targetKey(a);
      if (!out.has(k)) out.set(k, []);
      out.get(k).push(a);
    }
    return out;
  }

  function chooseTarget(key) {
    const acts = targets().get(key);
    if (!acts || !acts.length) return;
    if (acts.length === 1) send(acts[0]);
    else {
      tokenAsk = acts;
      render();
      controls.querySelector("[data-testid=pj-token-choice]")?.focus();
    }
  }

  function targetLabel(key) {
    if (key === "slot:frontline") return tr("target_front_slot");
    if (key === "slot:reserve") return tr("target_reserve_slot");
    if (key === "none") return null;
    return creatureName(key);
  }

  function selectionLabel() {
    if (!sel) return "";
    if (sel.kind === "hand") return cname(sel.card);
    if (sel.kind === "coach") {
      const P = S().players[me()];
      return P.coach && card(P.coach) ? card(P.coach).active.name : tr("coach");
    }
    const cr = S().creatures[sel.creature];
    const abil = cr ? abilitiesOf(cr) : [];
    return tr("ability_of", { ability: abil[sel.ability] ? abil[sel.ability].name : "?", creature: creatureName(sel.creature) });
  }

  function abilitiesOf(cr) {
    const c = card(cr.card);
    if (!c) return [];
    const out = c.abilities.slice();
    if (cr.attached && card(cr.attached)) out.push(card(cr.attached).ability);
    return out;
  }

  // ---- rendering -----------------------------------------------------------------------
  function keepFocus(fn) {
    const active = document.activeElement;
    const key = active && board.contains(active) ? active.getAttribute("data-focus") : null;
    fn();
    if (key) {
      const again = board.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      if (again) again.focus();
      else if (canAct()) controls.querySelector("button")?.focus();
    }
  }

  function restoreFocus() {
    if (!wantFocus || busy) return;
    const active = document.activeElement;
    const lost = !active || active === document.body || !document.contains(active);
    if (!lost && active !== status) {
      wantFocus = false;
      return;
    }
    const next = canAct() ? controls.querySelector("button:not(:disabled)") : null;
    if (next) {
      next.focus();
      wantFocus = false;
    } else if (lost) {
      status.focus({ preventScroll: true }); // wait here until it is our turn again
    }
  }

  function render() {
    if (destroyed) return;
    keepFocus(() => {
      const st = S();
      for (const box of [top, status, field, controls, handBox]) box.replaceChildren();
      if (!st) {
        status.append(tr("waiting"));
        renderMessage();
        return;
      }
      for (const [uid, cr] of Object.entries(st.creatures || {})) cardOf[uid] = cr.card;
      if (!canAct() && !busy) {
        sel = null;
        tokenAsk = null;
      }
      if (sel && !actsFor(sel).length) sel = null;
      board.dataset.phase = st.phase;
      board.classList.toggle("pj-my-turn", !!canAct());
      renderTop(st);
      renderStatus(st);
      renderControls(st);
      renderField(st);
      renderHand(st);
      renderMessage();
      renderClock();
    });
    restoreFocus();
    renderResolution();
    renderLog();
  }

  function renderTop(st) {
    const bits = [el("span", { class: "pj-title" }, tr("title"))];
    const best = st.options && st.options.best_of;
    if (st.game_no) {
      bits.push(el("span", {}, best > 1 ? tr("game_of", { n: st.game_no, best }) : tr("game", { n: st.game_no })));
      if (best > 1) {
        const [a, b] = seats();
        bits.push(el("span", { class: "pj-wins" }, tr("wins", { a: nameOf(a), b: nameOf(b), wa: st.wins[a], wb: st.wins[b] })));
      }
    }
    if (st.round) bits.push(el("span", { class: "pj-round", "data-round": st.round }, tr("round", { n: st.round, max: st.options.max_rounds })));
    if (st.round_starter && ["prep", "combat", "promote"].includes(st.phase)) bits.push(el("span", { class: "pj-muted" }, tr("round_starter", { name: nameOf(st.round_starter) })));
    const roll = st.rolls && st.rolls.length ? st.rolls[st.rolls.length - 1] : null;
    if (roll) {
      const [a, b] = seats();
      bits.push(el("span", { class: "pj-muted pj-roll" }, tr("die_roll", { a: nameOf(a), ra: roll[a], b: nameOf(b), rb: roll[b] })));
    }
    bits.push(el("span", { class: "pj-clock", "data-clock": "1", "aria-live": "off" }));
    top.append(...bits);
  }

  function renderClock() {
    const node = board.querySelector("[data-clock]");
    if (!node) return;
    const deadline = doc && doc.status !== "finished" ? doc.deadline : null;
    showClock(node, deadline, (left) => tr("clock", { time: fmtClock(left) }));
  }

  function renderStatus(st) {
    const mine = me();
    const pending = doc.pending || st.pending || [];
    const phaseText = tr(`phase.${st.phase}`);
    let text;
    const res = doc.result || st.result;
    if (res || st.phase === "over") {
      if (res && res.draw) text = tr("result_draw");
      else if (res && res.winner) text = tr("result_winner", { name: nameOf(res.winner) });
      else text = tr("phase.over");
      if (res && res.reason) text += ` — ${tr(`reason.${res.reason}`)}`;
    } else if (mine && pending.includes(mine)) {
      text = tr("you_decide", { what: tr(`decision.${st.phase}`) });
    } else if (pending.length) {
      text = tr("they_decide", { name: pending.map(nameOf).join(", "), what: tr(`decision.${st.phase}`) });
    } else {
      text = phaseText;
    }
    status.dataset.phase = st.phase;
    status.dataset.mine = mine && pending.includes(mine) ? "1" : "0";
    status.append(el("span", { class: "pj-phase" }, phaseText), el("strong", { class: "pj-decision" }, text));
    if (!mine) status.append(el("span", { class: "pj-muted" }, tr("spectating")));
  }

  // -- controls ---------------------------------------------------------------------------
  function actButton(label, action, { strong = false, testid = "pj-act", custom = false, title = null } = {}) {
    return el("button", {
      type: "button",
      class: `pj-btn${strong ? " strong" : ""}`,
      "data-testid": testid,
      "data-type": action.type,
      "data-card": action.card || null,
      "data-token": action.token || null,
      "data-seat": action.type === "choose_first" ? action.seat : null,
      "data-focus": `act-${JSON.stringify(action)}`,
      title,
      onclick: () => send(action, { custom }),
    }, label);
  }

  function renderControls(st) {
    if (busy) {
      controls.append(el("span", { class: "pj-muted" }, tr("sending")));
      return;
    }
    const mine = me();
    if (!mine || !canAct()) {
      if (st.phase === "deck" && mine && st.players[mine].deck_chosen) {
        controls.append(el("p", { class: "pj-hint" }, tr("deck_waiting", { deck: st.players[mine].deck_name || "" })));
      }
      return;
    }
    if (tokenAsk) {
      controls.append(el("p", { class: "pj-hint" }, tr("which_token")));
      for (const a of tokenAsk) {
        controls.append(el("button", {
          type: "button", class: "pj-btn strong", "data-testid": "pj-token-choice", "data-token": a.token,
          "data-focus": `tok-${a.token}`, onclick: () => send(a),
        }, tokenChip(a.token, tr("gain_token", { type: typeName(tr, a.token) }))));
      }
      controls.append(cancelButton());
      return;
    }
    const tg = targets();
    if (sel || (st.phase === "promote" && tg.size)) {
      controls.append(el("p", { class: "pj-hint" }, sel ? tr("selected_hint", { what: selectionLabel() }) : tr("hint.promote")));
      const row = el("div", { class: "pj-btn-row" });
      for (const [key, acts] of tg) {
        const label = key === "none"
          ? tr(sel && sel.kind === "hand" ? "play_card" : "use", { what: selectionLabel() })
          : tr("target_button", { target: targetLabel(key) });
        row.append(el("button", {
          type: "button", class: "pj-btn strong", "data-testid": "pj-target-button", "data-target": key,
          "data-focus": `tb-${key}`, onclick: () => chooseTarget(key),
        }, acts.length > 1 && key !== "none" ? `${label} …` : label));
      }
      controls.append(row);
      if (sel) controls.append(cancelButton());
      return;
    }
    const L = legal();
    const row = el("div", { class: "pj-btn-row" });
    switch (st.phase) {
      case "deck":
        renderDeckChooser();
        return;
      case "first":
        controls.append(el("p", { class: "pj-hint" }, tr("hint.first")));
        for (const a of L) row.append(actButton(a.seat === mine ? tr("i_start") : tr("they_start", { name: nameOf(a.seat) }), a, { strong: a.seat === mine, testid: "pj-first" }));
        break;
      case "place":
        controls.append(el("p", { class: "pj-hint" }, tr("hint.place")));
        break;
      case "cards":
        controls.append(el("p", { class: "pj-hint" }, tr("hint.cards")));
        for (const a of L) {
          if (a.type === "place_field") row.append(actButton(tr("place_field", { card: cname(a.card) }), a));
          else if (a.type === "place_coach") row.append(actButton(tr("place_coach", { card: cname(a.card) }), a));
        }
        row.append(actButton(tr("done_cards"), { type: "done" }, { strong: true }));
        break;
      case "prep": {
        const take = L.filter((a) => a.type === "take_token");
        if (take.length) {
          controls.append(el("p", { class: "pj-hint" }, tr("hint.take_token")));
          for (const a of take) {
            row.append(el("button", {
              type: "button", class: "pj-btn strong", "data-testid": "pj-take-token", "data-token": a.token,
              "data-focus": `take-${a.token}`, onclick: () => send(a),
            }, tokenChip(a.token, tr("take_token", { type: typeName(tr, a.token) }))));
          }
          break;
        }
        controls.append(el("p", { class: "pj-hint" }, tr("hint.prep")));
        if (L.some((a) => a.type === "coach")) {
          const P = st.players[mine];
          row.append(el("button", {
            type: "button", class: "pj-btn", "data-testid": "pj-coach", "data-focus": "coach",
            onclick: () => select({ kind: "coach" }),
          }, tr("use_coach", { ability: card(P.coach) ? card(P.coach).active.name : "" })));
        }
        row.append(actButton(tr("done_prep"), { type: "done" }, { strong: true }));
        break;
      }
      case "combat": {
        const declared = st.players[mine].declared.length > 0;
        controls.append(el("p", { class: "pj-hint" }, tr("hint.combat")));
        for (const a of L.filter((x) => x.type === "pass")) {
          const label = a.token ? tr("pass_bonus", { type: typeName(tr, a.token) }) : declared ? tr("end_combat") : tr("pass");
          row.append(actButton(a.token ? tokenChip(a.token, label) : label, a, { strong: declared }));
        }
        break;
      }
      default:
        break;
    }
    if (row.childNodes.length) controls.append(row);
  }

  function cancelButton() {
    return el("button", {
      type: "button", class: "pj-btn quiet", "data-testid": "pj-cancel", "data-focus": "cancel",
      onclick: () => select(null),
    }, tr("cancel"));
  }

  function tokenChip(type, label) {
    return el("span", { class: "pj-token-label" }, [el("span", { class: `pj-token pj-el-${type}`, "aria-hidden": "true" }), label]);
  }

  function renderDeckChooser() {
    if (!starters && !decksLoading) loadDeckLists();
    const box = el("div", { class: "pj-deck-chooser", "data-testid": "pj-deck-chooser" });
    box.append(el("p", { class: "pj-hint" }, tr("hint.deck")));
    const sl = el("ul", { class: "pj-deck-list" });
    for (const d of starters || []) {
      sl.append(el("li", {}, [
        el("button", {
          type: "button", class: "pj-btn strong", "data-testid": "pj-deck-starter", "data-deck": d.id,
          "data-focus": `deck-s-${d.id}`, onclick: () => send({ type: "choose_deck", deck: d.id }),
        }, tr("play_deck", { name: d.name })),
        el("span", { class: "pj-muted" }, ` ${tr("deck_size", { n: d.size })} — ${d.idea}`),
      ]));
    }
    const ml = el("ul", { class: "pj-deck-list" });
    for (const d of myDecks || []) {
      ml.append(el("li", {}, [
        el("button", {
          type: "button", class: "pj-btn", "data-testid": "pj-deck-mine", "data-deck": d.id, "data-deck-name": d.name,
          "data-focus": `deck-m-${d.id}`, disabled: !d.ok,
          onclick: () => send({ type: "choose_deck", cards: d.cards.slice() }, { custom: true }),
        }, tr("play_deck", { name: d.name })),
        el("span", { class: "pj-muted" }, ` ${tr("deck_size", { n: d.size })}${d.ok ? "" : ` — ${tr("deck_not_playable")}`}`),
      ]));
    }
    box.append(
      el("h3", {}, tr("starter_decks")),
      starters ? sl : el("p", { class: "pj-muted" }, tr("loading")),
      el("h3", {}, tr("my_decks")),
      myDecks === null ? el("p", { class: "pj-muted" }, tr("loading"))
        : myDecks.length ? ml : el("p", { class: "pj-muted" }, tr("no_decks")),
      el("p", {}, el("a", { href: "#/decks", target: "_blank", rel: "noopener", class: "pj-link" }, tr("build_decks"))),
    );
    controls.append(box);
  }

  function loadDeckLists() {
    decksLoading = true;
    Promise.allSettled([loadStarters(), request("GET", "/api/decks")]).then(([s, m]) => {
      decksLoading = false;
      if (destroyed) return;
      starters = s.status === "fulfilled" ? s.value : [];
      myDecks = m.status === "fulfilled" ? m.value : [];
      render();
    });
  }

  // -- battlefield -----------------------------------------------------------------------
  function renderField(st) {
    const mine = me();
    const bottom = mine || seats()[0];
    const topSeat = otherSeat(bottom);
    const tg = canAct() ? targets() : new Map();
    field.append(renderSide(st, topSeat, false, tg), el("div", { class: "pj-divider", "aria-hidden": "true" }), renderSide(st, bottom, !!mine, tg));
  }

  function renderSide(st, seat, own, tg) {
    const P = st.players[seat];
    const sec = el("section", { class: `pj-side ${own ? "pj-own" : "pj-opp"}`, "data-seat": seat, "aria-label": tr("side", { name: nameOf(seat) }) });
    const info = el("div", { class: "pj-info" });
    info.append(el("h3", { class: "pj-side-name" }, [nameOf(seat), (doc.pending || []).includes(seat) && !doc.result ? el("span", { class: "pj-pending-dot", title: tr("deciding") }, " ●") : null]));
    info.append(el("span", { class: "pj-stat-chip", "data-testid": "pj-hand-count" }, tr("hand_count", { n: P.hand_size })));
    if (P.deck_size !== null && P.deck_size !== undefined) info.append(el("span", { class: "pj-stat-chip" }, tr("deck_count", { n: P.deck_size })));
    else if (st.phase === "deck") info.append(el("span", { class: "pj-stat-chip" }, P.deck_chosen ? tr("deck_chosen") : tr("deck_choosing")));
    const discard = el("details", { class: "pj-discard" }, [el("summary", { "data-testid": "pj-discard" }, tr("discard_count", { n: P.discard.length }))]);
    if (P.discard.length) discard.append(el("ul", {}, P.discard.map((c) => el("li", {}, cname(c)))));
    info.append(discard);
    const toks = el("span", { class: "pj-tokens", "data-testid": "pj-tokens", "aria-label": tr("tokens") });
    const tokList = ELEMENTS.filter((e) => P.tokens[e]);
    if (!tokList.length) toks.append(el("span", { class: "pj-muted" }, tr("no_tokens")));
    for (const e of tokList) toks.append(el("span", { class: "pj-token-count", title: typeName(tr, e) }, [el("span", { class: `pj-token pj-el-${e}`, "aria-hidden": "true" }), tr("token_n", { n: P.tokens[e], type: typeName(tr, e) })]));
    info.append(el("span", { class: "pj-info-group" }, [el("span", { class: "pj-label" }, tr("tokens")), toks]));
    const fields = el("span", { class: "pj-fields" });
    if (!P.fields.length) fields.append(el("span", { class: "pj-muted" }, tr("none")));
    for (const f of P.fields) fields.append(cardFace(tr, card(f), { compact: true, id: f }));
    info.append(el("span", { class: "pj-info-group" }, [el("span", { class: "pj-label" }, tr("fields")), fields]));
    const coach = el("span", { class: "pj-coach" });
    if (P.coach) {
      coach.append(cardFace(tr, card(P.coach), { compact: true, id: P.coach }));
      if (P.coach_use) coach.append(el("span", { class: "pj-chip" }, tr("coach_used", { target: P.coach_use.target ? creatureName(P.coach_use.target) : "—" })));
    } else coach.append(el("span", { class: "pj-muted" }, tr("none")));
    info.append(el("span", { class: "pj-info-group" }, [el("span", { class: "pj-label" }, tr("coach")), coach]));
    if (P.declared.length) {
      info.append(el("ul", { class: "pj-declared", "aria-label": tr("declared") }, P.declared.map((d) =>
        el("li", {}, tr("declared_line", { ability: d.name, creature: creatureName(d.creature), target: d.target ? creatureName(d.target) : tr(`aim_short.${d.ability_kind}`) })))));
    }
    if (P.bonus) info.append(el("span", { class: "pj-chip" }, tr("bonus_token", { type: typeName(tr, P.bonus) })));
    if (P.must_promote) info.append(el("span", { class: "pj-chip" }, P.promote_chosen ? tr("promote_chosen") : tr("must_promote")));

    const frontRow = el("div", { class: "pj-front-row" }, [
      el("span", { class: "pj-row-label" }, tr("frontline")),
      slot(st, seat, own, P.front, "frontline", tg),
    ]);
    const reserveRow = el("div", { class: "pj-reserve-row" }, [el("span", { class: "pj-row-label" }, tr("reserve"))]);
    const slots = el("div", { class: "pj-slots" });
    let offered = false;
    for (let i = 0; i < RESERVE_SLOTS; i++) {
      const uid = P.reserve[i] || null;
      const offer = !uid && !offered && own;
      if (!uid && own) offered = true;
      slots.append(slot(st, seat, own, uid, offer ? "reserve" : "empty", tg));
    }
    reserveRow.append(slots);
    if (own) sec.append(frontRow, reserveRow, info);
    else sec.append(info, reserveRow, frontRow);
    return sec;
  }

  function slot(st, seat, own, uid, kind, tg) {
    if (uid) return creatureCard(st, uid, own, tg);
    const key = kind === "frontline" ? "slot:frontline" : kind === "reserve" ? "slot:reserve" : null;
    if (own && key && tg.has(key)) {
      return el("button", {
        type: "button", class: "pj-slot pj-target", "data-testid": "pj-target", "data-target": key,
        "data-focus": `t-${key}`, onclick: () => chooseTarget(key),
      }, tr(kind === "frontline" ? "place_front_here" : "place_reserve_here"));
    }
    return el("div", { class: "pj-slot empty", "aria-label": tr("empty_slot") }, el("span", { class: "pj-muted" }, tr(kind === "frontline" ? "frontline_empty" : "empty_slot")));
  }

  function creatureCard(st, uid, own, tg) {
    const cr = st.creatures[uid];
    const c = card(cr.card);
    const P = st.players[cr.owner];
    const pos = P.front === uid ? "front" : "reserve";
    const stunned = cr.stunned_round !== null && cr.stunned_round !== undefined && cr.stunned_round === st.round;
    const box = el("article", {
      class: `pj-creature pj-el-${c ? c.type : "ink"}${sel && sel.creature === uid ? " selected" : ""}${tg.has(uid) ? " targetable" : ""}`,
      "data-creature": uid, "data-card": cr.card, "data-pos": pos,
      "aria-label": tr("creature_aria", { name: creatureName(uid), injuries: cr.injuries, endurance: cr.endurance }),
    });
    const head = el("div", { class: "pj-cr-head" }, [
      el("span", { class: "pj-card-name" }, c ? c.name : cr.card),
      c ? el("span", { class: "pj-card-level" }, ROMAN[c.level]) : null,
      el("span", { class: "pj-cr-id" }, uid),
    ]);
    const pct = Math.min(100, Math.round((100 * cr.injuries) / Math.max(1, cr.endurance)));
    const inj = el("div", { class: "pj-injuries", "data-testid": "pj-injuries" }, [
      el("span", { class: "pj-inj-text" }, tr("injuries", { n: cr.injuries, max: cr.endurance })),
      el("span", { class: "pj-bar", role: "img", "aria-label": tr("injuries", { n: cr.injuries, max: cr.endurance }) }, el("span", { class: "pj-bar-fill", style: `width:${pct}%` })),
    ]);
    const chips = el("div", { class: "pj-cr-chips" });
    if (c && c.weakness) chips.append(el("span", { class: `pj-chip pj-tx-${c.weakness}` }, tr("weakness", { type: typeName(tr, c.weakness) })));
    if (c && c.immunity) chips.append(el("span", { class: `pj-chip pj-tx-${c.immunity}` }, tr("immunity", { type: typeName(tr, c.immunity) })));
    if (cr.poison) chips.append(el("span", { class: "pj-chip pj-bad" }, tr("poisoned", { n: cr.poison.amount, rounds: cr.poison.rounds })));
    if (stunned) chips.append(el("span", { class: "pj-chip pj-bad" }, tr("stunned")));
    else if (cr.stunned_round) chips.append(el("span", { class: "pj-chip pj-bad" }, tr("stunned_next")));
    if (cr.stack && cr.stack.length) chips.append(el("span", { class: "pj-chip" }, tr("evolved_from", { names: cr.stack.map(cname).join(" → ") })));
    box.append(head, inj, chips);
    // Abilities: own creatures in combat offer the declarable ones as buttons.
    const abil = abilitiesOf(cr);
    const declarable = new Set(own && canAct() && st.phase === "combat"
      ? legal().filter((a) => a.type === "declare" && a.creature === uid).map((a) => a.ability) : []);
    const list = el("ul", { class: "pj-cr-abilities" });
    abil.forEach((ab, i) => {
      const attached = cr.attached && i === abil.length - 1 && c && i >= c.abilities.length;
      const line = abilityLine(tr, ab, c ? c.type : null, attached ? el("span", { class: "pj-chip" }, tr("attached")) : null);
      if (declarable.has(i)) {
        const on = sel && sel.kind === "ability" && sel.creature === uid && sel.ability === i;
        list.append(el("li", {}, el("button", {
          type: "button", class: `pj-ab-btn${on ? " selected" : ""}`, "data-testid": "pj-ability", "data-creature": uid,
          "data-ability": i, "aria-pressed": on ? "true" : "false", "data-focus": `ab-${uid}-${i}`,
          onclick: () => select({ kind: "ability", creature: uid, ability: i }),
        }, line)));
      } else {
        const usable = ab.kind === "passive" || (pos === "front" ? ab.kind === "attack" : ab.kind === "support");
        list.append(el("li", { class: usable ? "" : "pj-ab-off" }, line));
      }
    });
    box.append(list);
    if (tg.has(uid)) {
      const label = tr("target_button", { target: creatureName(uid) });
      box.append(el("button", {
        type: "button", class: "pj-target-overlay", "data-testid": "pj-target", "data-target": uid,
        "data-focus": `t-${uid}`, "aria-label": label, onclick: () => chooseTarget(uid),
      }, el("span", {}, tr("target_here"))));
    }
    return box;
  }

  // -- hand ------------------------------------------------------------------------------
  function renderHand(st) {
    const mine = me();
    handBox.replaceChildren();
    const hands = [];
    if (mine && st.players[mine].hand) hands.push([mine, st.players[mine].hand, true]);
    for (const s of seats()) {
      if (s !== mine && st.players[s].hand) hands.push([s, st.players[s].hand, false]);
    }
    handBox.hidden = !hands.length;
    for (const [seat, hand, own] of hands) {
      handBox.append(el("h3", {}, own ? tr("your_hand_n", { n: hand.length }) : tr("revealed_hand", { name: nameOf(seat) })));
      const counts = new Map();
      for (const cid of hand) counts.set(cid, (counts.get(cid) || 0) + 1);
      const usable = new Set(own && canAct() ? legal().filter((a) => HAND_TYPES.includes(a.type)).map((a) => a.card) : []);
      const row = el("div", { class: "pj-hand-row" });
      for (const [cid, n] of counts) {
        const on = own && sel && sel.kind === "hand" && sel.card === cid;
        const item = el("div", { class: `pj-hand-card${on ? " selected" : ""}${usable.has(cid) ? " usable" : ""}`, "data-card": cid },
          [cardFace(tr, card(cid), { count: n > 1 ? n : 0, id: cid, names: cname })]);
        if (usable.has(cid)) {
          item.append(el("button", {
            type: "button", class: "pj-btn pj-select", "data-testid": "pj-hand-select", "data-card": cid,
            "aria-pressed": on ? "true" : "false", "data-focus": `hand-${cid}`,
            onclick: () => select({ kind: "hand", card: cid }),
          }, on ? tr("selected") : tr("select_card", { name: cname(cid) })));
        }
        row.append(item);
      }
      handBox.append(row);
    }
  }

  function renderMessage() {
    message.replaceChildren();
    if (error) message.append(el("span", {}, tr("rejected", { message: error })));
  }

  // -- end of round, step by step --------------------------------------------------------
  function renderResolution() {
    resBox.replaceChildren();
    if (!resolution) {
      resBox.hidden = true;
      return;
    }
    resBox.hidden = false;
    const all = resolution.shown >= resolution.steps.length;
    resBox.append(el("div", { class: "pj-res-head" }, [
      el("h3", {}, tr("res.heading", { n: resolution.round })),
      el("button", {
        type: "button", class: "pj-btn quiet", "data-testid": all ? "pj-res-replay" : "pj-res-all",
        onclick: () => {
          if (all) playResolution(0);
          else {
            resolution.shown = resolution.steps.length;
            stopReveal();
            renderResolution();
          }
        },
      }, all ? tr("res.replay") : tr("res.show_all")),
    ]));
    const ol = el("ol", { class: "pj-res-steps", "aria-live": "polite", "data-testid": "pj-res-steps" });
    resolution.steps.slice(0, resolution.shown).forEach((s, i) => {
      ol.append(el("li", { class: `pj-step pj-step-${s.kind}${i === resolution.shown - 1 && !all ? " fresh" : ""}`, "data-kind": s.kind }, s.text));
    });
    if (!resolution.steps.length) ol.append(el("li", { class: "pj-muted" }, tr("res.nothing")));
    resBox.append(ol);
  }

  function stopReveal() {
    clearInterval(revealTimer);
    revealTimer = null;
  }

  function playResolution(from) {
    stopReveal();
    resolution.shown = from;
    renderResolution();
    revealTimer = setInterval(() => {
      if (destroyed || !resolution) return stopReveal();
      resolution.shown += 1;
      if (resolution.shown >= resolution.steps.length) stopReveal();
      renderResolution();
    }, STEP_MS);
  }

  const STEP_TYPES = new Set(["effect", "shrouded", "damage", "poison_damage", "injuries", "poisoned", "stunned",
    "stun_resisted", "defeated", "promoted", "game_end"]);

  function stepText(e) {
    const cn = creatureName;
    switch (e.type) {
      case "effect": {
        const parts = [];
        if (e.heal) parts.push(tr("kw.heal", { n: e.heal }));
        if (e.armor) parts.push(tr("kw.armor", { n: e.armor }));
        if (e.boost) parts.push(tr("kw.boost", { n: e.boost }));
        if (e.shroud) parts.push(tr("kw.shroud"));
        const source = e.source === "coach" ? tr("coach_of", { name: plainName(e.seat) }) : cn(e.source);
        return tr("res.effect", { source, ability: e.ability, target: cn(e.recipient), effects: parts.join(" · ") });
      }
      case "shrouded": return tr("res.shrouded", { source: cn(e.source), ability: e.ability, target: cn(e.target) });
      case "damage": return tr("res.damage", { source: cn(e.source), ability: e.ability, target: cn(e.target), calc: damageCalc(tr, e) });
      case "poison_damage": return tr("res.poison_damage", { target: cn(e.target), n: e.amount, left: e.rounds_left });
      case "injuries": return tr("res.injuries", { creature: cn(e.creature), before: e.before, damage: e.damage, healing: e.healing, after: e.after, endurance: e.endurance });
      case "poisoned": return tr("res.poisoned", { creature: cn(e.creature), n: e.amount, rounds: e.rounds });
      case "stunned": return tr("res.stunned", { creature: cn(e.creature) });
      case "stun_resisted": return tr("res.stun_resisted", { creature: cn(e.creature) });
      case "token": return tr(`log.token_${e.reason}`, { name: plainName(e.seat), type: typeName(tr, e.token) });
      case "defeated": return tr("res.defeated", { creature: cn(e.creature), name: plainName(e.seat) });
      case "promoted": return tr("log.promoted", { creature: cn(e.creature), name: plainName(e.seat) });
      case "game_end": return gameEndText(e);
      default: return null;
    }
  }

  function gameEndText(e) {
    const reason = tr(`reason.${e.reason}`);
    return e.winner ? tr("log.game_won", { n: e.game, name: plainName(e.winner), reason }) : tr("log.game_drawn", { n: e.game, reason });
  }

  function eventText(e) {
    const n = plainName;
    switch (e.type) {
      case "your_deck": return tr("log.your_deck", { deck: e.name, n: (e.cards || []).length });
      case "deck_chosen": return tr("log.deck_chosen", { name: n(e.seat) });
      case "die_roll": {
        const [a, b] = Object.keys(e.rolls).sort();
        return tr(e.tie ? "log.die_tie" : "log.die_roll", { a: n(a), ra: e.rolls[a], b: n(b), rb: e.rolls[b] });
      }
      case "first_chosen": return tr("log.first_chosen", { name: n(e.by), starter: n(e.starter) });
      case "game_start": return tr("log.game_start", { n: e.game, name: n(e.starter) });
      case "placed": return tr(e.slot === "frontline" ? "log.placed_front" : "log.placed_reserve", { name: n(e.seat), card: cname(e.card) });
      case "field_placed": return tr("log.field_placed", { name: n(e.seat), card: cname(e.card) });
      case "coach_placed": return tr("log.coach_placed", { name: n(e.seat), card: cname(e.card) });
      case "setup_done": return tr("log.setup_done", { name: n(e.seat) });
      case "round_start": return tr("log.round_start", { n: e.round, name: n(e.starter) });
      case "token": return tr(`log.token_${e.reason}`, { name: n(e.seat), type: typeName(tr, e.token) });
      case "coach_used": return tr("log.coach_used", { name: n(e.seat), ability: e.ability, target: e.target ? creatureName(e.target) : "—" });
      case "evolved": return tr("log.evolved", { name: n(e.seat), from: cname(e.previous), card: cname(e.card) });
      case "attached": return tr("log.attached", { name: n(e.seat), card: cname(e.card), creature: creatureName(e.creature) });
      case "prep_done": return tr("log.prep_done", { name: n(e.seat) });
      case "declared": return tr("log.declared", { name: n(e.seat), ability: e.name, creature: creatureName(e.creature), target: e.target ? creatureName(e.target) : tr(`aim_short.${e.ability_kind}`) });
      case "passed": return e.bonus ? tr("log.passed_bonus", { name: n(e.seat), type: typeName(tr, e.bonus) }) : tr("log.passed", { name: n(e.seat) });
      case "resolution": return tr("log.resolution", { n: e.round });
      case "promote_chosen": return tr("log.promote_chosen", { name: n(e.seat) });
      case "game_end": return gameEndText(e);
      case "match_end": {
        const r = e.result || {};
        return r.winner ? tr("log.match_won", { name: n(r.winner) }) : tr("result_draw");
      }
      case "timeout": return tr("log.timeout", { name: n(e.seat) });
      case "forfeit": return tr("log.forfeit", { name: n(e.seat) });
      default: {
        if (STEP_TYPES.has(e.type)) return stepText(e);
        return null;
      }
    }
  }

  const events = []; // every event seen, in order (to re-word the log when cards arrive)

  function ingest(batch) {
    let newRes = null;
    let collecting = false;
    let added = 0;
    for (const e of batch || []) {
      const key = `${e.version ?? ""}|${JSON.stringify(e)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      added += 1;
      if (e.creature && e.card) cardOf[e.creature] = e.card;
      events.push(e);
      if (e.type === "resolution") {
        newRes = { round: e.round, steps: [], shown: 0 };
        collecting = true;
      } else if (e.type === "round_start" || e.type === "game_start" || e.type === "match_end") {
        collecting = false; // the resolution list is complete
      } else if (collecting && (STEP_TYPES.has(e.type) || (e.type === "token" && e.reason !== "round"))) {
        newRes.steps.push({ e, kind: e.type });
      }
    }
    while (events.length > 400) events.shift();
    if (seen.size > 4000) seen.clear();
    if (newRes) resolution = newRes;
    if (added) rebuildLog();
    if (newRes) playResolution(0);
  }

  function rebuildLog() {
    logDirty = true;
    log.length = 0;
    for (const e of events) {
      const text = eventText(e);
      if (text) log.push({ text, kind: e.type });
    }
    while (log.length > LOG_MAX) log.shift();
    if (resolution) resolution.steps = resolution.steps.map((s) => ({ ...s, text: stepText(s.e) }));
  }

  function renderLog() {
    if (!logDirty) return;
    logDirty = false;
    logBox.replaceChildren(...log.slice(-24).map((x) => el("li", { class: `pj-log-${x.kind}` }, x.text)));
    logBox.scrollTop = logBox.scrollHeight;
  }

  // ---- keyboard: Escape clears the selection ------------------------------------------
  function onKey(ev) {
    if (ev.key === "Escape" && (sel || tokenAsk)) {
      ev.preventDefault();
      select(null);
      controls.querySelector("button")?.focus();
    }
  }
  board.addEventListener("keydown", onKey);

  return {
    update(viewDoc) {
      if (destroyed || !viewDoc) return;
      const prevVersion = doc && doc.version;
      doc = viewDoc;
      if (doc.version !== prevVersion) error = null;
      ingest(doc.events);
      render();
    },
    destroy() {
      destroyed = true;
      clearInterval(clockTimer);
      stopReveal();
      board.removeEventListener("keydown", onKey);
      board.remove();
    },
  };
}

// Duell board (plain ES module, no build step).
//
//   import { mount } from "/static/games/duell.js";
//   const board = mount(element, { t, act, seat, matchId });
//   board.update(viewDoc);  ...  board.destroy();
//
// ctx.t(key, params) translates "duell.*" keys; ctx.act(action) returns a Promise that resolves
// on ack and rejects with {code, message}. The view document's `state` is the engine view of
// games/duell (docs/rules/duell.md). Only entries of `legal` are ever sent.

import { el, fmtClock, same, setAttrs, showClock, submitAction, svg } from "./board.js";

const CELL = 34; // px per track space in the SVG's own units
const LOG_MAX = 40;

export function mount(root, ctx) {
  const t = (key, params) => ctx.t(`duell.${key}`, params ?? {});
  let doc = null;
  let selected = null; // selected card value (number) or null
  let busy = false;
  let error = null;
  let destroyed = false;
  const seen = new Set();
  const log = [];

  const board = el("section", { class: "duell", "aria-label": t("title") });
  const header = el("div", { class: "duell-header" });
  const status = el("div", { class: "duell-status", role: "status", "aria-live": "polite" });
  const trackBox = el("div", { class: "duell-track" });
  const table = el("div", { class: "duell-table" });
  const handBox = el("div", { class: "duell-hand", role: "group", "aria-label": t("your_hand") });
  const actionsBox = el("div", { class: "duell-actions", role: "group", "aria-label": t("actions") });
  const message = el("div", { class: "duell-message", role: "alert" });
  const logBox = el("ol", { class: "duell-log", "aria-live": "polite", "aria-label": t("log") });
  board.append(header, status, trackBox, table, handBox, actionsBox, message,
    el("div", { class: "duell-log-wrap" }, [el("h3", {}, t("log")), logBox]));
  root.append(board);

  const clockTimer = setInterval(renderClock, 250);

  // ---------------------------------------------------------------------------------------
  // helpers over the current document
  // ---------------------------------------------------------------------------------------
  // the document's seat wins (null = spectator); ctx.seat before the first document
  const me = () => (doc && "seat" in doc ? doc.seat : ctx.seat) || null;
  const S = () => doc && doc.state;
  const seatsOf = (st) => Object.keys(st.positions).sort((a, b) => st.starts[a] - st.starts[b]);
  const otherOf = (st, seat) => seatsOf(st).find((s) => s !== seat);

  function nameOf(seat) {
    if (!seat) return "";
    const p = ((doc && doc.players) || []).find((x) => x.seat === seat);
    const name = (p && p.user && p.user.name) || t("seat", { seat });
    return seat === me() ? t("you_suffix", { name }) : name;
  }

  function cardName(card) {
    return t(`card_${card}`);
  }

  function cardsText(cards) {
    return (cards || []).join(" + ");
  }

  function sign(st, seat) {
    return st.starts[seat] === 1 ? 1 : -1;
  }

  function targetOf(st, seat, card, dir) {
    return st.positions[seat] + sign(st, seat) * (dir === "forward" ? card : -card);
  }

  // x position of a space: the viewer's own starting square is drawn on the left
  function xOf(st, space) {
    const flip = me() && st.starts[me()] !== 1;
    const idx = flip ? st.track_length - space : space - 1;
    return 10 + idx * CELL;
  }

  function legal() {
    return (doc && doc.legal) || [];
  }

  function canAct() {
    return !busy && doc && doc.status !== "finished" && me() && (doc.pending || []).includes(me())
      && legal().length > 0;
  }

  // ---------------------------------------------------------------------------------------
  // sending
  // ---------------------------------------------------------------------------------------
  function send(action) {
    if (!canAct()) return;
    if (!legal().some((a) => same(a, action))) return; // only ever send listed actions
    busy = true;
    error = null;
    render();
    submitAction(ctx, action, () => !destroyed, (refused) => {
      busy = false;
      error = refused;
      if (!refused) selected = null;
      render();
    });
  }

  function toggleCard(value) {
    selected = selected === value ? null : value;
    error = null;
    render();
  }

  // ---------------------------------------------------------------------------------------
  // rendering
  // ---------------------------------------------------------------------------------------
  function keepFocus(fn) {
    const active = document.activeElement;
    const key = active && board.contains(active) ? active.getAttribute("data-focus") : null;
    fn();
    if (key) {
      const again = board.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      if (again) again.focus();
    }
  }

  function render() {
    if (destroyed) return;
    keepFocus(() => {
      const st = S();
      header.replaceChildren();
      status.replaceChildren();
      trackBox.replaceChildren();
      table.replaceChildren();
      handBox.replaceChildren();
      actionsBox.replaceChildren();
      if (!st) {
        status.append(t("waiting"));
        renderMessage();
        return;
      }
      if (selected !== null && !(st.hand || []).includes(selected)) selected = null;
      if (!canAct()) selected = busy ? selected : null;
      renderHeader(st);
      renderStatus(st);
      renderTrack(st);
      renderTable(st);
      renderHand(st);
      renderActions(st);
      renderMessage();
      renderClock();
    });
    renderLog();
  }

  function renderHeader(st) {
    const seats = seatsOf(st);
    const score = el("div", { class: "duell-score" }, [
      el("span", { class: "duell-name" }, nameOf(seats[0])),
      el("strong", {}, ` ${st.score[seats[0]]} – ${st.score[seats[1]]} `),
      el("span", { class: "duell-name" }, nameOf(seats[1])),
    ]);
    const meta = el("div", { class: "duell-meta" }, [
      el("span", {}, t(`mode_${st.mode}`)),
      el("span", {}, t("duel", { n: st.duel })),
      el("span", {}, t("first_to", { n: st.duels_to_win })),
    ]);
    let special = null;
    if (st.special) {
      const label = st.special === "starters_choice" && st.rule
        ? t("special_chosen", { card: cardName(st.special), rule: cardName(st.rule) })
        : cardName(st.special);
      const desc = st.rule ? t(`card_desc_${st.rule}`) : t(`card_desc_${st.special}`);
      special = el("div", { class: "duell-special", title: desc }, [
        el("span", { class: "duell-seal", "aria-hidden": "true" }, "✠"),
        el("span", {}, t("special", { card: label })),
        el("small", {}, desc),
      ]);
    }
    const clock = el("div", { class: "duell-clock", "data-clock": "1", "aria-live": "off" });
    header.append(...[score, meta, special, clock].filter(Boolean));
  }

  function renderClock() {
    const node = board.querySelector("[data-clock]");
    if (!node) return;
    const deadline = doc && doc.status !== "finished" ? doc.deadline : null;
    showClock(node, deadline, (left) => t("clock", { time: fmtClock(left) }));
  }

  function renderStatus(st) {
    const mine = me();
    const active = st.active;
    let text;
    if (doc.result || st.phase === "over" || doc.status === "finished") {
      const res = doc.result || st.result;
      text = res && res.winner ? t("winner", { name: nameOf(res.winner) }) : t("match_over");
    } else if (st.phase === "choose_special") {
      text = active === mine ? t("you_choose") : t("they_choose", { name: nameOf(active) });
    } else if (st.phase === "defend") {
      text = active === mine ? t("you_defend") : t("they_defend", { name: nameOf(active) });
    } else {
      text = active === mine ? t("your_turn") : t("their_turn", { name: nameOf(active) });
    }
    status.append(el("strong", {}, text));
    if (!mine) status.append(el("span", { class: "duell-muted" }, t("spectating")));
    if (st.attack) {
      const a = st.attack;
      status.append(el("span", { class: "duell-attack" }, a.move
        ? t("pending_advance_attack", { name: nameOf(a.by), move: a.move, cards: cardsText(a.cards) })
        : t("pending_attack", { name: nameOf(a.by), cards: cardsText(a.cards) })));
    }
    if (st.deck_out) status.append(el("span", { class: "duell-attack" }, t("deck_out_flag")));
    if (st.last_duel) status.append(el("span", { class: "duell-muted" }, t("last_duel", { text: duelText(st.last_duel) })));
  }

  function duelText(d) {
    if (!d.winner) return t("log_duel_no_winner", { n: d.duel });
    const key = d.reason === "hit" ? "log_duel_won_hit"
      : d.reason === "no_legal_play" ? "log_duel_won_no_play"
      : d.decided_by === "cards" ? "log_duel_won_cards" : "log_duel_won_advance";
    return t(key, { name: nameOf(d.winner), n: d.duel });
  }

  function targets(st) {
    // spaces the selected card can reach, each with the legal action it sends
    const out = new Map();
    if (selected === null || !canAct()) return out;
    const mine = me();
    for (const a of legal()) {
      if (a.type === "move" && a.card === selected) {
        out.set(targetOf(st, mine, a.card, a.dir), { action: a, label: t("move_to", { card: a.card, dir: t(`dir_${a.dir}`), to: targetOf(st, mine, a.card, a.dir) }) });
      } else if (a.type === "retreat" && a.card === selected) {
        const to = targetOf(st, mine, a.card, "back");
        out.set(to, { action: a, label: t("btn_retreat_to", { card: a.card, to }) });
      } else if (a.type === "attack" && a.cards.length === 1 && a.cards[0] === selected) {
        const to = st.positions[otherOf(st, mine)];
        out.set(to, { action: a, hit: true, label: st.mode === "prologo" ? t("btn_hit", { card: selected }) : t("btn_attack", { cards: selected }) });
      }
    }
    return out;
  }

  function renderTrack(st) {
    const L = st.track_length;
    const width = 20 + L * CELL;
    const height = 96;
    const root = svg("svg", {
      viewBox: `0 0 ${width} ${height}`, class: "duell-svg", role: "group",
      "aria-label": t("track", { n: L, distance: st.distance }),
    });
    const reach = targets(st);
    const seats = seatsOf(st);
    const startOf = {};
    for (const s of seats) startOf[st.starts[s]] = s;
    for (let space = 1; space <= L; space++) {
      const x = xOf(st, space);
      const target = reach.get(space);
      const cls = ["duell-space"];
      if (startOf[space]) cls.push("start", startOf[space] === me() ? "start-own" : "start-opp");
      if (target) cls.push(target.hit ? "hit" : "reach");
      const g = svg("g", { class: cls.join(" ") });
      g.append(svg("rect", { x, y: 30, width: CELL - 4, height: 40, rx: 3 }));
      g.append(svg("text", { x: x + (CELL - 4) / 2, y: 88, "text-anchor": "middle", class: "duell-num" }, space));
      if (startOf[space]) {
        g.append(svg("title", {}, t("start_square", { name: nameOf(startOf[space]) })));
      }
      if (target) {
        setAttrs(g, {
          tabindex: 0, role: "button", "aria-label": target.label, "data-focus": `space-${space}`,
          onclick: () => send(target.action),
          onkeydown: (ev) => {
            if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); send(target.action); }
          },
        });
        g.append(svg("title", {}, target.label));
      }
      root.append(g);
    }
    for (const s of seats) {
      const space = st.positions[s];
      const x = xOf(st, space) + (CELL - 4) / 2;
      const own = s === me();
      const g = svg("g", { class: `duell-fencer ${own ? "own" : "opp"}`, "pointer-events": "none" });
      g.append(svg("circle", { cx: x, cy: 50, r: 12 }));
      g.append(svg("text", { x, y: 55, "text-anchor": "middle" }, s));
      g.append(svg("title", {}, t("fencer_at", { name: nameOf(s), space })));
      root.append(g);
    }
    // distance bracket
    const [a, b] = seats.map((s) => xOf(st, st.positions[s]) + (CELL - 4) / 2);
    const lo = Math.min(a, b), hi = Math.max(a, b);
    root.append(svg("path", { d: `M${lo} 22 L${lo} 16 L${hi} 16 L${hi} 22`, class: "duell-bracket" }));
    root.append(svg("text", { x: (lo + hi) / 2, y: 12, "text-anchor": "middle", class: "duell-dist" }, t("distance", { n: st.distance })));
    trackBox.append(root);
  }

  function cardFace(value, extra) {
    return el("span", { class: `duell-card-face ${extra || ""}` }, [
      el("span", { class: "pip" }, value),
    ]);
  }

  function renderTable(st) {
    const mine = me();
    const seats = seatsOf(st);
    const others = mine ? [otherOf(st, mine)] : seats;
    for (const s of others) {
      const known = st.hands && st.hands[s];
      const box = el("div", { class: "duell-opp" }, [
        el("span", {}, t("opp_cards", { name: nameOf(s), n: st.hand_sizes[s] })),
      ]);
      const row = el("div", { class: "duell-mini-row", "aria-hidden": known ? null : "true" });
      if (known) known.forEach((v) => row.append(cardFace(v, "mini")));
      else for (let i = 0; i < st.hand_sizes[s]; i++) row.append(el("span", { class: "duell-card-back mini" }));
      box.append(row);
      table.append(box);
    }
    table.append(el("div", { class: "duell-pile" }, [
      el("span", { class: "duell-card-back" }),
      el("span", {}, t("deck", { n: st.deck_count })),
      st.aside_count ? el("small", {}, t("aside", { n: st.aside_count })) : null,
    ]));
    const played = (st.discard || []).slice(-12);
    table.append(el("div", { class: "duell-discard" }, [
      el("span", {}, t("discard")),
      el("span", { class: "duell-mini-row" }, played.map((v) => cardFace(v, "mini"))),
    ]));
  }

  function renderHand(st) {
    const mine = me();
    if (!mine || !st.hand) {
      handBox.hidden = true;
      return;
    }
    handBox.hidden = false;
    const usable = new Set();
    for (const a of canAct() ? legal() : []) {
      if (a.type === "move" || a.type === "retreat") usable.add(a.card);
      if (a.type === "attack") usable.add(a.cards[0]);
      if (a.type === "advance_attack") { usable.add(a.move); usable.add(a.cards[0]); }
    }
    handBox.append(el("h3", {}, t("your_hand")));
    const row = el("div", { class: "duell-hand-row" });
    st.hand.forEach((v, i) => {
      const isSel = selected === v && st.hand.indexOf(v) === i;
      row.append(el("button", {
        type: "button",
        class: `duell-card${isSel ? " selected" : ""}${usable.has(v) ? " usable" : ""}`,
        "aria-pressed": isSel ? "true" : "false",
        "aria-label": t("card_label", { v }),
        "data-focus": `card-${i}`,
        disabled: !canAct() || !usable.has(v),
        onclick: () => toggleCard(v),
      }, [el("span", { class: "pip" }, v)]));
    });
    handBox.append(row);
    if (canAct() && st.phase !== "choose_special") {
      handBox.append(el("p", { class: "duell-hint" }, selected === null ? t("select_card") : t("selected_hint", { v: selected })));
    }
  }

  function actionLabel(st, a) {
    switch (a.type) {
      case "move": return t("btn_move", { card: a.card, dir: t(`dir_${a.dir}`) });
      case "attack": return st.mode === "prologo" ? t("btn_hit", { card: a.cards[0] }) : t("btn_attack", { cards: cardsText(a.cards) });
      case "advance_attack": return t("btn_advance_attack", { move: a.move, cards: cardsText(a.cards) });
      case "parry": return t("btn_parry", { cards: cardsText(st.attack ? st.attack.cards : []) });
      case "retreat": return t("btn_retreat", { card: a.card });
      case "choose_special": return cardName(a.card);
      default: return a.type;
    }
  }

  function renderActions(st) {
    if (!canAct()) {
      if (busy) actionsBox.append(el("span", { class: "duell-muted" }, t("sending")));
      return;
    }
    const shown = legal().filter((a) => {
      if (a.type === "move") return a.card === selected;
      if (selected === null) return true;
      if (a.type === "attack") return a.cards[0] === selected;
      if (a.type === "advance_attack") return a.move === selected || a.cards[0] === selected;
      if (a.type === "retreat") return a.card === selected;
      return true;
    });
    shown.forEach((a) => {
      const strong = a.type === "attack" || a.type === "advance_attack" || a.type === "parry";
      const attrs = {
        type: "button", class: `duell-btn${strong ? " strong" : ""}`,
        "data-focus": `act-${JSON.stringify(a)}`, onclick: () => send(a),
      };
      if (a.type === "choose_special") attrs.title = t(`card_desc_${a.card}`);
      actionsBox.append(el("button", attrs, actionLabel(st, a)));
    });
    if (selected !== null) {
      actionsBox.append(el("button", { type: "button", class: "duell-btn quiet", "data-focus": "clear", onclick: () => toggleCard(selected) }, t("cancel")));
    }
  }

  function renderMessage() {
    message.replaceChildren();
    if (error) message.append(el("span", {}, t("rejected", { message: error })));
  }

  // ---------------------------------------------------------------------------------------
  // log in words
  // ---------------------------------------------------------------------------------------
  function eventText(e) {
    const n = (s) => nameOf(s);
    switch (e.type) {
      case "duel_start":
        return e.special
          ? t("log_duel_start_special", { n: e.duel, name: n(e.starter), card: cardName(e.special) })
          : t("log_duel_start", { n: e.duel, name: n(e.starter) });
      case "special_chosen": return t("log_special_chosen", { name: n(e.seat), rule: cardName(e.rule) });
      case "deal":
        return e.cards ? t("log_deal_cards", { name: n(e.seat), cards: cardsText(e.cards) }) : t("log_deal", { name: n(e.seat), n: e.count });
      case "draw":
        return e.cards ? t("log_draw_cards", { name: n(e.seat), cards: cardsText(e.cards) }) : t("log_draw", { name: n(e.seat), n: e.count });
      case "set_aside": return t("log_set_aside", { n: e.count });
      case "move": return t("log_move", { name: n(e.seat), card: e.card, dir: t(`dir_${e.dir}`), to: e.to });
      case "attack": return t("log_attack", { name: n(e.seat), cards: cardsText(e.cards) });
      case "advance_attack": return t("log_advance_attack", { name: n(e.seat), move: e.move, to: e.to, cards: cardsText(e.cards) });
      case "parry": return t("log_parry", { name: n(e.seat), cards: cardsText(e.cards) });
      case "retreat": return t("log_retreat", { name: n(e.seat), card: e.card, to: e.to });
      case "deck_empty": return t("log_deck_empty");
      case "reveal": {
        const parts = Object.keys(e.hands).sort().map((s) => `${n(s)}: ${cardsText(e.hands[s]) || "–"}`);
        return t("log_reveal", { hands: parts.join("; "), distance: e.distance });
      }
      case "no_legal_play": return t("log_no_legal_play", { name: n(e.seat) });
      case "duel_end": return duelText(e);
      case "timeout": return t("log_timeout", { name: n(e.seat) });
      case "forfeit": return t("log_forfeit", { name: n(e.seat), reason: t(`reason_${e.reason}`) });
      case "match_end":
        return e.result && e.result.winner ? t("log_match_end", { name: n(e.result.winner) }) : t("match_over");
      default: return null;
    }
  }

  function ingest(events) {
    for (const e of events || []) {
      const key = `${e.version ?? ""}|${JSON.stringify(e)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const text = eventText(e);
      if (text) log.push({ text, kind: e.type });
    }
    while (log.length > LOG_MAX) log.shift();
    if (seen.size > 2000) seen.clear();
  }

  function renderLog() {
    logBox.replaceChildren(...log.slice(-14).map((x) => el("li", { class: `log-${x.kind}` }, x.text)));
    logBox.scrollTop = logBox.scrollHeight;
  }

  // ---------------------------------------------------------------------------------------
  // keyboard shortcuts: 1–5 select a card, Escape clears
  // ---------------------------------------------------------------------------------------
  function onKey(ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const st = S();
    if (!st || !canAct()) return;
    if (ev.key === "Escape" && selected !== null) { selected = null; render(); return; }
    const v = Number(ev.key);
    if (v >= 1 && v <= 5 && (st.hand || []).includes(v)) {
      const btn = [...handBox.querySelectorAll("button.duell-card")].find((b) => !b.disabled && b.textContent === String(v));
      if (btn) { ev.preventDefault(); btn.click(); }
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
      board.removeEventListener("keydown", onKey);
      board.remove();
    },
  };
}

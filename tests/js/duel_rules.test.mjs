// static/games/duel_rules.js: the pure helpers of the Duel board (weather schedule, plan
// checker, the event digest and its log phrases). tests/js/test_node.py checks that its tables
// are the engine's (games/duel/tables.py).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import * as R from '../../static/games/duel_rules.js';

const plan = (...pairs) => pairs.map(([stance, technique]) => ({ stance, technique }));
const kinds = (warnings) => warnings.map((slot) => slot.map((w) => `${w.level}:${w.key}`));

describe('tables', () => {
  test('each stance holds its three techniques, then Wait', () => {
    assert.deepEqual(R.techniquesOf('high'), ['downward_cut', 'advancing_cut', 'retreating_cut', 'wait']);
    assert.deepEqual(R.techniquesOf('middle'), ['counterattack', 'advancing_thrust', 'block', 'wait']);
    assert.deepEqual(R.techniquesOf('low'), ['horizontal_cut', 'retreating_horizontal_cut', 'low_advancing_thrust', 'wait']);
  });

  test('abbreviations name each technique once', () => {
    assert.equal(Object.keys(R.ABBR).length, R.TECH_ORDER.length);
    for (const [abbr, tech] of Object.entries(R.ABBR)) assert.equal(R.TECHNIQUES[tech].abbr, abbr);
  });

  test('the counter table is consistent with its mirror (yours against theirs)', () => {
    const mirror = { '+5': '-5', '-5': '+5', '+2': '-2', '-2': '+2', '+1': '-1', '-1': '+1' };
    for (const [row, cells] of Object.entries(R.COUNTER_ROWS)) {
      cells.forEach((cell, i) => {
        const col = R.COUNTER_COLUMNS[i];
        const back = R.COUNTER_ROWS[col][R.COUNTER_COLUMNS.indexOf(row)];
        assert.equal(back, mirror[cell] ?? cell, `${row} against ${col}: ${cell}, back ${back}`);
      });
    }
  });
});

describe('weather', () => {
  // Written from the seed's table, as tests/games/duel/test_duel_weather.py does.
  function expected(n, sunFirst, x) {
    if (n <= 9) return ['normal', null];
    const o = (n - 10) % 27;
    if (o < 3) return ['sun', sunFirst];
    if (o < 6) return ['sun', R.OTHER[sunFirst]];
    if (o >= 9 && o < 15) return [x, null];
    if (o >= 18 && o < 24) return [x === 'rain' ? 'fog' : 'rain', null];
    return ['normal', null];
  }

  test('slot by slot, the drawn cycle agrees with the seed schedule', () => {
    for (const sun of R.SEATS) {
      for (const x of ['rain', 'fog']) {
        const draws = { sun: {}, xy: {} };
        for (let c = 0; c < 5; c++) {
          draws.sun[c] = sun;
          draws.xy[c] = x;
        }
        for (let n = 1; n < 120; n++) {
          const w = R.weatherAt(n, draws);
          assert.deepEqual([w.kind, w.blind], expected(n, sun, x), `slot ${n}`);
        }
      }
    }
  });

  test('the engine test examples', () => {
    const draws = { sun: { 0: 'A', 1: 'B' }, xy: { 0: 'fog' } };
    assert.deepEqual(R.weatherAt(10, draws), { kind: 'sun', blind: 'A', half: 1 });
    assert.deepEqual(R.weatherAt(13, draws), { kind: 'sun', blind: 'B', half: 2 });
    assert.deepEqual(R.weatherAt(19, draws), { kind: 'fog', blind: null });
    assert.deepEqual(R.weatherAt(28, draws), { kind: 'rain', blind: null });
    assert.deepEqual(R.weatherAt(37, draws), { kind: 'sun', blind: 'B', half: 1 });
  });

  test('what is not drawn yet stays open', () => {
    assert.deepEqual(R.weatherAt(10), { kind: 'sun', blind: null, half: 1 });
    assert.deepEqual(R.weatherAt(19), { kind: 'rain_or_fog', blind: null });
    assert.deepEqual(R.weatherAt(28, { xy: { 1: 'rain' } }), { kind: 'rain_or_fog', blind: null });
  });

  test('cycleOf: -1 in the opening, then one index per 27 slots', () => {
    assert.deepEqual([1, 9, 10, 36, 37, 63, 64].map(R.cycleOf), [-1, -1, 0, 0, 1, 1, 2]);
  });

  test('nextWeatherChange: the first slot whose weather differs (sun halves differ)', () => {
    assert.deepEqual(R.nextWeatherChange(5, { kind: 'normal', blind: null }, {}, 100), {
      slot: 10, in: 5, weather: { kind: 'sun', blind: null, half: 1 },
    });
    const draws = { sun: { 0: 'A' }, xy: {} };
    const change = R.nextWeatherChange(10, { kind: 'sun', blind: 'A' }, draws, 100);
    assert.deepEqual(change, { slot: 13, in: 3, weather: { kind: 'sun', blind: 'B', half: 2 } });
    assert.equal(R.nextWeatherChange(5, { kind: 'normal', blind: null }, {}, 9), null, 'none before the end');
  });

  test('inferDraws: the weather shown at a slot tells the cycle draw', () => {
    const none = { sun: {}, xy: {} };
    assert.equal(R.inferDraws(none, 5, 'normal', null), none, 'nothing to learn in the opening');
    assert.deepEqual(R.inferDraws(none, 13, 'sun', 'B').sun, { 0: 'A' }, 'second half: the other seat drew first');
    assert.deepEqual(R.inferDraws(none, 10, 'sun', 'B').sun, { 0: 'B' });
    assert.deepEqual(R.inferDraws(none, 19, 'fog', null).xy, { 0: 'fog' }, 'X shows the draw');
    assert.deepEqual(R.inferDraws(none, 28, 'rain', null).xy, { 0: 'fog' }, 'Y shows its opposite');
    const known = { sun: { 0: 'A' }, xy: { 0: 'rain' } };
    assert.deepEqual(R.inferDraws(known, 19, 'fog', null), known, 'what is known is kept');
  });
});

describe('checkPlan', () => {
  const me = { opening: 'middle', duellist: 'ronin', stamina: 20, lock: 0 };

  test('a sound plan has no warnings', () => {
    const w = R.checkPlan(plan(['middle', 'block'], ['high', 'downward_cut'], ['low', 'horizontal_cut']), me);
    assert.deepEqual(kinds(w), [[], [], []]);
  });

  test('a jump of two stances is a misplay; the slot after it starts from Middle', () => {
    const w = R.checkPlan(plan(['middle', 'wait'], ['low', 'wait'], ['high', 'wait']), { ...me, opening: 'high' });
    assert.deepEqual(kinds(w), [[], [], ['misplay:warn_jump']]);
    assert.deepEqual(R.checkPlan(plan(['low', 'wait'], ['high', 'wait'], ['high', 'wait']), { ...me, opening: 'high' })
      .map((s) => s.map((x) => [x.from, x.to])), [[['high', 'low']], [], []]);
  });

  test('after a heavy cut only a Low horizontal cut or Wait will do (the Samurai is exempt)', () => {
    const p = plan(['high', 'downward_cut'], ['middle', 'block'], ['low', 'horizontal_cut']);
    assert.deepEqual(kinds(R.checkPlan(p, me)), [[], ['misplay:warn_heavy'], []]);
    assert.deepEqual(kinds(R.checkPlan(p, { ...me, duellist: 'samurai' })), [[], [], []]);
    const ok = plan(['high', 'advancing_cut'], ['low', 'horizontal_cut'], ['low', 'wait']);
    assert.deepEqual(kinds(R.checkPlan(ok, me)), [[], [], []], 'and High to Low is no jump after a cut');
  });

  test('a thrust risks stiffness for the next technique', () => {
    const p = plan(['middle', 'advancing_thrust'], ['middle', 'block'], ['middle', 'wait']);
    assert.deepEqual(kinds(R.checkPlan(p, me)), [[], ['risk:warn_stiff'], []]);
  });

  test('without the stamina a technique costs, the slot is a rest (+1 stamina)', () => {
    const p = plan(['high', 'downward_cut'], ['high', 'downward_cut'], ['middle', 'counterattack']);
    const w = R.checkPlan(p, { ...me, opening: 'high', stamina: 1 });
    // 1: rests (1 -> 2); 2: the cut is paid (2 -> 0); 3: nothing left for the counterattack
    assert.deepEqual(kinds(w), [['rest:warn_rest'], [], ['rest:warn_rest']]);
    assert.deepEqual([w[0][0].stamina, w[2][0].stamina], [1, 0]);
  });

  test('a lock covers its slots; the brute is told about a mighty first cut', () => {
    const p = plan(['middle', 'block'], ['middle', 'block'], ['high', 'downward_cut']);
    assert.deepEqual(kinds(R.checkPlan(p, { ...me, lock: 2 })), [['locked:warn_locked'], ['locked:warn_locked'], []]);
    const brute = R.checkPlan(plan(['high', 'downward_cut'], ['low', 'wait'], ['low', 'wait']),
      { ...me, opening: 'high', duellist: 'brute' });
    assert.deepEqual(kinds(brute), [['info:warn_mighty'], [], []]);
  });
});

describe('digest and slotPhrases', () => {
  const v = (version, e) => ({ version, ...e });
  const events = [
    v(1, { type: 'duellist', seat: 'A', duellist: 'ronin', position: 4 }),
    v(2, { type: 'duellist', seat: 'B', duellist: 'brute', position: 8 }),
    v(3, { type: 'exchange', exchange: 1, slot: 10 }),
    v(3, { type: 'commit', seat: 'A', decision: 'plan', commitment: 'c-a' }),
    v(4, { type: 'chance', draw: 'sun_first', slot: 10, seat: 'B' }),
    v(4, { type: 'slot', slot: 10, exchange: 1, exchange_slot: 1, weather: 'normal', blind: null }),
    v(5, { type: 'footwork', seat: 'A', move: 'toward', from: 4, to: 5 }),
    v(5, { type: 'footwork', seat: 'B', move: 'stay', from: 8, to: 8 }),
    v(6, { type: 'technique', seat: 'A', slot: 10, technique: 'advancing_thrust', status: 'performed' }),
    v(6, { type: 'technique', seat: 'B', slot: 10, technique: 'block', status: 'performed' }),
    v(6, { type: 'step', seat: 'A', from: 5, to: 6 }),
    v(6, { type: 'slot_end', slot: 10 }),
    v(7, { type: 'slot', slot: 11, exchange: 1, exchange_slot: 2, weather: 'normal', blind: null }),
    v(8, { type: 'technique', seat: 'A', slot: 11, technique: 'downward_cut', status: 'performed' }),
    v(8, { type: 'technique', seat: 'B', slot: 11, technique: null, status: null }),
    v(8, { type: 'hit', seat: 'B', damage: 5, health: 15 }),
    v(8, { type: 'slot_end', slot: 11 }),
    v(9, { type: 'reveal', seat: 'A', decision: 'plan', choice: { type: 'plan' } }),
    v(9, { type: 'exchange_end', exchange: 1 }),
    v(10, { type: 'match_end', result: { places: { A: 1, B: 2 } } }),
  ];

  test('the log entries in order, the slots, commitments, draws and positions', () => {
    const d = R.digest(events);
    assert.deepEqual(d.entries.map((e) => e.kind), [
      'duellists', 'exchange', 'chance_sun', 'slot', 'slot', 'exchange_end', 'match_end',
    ]);
    assert.deepEqual(d.commits.get('c-a'), { seat: 'A', decision: 'plan', version: 3, exchange: 1, slot: 10 });
    assert.deepEqual(d.draws, { sun: { 0: 'B' }, xy: {} });
    assert.deepEqual(d.positions, { A: 6, B: 8 });
    assert.equal(d.reveals.length, 1);
    const s10 = d.slots.get(10);
    assert.deepEqual(s10.start, { A: 4, B: 8 });
    assert.equal(s10.dist, 2, 'the distance when the slot ended');
    assert.deepEqual(s10.steps, { A: { from: 5, to: 6 } });
    assert.deepEqual(d.slots.get(11).hits, { B: { damage: 5, health: 15 } });
  });

  test('phrases: footwork, a block that holds, a hit, a hidden technique', () => {
    const d = R.digest(events);
    assert.deepEqual(R.slotPhrases(d.slots.get(10)).map((p) => [p.key, p.seat]), [
      ['log_toward', 'A'], ['log_stay', 'B'], ['log_blocked', 'A'], ['log_block_holds', 'B'],
    ]);
    const hit = R.slotPhrases(d.slots.get(11));
    assert.deepEqual(hit.map((p) => [p.key, p.seat, p.n]), [['log_hit', 'A', 5], ['log_tech_hidden', 'B', undefined]]);
    assert.deepEqual(R.slotPhrases(undefined), []);
  });

  test('an attack out of range misses; a clash is told once per side and once for the slot', () => {
    const far = R.digest([
      v(1, { type: 'duellist', seat: 'A', duellist: 'ronin', position: 1 }),
      v(1, { type: 'duellist', seat: 'B', duellist: 'ronin', position: 9 }),
      v(2, { type: 'slot', slot: 1, exchange: 1, exchange_slot: 1, weather: 'normal', blind: null }),
      v(3, { type: 'technique', seat: 'A', slot: 1, technique: 'downward_cut', status: 'performed' }),
      v(3, { type: 'technique', seat: 'B', slot: 1, technique: 'wait', status: 'wait' }),
      v(3, { type: 'slot_end', slot: 1 }),
      v(4, { type: 'slot', slot: 2, exchange: 1, exchange_slot: 2, weather: 'normal', blind: null }),
      v(5, { type: 'technique', seat: 'A', slot: 2, technique: 'downward_cut', status: 'performed' }),
      v(5, { type: 'technique', seat: 'B', slot: 2, technique: 'downward_cut', status: 'performed' }),
      v(5, { type: 'clash' }),
      v(5, { type: 'slot_end', slot: 2 }),
    ]);
    assert.deepEqual(R.slotPhrases(far.slots.get(1)).map((p) => p.key), ['log_miss', 'log_wait']);
    assert.deepEqual(R.slotPhrases(far.slots.get(2)).map((p) => p.key), ['log_clashes', 'log_clashes', 'log_clash']);
  });

  test('planMatchesRecord: an opened plan against the techniques shown in its exchange', () => {
    const d = R.digest(events);
    const opened = { slots: plan(['middle', 'advancing_thrust'], ['high', 'downward_cut'], ['low', 'wait']) };
    assert.equal(R.planMatchesRecord(opened, 'A', 1, d.slots), true);
    const other = { slots: plan(['middle', 'block'], ['high', 'downward_cut'], ['low', 'wait']) };
    assert.equal(R.planMatchesRecord(other, 'A', 1, d.slots), false);
    assert.equal(R.planMatchesRecord(other, 'A', 2, d.slots), true, 'no slot of exchange 2 was played');
    assert.equal(R.planMatchesRecord(null, 'A', 1, d.slots), false);
  });
});

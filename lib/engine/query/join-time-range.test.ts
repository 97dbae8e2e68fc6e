/**
 * The state watermark offsets read from a join's time-range condition, for the forms Spark's
 * StreamingJoinSuite writes, and a property: no pair the condition admits is ever between a
 * buffered row that the offsets would evict and a row of the other side that is not late; and
 * the range of lt − rt read from the same bounds, which every pair the condition joins is in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileExpression } from './expression-compiler';
import { ExpressionBuilder } from './expression-builder';
import type { Expr } from './expression';
import { joinStateWatermarkOffsets, timeDifferenceRange } from './join-time-range';
import { parseExpression } from './parser/ast-builder';
import { timestampFromMicros } from './timestamp-micros';

const COLUMNS = ['lt', 'rt', 'lk', 'rk'];
const expr = (text: string): Expr => new ExpressionBuilder({ qualifiers: new Set(), columns: new Set(COLUMNS) }, text).build(parseExpression(text));
const timeOf = (e: Expr) => (e.kind === 'column' ? ({ lt: 'left', rt: 'right' } as const)[e.name as 'lt' | 'rt'] : undefined);
const offsets = (text: string) => joinStateWatermarkOffsets(expr(text), timeOf);

describe('joinStateWatermarkOffsets', () => {
  it.each([
    // BETWEEN admits equality: Spark's state watermark is 1 ms lower, so each offset is.
    ['rt BETWEEN lt - INTERVAL 10 SECONDS AND lt + INTERVAL 20 SECONDS', { left: -20_001, right: -10_001 }],
    ['lk = rk AND rt >= lt AND rt <= lt + INTERVAL 1 HOUR', { left: -3_600_001, right: -1 }],
    ['lt > rt - INTERVAL 5 MINUTES', { left: -300_000 }],
    ['lt + INTERVAL 2 SECONDS < rt', { right: 2_000 }],
    ['rt - lt > INTERVAL 1 SECOND', { right: 1_000 }],
    ['-lt > -rt', { right: 0 }],
    ['lt >= rt - INTERVAL 5 MINUTES', { left: -300_001 }],
    // Of two bounds of one side Spark keeps the looser.
    ['lt > rt - INTERVAL 5 MINUTES AND lt > rt - INTERVAL 1 MINUTE', { left: -300_000 }],
    ['lk = rk', {}],
    ['lt > lt - INTERVAL 1 SECOND', {}],
    ['lt + rt > INTERVAL 1 SECOND', {}],
    ['lt > rt - INTERVAL 1 SECOND OR lk = rk', {}],
    // A bound keeps its microseconds, as timestamps do below their milliseconds.
    ["lt > rt - INTERVAL '0.0005' SECOND", { left: -0.5 }],
    ["rt BETWEEN lt - INTERVAL '1.000250' SECONDS AND lt", { left: -1, right: -1001.25 }],
  ])('%s', (text, expected) => {
    expect(offsets(text)).toEqual(expected);
  });

  // Spark's checker reads the bounded side's column whatever it is (any attribute of that side),
  // the other side's only when it is watermarked: `la`, a left column without a watermark.
  it.each([
    ['la > rt + INTERVAL 10 SECONDS', { left: 10_000 }],
    ['la < rt + INTERVAL 10 SECONDS', {}],
    ['rt > la', {}],
    ['lt BETWEEN rt AND rt + INTERVAL 1 SECOND', { left: -1, right: -1_001 }],
  ])('bounded by any column of its side: %s', (text, expected) => {
    const anyColumnOf = (e: Expr) => (e.kind === 'column' ? (e.name.startsWith('l') ? 'left' : 'right') : undefined);
    const e = new ExpressionBuilder({ qualifiers: new Set(), columns: new Set([...COLUMNS, 'la']) }, text).build(parseExpression(text));
    expect(joinStateWatermarkOffsets(e, timeOf, anyColumnOf)).toEqual(expected);
  });

  it('never evicts a row that a later, not-late row of the other side would match', () => {
    const cond = fc.record({ lo: fc.integer({ min: -50, max: 50 }), width: fc.integer({ min: 0, max: 60 }), strictLo: fc.boolean(), strictHi: fc.boolean() });
    fc.assert(
      fc.property(cond, fc.integer({ min: 900, max: 1100 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -2, max: 2 }), fc.boolean(), fc.boolean(), ({ lo, width, strictLo, strictHi }, wm, near, delta, atHi, leftNear) => {
        // Rows at the edges that matter: one side just after the watermark, the other at a bound of the range from it.
        const hi = lo + width;
        const edge = (atHi ? hi : lo) + delta;
        const lt = leftNear ? wm + near : wm + near - edge;
        const rt = leftNear ? lt + edge : wm + near;
        const ms = (n: number) => `${n < 0 ? '-' : '+'} INTERVAL '0.${String(Math.abs(n)).padStart(3, '0')}' SECOND`;
        const text = `rt ${strictLo ? '>' : '>='} lt ${ms(lo)} AND rt ${strictHi ? '<' : '<='} lt ${ms(hi)}`;
        const o = joinStateWatermarkOffsets(expr(text), timeOf);
        // Both bounds are read (the property would hold vacuously otherwise).
        expect(o).toEqual({ left: -hi - (strictHi ? 0 : 1) || 0, right: lo - (strictLo ? 0 : 1) || 0 });
        const matches = compileExpression(expr(text), COLUMNS.map((name) => ({ name, type: 'timestamp' as const }))).eval;
        if (matches({ lt, rt, lk: null, rk: null }, { batchTimestampMs: 0 }) !== true) return;
        // A buffered left row meets a right row that is not late (rt > wm): the left row must not be evicted.
        if (rt > wm && o.left !== undefined) expect(lt <= wm + o.left).toBe(false);
        if (lt > wm && o.right !== undefined) expect(rt <= wm + o.right).toBe(false);
      }),
      { numRuns: 2000, seed: 3637 },
    );
  });

  it('never evicts such a row when the bounds and the times have microseconds', () => {
    const cond = fc.record({ lo: fc.integer({ min: -5000, max: 5000 }), width: fc.integer({ min: 0, max: 6000 }), strictLo: fc.boolean(), strictHi: fc.boolean() });
    fc.assert(
      fc.property(cond, fc.integer({ min: 900, max: 1100 }), fc.integer({ min: -3000, max: 3000 }), fc.integer({ min: -2, max: 2 }), fc.boolean(), fc.boolean(), ({ lo, width, strictLo, strictHi }, wmMs, near, delta, atHi, leftNear) => {
        // As above, in microseconds: the watermark is whole milliseconds, the rows' times are not.
        const wm = wmMs * 1000;
        const hi = lo + width;
        const edge = (atHi ? hi : lo) + delta;
        const ltUs = leftNear ? wm + near : wm + near - edge;
        const rtUs = leftNear ? ltUs + edge : wm + near;
        const us = (n: number) => `${n < 0 ? '-' : '+'} INTERVAL '0.${String(Math.abs(n)).padStart(6, '0')}' SECOND`;
        const text = `rt ${strictLo ? '>' : '>='} lt ${us(lo)} AND rt ${strictHi ? '<' : '<='} lt ${us(hi)}`;
        const o = joinStateWatermarkOffsets(expr(text), timeOf);
        expect(o).toEqual({ left: -hi / 1000 - (strictHi ? 0 : 1) || 0, right: lo / 1000 - (strictLo ? 0 : 1) || 0 });
        const [lt, rt] = [timestampFromMicros(ltUs), timestampFromMicros(rtUs)];
        const matches = compileExpression(expr(text), COLUMNS.map((name) => ({ name, type: 'timestamp' as const }))).eval;
        if (matches({ lt, rt, lk: null, rk: null }, { batchTimestampMs: 0 }) !== true) return;
        if (rt > wmMs && o.left !== undefined) expect(lt <= wmMs + o.left).toBe(false);
        if (lt > wmMs && o.right !== undefined) expect(rt <= wmMs + o.right).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('timeDifferenceRange', () => {
  const range = (text: string) => timeDifferenceRange(expr(text), timeOf, 'lt', 'rt');
  it.each([
    ['rt BETWEEN lt - INTERVAL 10 SECONDS AND lt + INTERVAL 4 SECONDS', { minMs: -4_000, maxMs: 10_000 }],
    ['rk = lk AND rt >= lt - INTERVAL 10 SECONDS AND rt <= lt + INTERVAL 4 SECONDS', { minMs: -4_000, maxMs: 10_000 }],
    ['lt BETWEEN rt - INTERVAL 3 SECONDS AND rt + INTERVAL 7 SECONDS AND lk + rk > 5', { minMs: -3_000, maxMs: 7_000 }],
    ['rt > lt - INTERVAL 10 SECONDS AND lt + INTERVAL 4 SECONDS > rt', { minMs: -4_000, maxMs: 10_000 }],
    // One bound: the other side of the range is open.
    ['lt > rt - INTERVAL 5 MINUTES', { minMs: -300_000, maxMs: Infinity }],
    ['rt - lt > INTERVAL 1 SECOND', { minMs: -Infinity, maxMs: -1_000 }],
    // Of two bounds the tighter: every joined pair meets both.
    ['lt > rt - INTERVAL 5 MINUTES AND lt > rt - INTERVAL 1 MINUTE', { minMs: -60_000, maxMs: Infinity }],
    ['lk = rk', undefined],
    ['lt > rt - INTERVAL 1 SECOND OR lk = rk', undefined],
  ])('%s', (text, expected) => {
    expect(range(text)).toEqual(expected);
  });

  it('holds every pair the condition joins', () => {
    const cond = fc.record({ lo: fc.integer({ min: -50, max: 50 }), width: fc.integer({ min: 0, max: 60 }), strictLo: fc.boolean(), strictHi: fc.boolean(), flip: fc.boolean() });
    fc.assert(
      fc.property(cond, fc.integer({ min: 900, max: 1100 }), fc.integer({ min: -120, max: 120 }), ({ lo, width, strictLo, strictHi, flip }, lt, d) => {
        const hi = lo + width;
        const ms = (n: number) => `${n < 0 ? '-' : '+'} INTERVAL '0.${String(Math.abs(n)).padStart(3, '0')}' SECOND`;
        // The same bounds written either way round.
        const text = flip
          ? `lt ${ms(lo)} ${strictLo ? '<' : '<='} rt AND lt ${ms(hi)} ${strictHi ? '>' : '>='} rt`
          : `rt ${strictLo ? '>' : '>='} lt ${ms(lo)} AND rt ${strictHi ? '<' : '<='} lt ${ms(hi)}`;
        const r = range(text)!;
        expect(r).toEqual({ minMs: -hi || 0, maxMs: -lo || 0 });
        const rt = lt + d;
        const matches = compileExpression(expr(text), COLUMNS.map((name) => ({ name, type: 'timestamp' as const }))).eval;
        if (matches({ lt, rt, lk: null, rk: null }, { batchTimestampMs: 0 }) === true) expect(lt - rt >= r.minMs && lt - rt <= r.maxMs).toBe(true);
      }),
      { numRuns: 2000, seed: 3639 },
    );
  });
});

/**
 * A join condition that is only a time range is tested by integer arithmetic on the two times
 * (timeRangeCondition): it is read as such for the forms a time range is written in, and gives
 * the compiled expression's answer for every pair, whole milliseconds or not, NULL or far out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileExpression } from './expression-compiler';
import { ExpressionBuilder } from './expression-builder';
import type { Expr } from './expression';
import { timeRangeBounds } from './join-time-range';
import { parseExpression } from './parser/ast-builder';
import { timeRangeCondition } from './stream-join-planner';

const LEFT: Schema = [{ name: 'lt', type: 'timestamp' }, { name: 'lt2', type: 'timestamp' }, { name: 'lk', type: 'long' }];
const RIGHT: Schema = [{ name: 'rt', type: 'timestamp' }, { name: 'rk', type: 'long' }];
const COLUMNS = [...LEFT, ...RIGHT].map((f) => f.name);
const expr = (text: string): Expr => new ExpressionBuilder({ qualifiers: new Set(), columns: new Set(COLUMNS) }, text).build(parseExpression(text));
const timeOf = (e: Expr) => (e.kind === 'column' ? ({ lt: 'left', lt2: 'left', rt: 'right' } as const)[e.name as 'lt' | 'lt2' | 'rt'] : undefined);
const ctx = { batchTimestampMs: 0 };

/** The compiled condition over the pair (the planner's generic path), and the typed one with it as fallback. */
function conditions(text: string) {
  const compiled = compileExpression(expr(text), [...LEFT, ...RIGHT]).eval;
  const generic = (l: Row, r: Row) => compiled({ ...l, ...r }, ctx);
  let fallbacks = 0;
  const typed = timeRangeCondition(timeRangeBounds(expr(text), timeOf), LEFT, RIGHT, (l, r) => {
    fallbacks++;
    return generic(l, r);
  });
  return { generic, typed, fallbacks: () => fallbacks };
}

const RANGES = [
  'rt BETWEEN lt - INTERVAL 10 SECONDS AND lt + INTERVAL 10 SECONDS',
  'rt >= lt - INTERVAL 10 SECONDS AND rt <= lt + INTERVAL 10 SECONDS',
  'lt > rt - INTERVAL 5 MINUTES',
  'lt + INTERVAL 2 SECONDS < rt',
  'rt - lt > INTERVAL 1 SECOND',
  "rt BETWEEN lt2 - INTERVAL '0.004' SECOND AND lt2",
  // Each bound reads its own left column.
  'rt BETWEEN lt - INTERVAL 1 SECOND AND lt2',
];

describe('timeRangeCondition', () => {
  it.each(RANGES)('reads %s as a time range', (text) => {
    expect(timeRangeBounds(expr(text), timeOf)).toBeDefined();
  });

  it.each([
    'rt BETWEEN lt - INTERVAL 10 SECONDS AND lt + INTERVAL 10 SECONDS AND lk < rk',
    "rt BETWEEN lt - INTERVAL '0.0005' SECOND AND lt",
    'lt > rt - INTERVAL 1 SECOND OR lk = rk',
    'lt + rt > INTERVAL 1 SECOND',
  ])('leaves %s to the expression', (text) => {
    expect(timeRangeBounds(expr(text), timeOf)).toBeUndefined();
  });

  it('gives the expression’s answer for every pair', () => {
    const time = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1_767_225_000_000, max: 1_767_226_000_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1_767_225_000_000, max: 1_767_226_000_000 }).map((ms) => ms + 0.25) },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(9e15, -9e15, 0) },
    );
    // The other side's time near the first's, often exactly at a bound of RANGES or a millisecond off.
    const bound = fc.tuple(fc.constantFrom(0, 1_000, 2_000, 4, 10_000, 300_000), fc.constantFrom(-1, 1), fc.constantFrom(-1, 0, 1)).map(([b, s, off]) => s * b + off);
    const offset = fc.oneof(fc.integer({ min: -400_000, max: 400_000 }), bound);
    const near = fc.tuple(time, offset, fc.boolean()).map(([t, d, far]) => [t, typeof t === 'number' && !far ? t + d : t] as const);
    let typedAnswers = 0;
    fc.assert(
      fc.property(fc.constantFrom(...RANGES), near, time, (text, [lt, rt], lt2) => {
        const { generic, typed, fallbacks } = conditions(text);
        const l = { lt, lt2: lt2 ?? lt, lk: 1 }, r = { rt, rk: 1 };
        expect(typed(l, r, ctx)).toBe(generic(l, r));
        if (fallbacks() === 0) typedAnswers++;
      }),
      { numRuns: 3000, seed: 2026 },
    );
    // Most pairs were answered by the arithmetic, not handed on.
    expect(typedAnswers).toBeGreaterThan(1500);
  });

  it('keeps the expression for columns that are not timestamps', () => {
    const generic = () => 'generic';
    const bounds = timeRangeBounds(expr('lt > rt'), timeOf);
    expect(timeRangeCondition(bounds, [{ name: 'lt', type: 'long' }], RIGHT, generic)).toBe(generic);
  });
});

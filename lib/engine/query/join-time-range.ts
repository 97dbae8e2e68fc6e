/**
 * Spark's StreamingJoinHelper.getStateValueWatermark: from a stream-stream join's time-range
 * condition, how far behind the watermark each side's buffered rows can no longer match.
 *
 * A row of the other side that is not late has an event time after the watermark W. So a
 * conjunct that bounds this side's time from below by the other side's,
 *
 *   left.t > right.t + k   (or >=)
 *
 * means every future match has left.t > W + k: a buffered left row with left.t ≤ W + k can be
 * dropped (offset k); with >= Spark drops it only from W + k − 1 ms (its state watermark is
 * 1 ms lower for a bound that admits equality), and so does Weir, to keep Spark's state. `BETWEEN` is its two comparisons; each comparison is read as a linear
 * expression in the two event times (+, −, unary −, day-time interval literals), and only one
 * whose event-time terms are exactly `left.t − right.t` (either way round) bounds anything. The
 * loosest bound wins (Spark's least state watermark); a side with none keeps its rows until the key's own event time (a window
 * in the join key) passes, or for ever.
 */
import { conjuncts, type Expr } from './expression';

export type JoinSideName = 'left' | 'right';

/** Which side's watermarked event-time column an expression is, if it is one. */
export type EventTimeColumnOf = (e: Expr) => JoinSideName | undefined;

interface Linear {
  left: number;
  right: number;
  /** Constant microseconds (an interval literal's exact value: a sum of them stays exact). */
  constUs: number;
}

function linear(e: Expr, timeOf: EventTimeColumnOf): Linear | undefined {
  const side = timeOf(e);
  if (side) return { left: side === 'left' ? 1 : 0, right: side === 'right' ? 1 : 0, constUs: 0 };
  // A day-time interval literal holds microseconds, as a timestamp does below its milliseconds:
  // the bound keeps them (rounded to whole milliseconds, a negated bound would evict a row
  // that a row less than a millisecond away can still match).
  if (e.kind === 'literal') return e.type === 'day_time_interval' && e.value !== null ? { left: 0, right: 0, constUs: Number(e.value) } : undefined;
  if (e.kind === 'unary' && e.op === '-') {
    const a = linear(e.arg, timeOf);
    return a && { left: -a.left, right: -a.right, constUs: -a.constUs };
  }
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-')) {
    const a = linear(e.left, timeOf);
    const b = linear(e.right, timeOf);
    if (!a || !b) return undefined;
    const s = e.op === '+' ? 1 : -1;
    return { left: a.left + s * b.left, right: a.right + s * b.right, constUs: a.constUs + s * b.constUs };
  }
  return undefined;
}

/** The condition's conjuncts, a BETWEEN as its two comparisons. */
function comparisons(e: Expr | undefined): Expr[] {
  return (e ? conjuncts(e) : []).flatMap((c): Expr[] =>
    c.kind === 'between' && !c.negated
      ? [
          { kind: 'binary', op: '>=', left: c.arg, right: c.low },
          { kind: 'binary', op: '<=', left: c.arg, right: c.high },
        ]
      : [c],
  );
}

/**
 * Each side's state watermark offset (ms): a buffered row of that side whose event time is ≤
 * watermark + offset can match no future row. Undefined for a side the condition does not bound.
 * The other side's column must be a watermarked event time; the bounded side's is one too by
 * default, or any column `boundedColumnOf` reads as that side's (Spark's checker reads every
 * attribute of the side so, getStateValueWatermark's attributesToFindStateWatermarkFor).
 */
export function joinStateWatermarkOffsets(condition: Expr | undefined, timeOf: EventTimeColumnOf, boundedColumnOf: EventTimeColumnOf = timeOf): Partial<Record<JoinSideName, number>> {
  const out: Partial<Record<JoinSideName, number>> = {};
  // Several bounds of one side: Spark keeps the least (the loosest), so a row stays until every
  // bound says it can go.
  const bound = (side: JoinSideName, offset: number) => {
    out[side] = Math.min(out[side] ?? Infinity, offset);
  };
  for (const side of ['left', 'right'] as const) {
    // The bounded side's column as `boundedColumnOf` reads it, the other side's only if watermarked.
    const read: EventTimeColumnOf = (e) => {
      if (boundedColumnOf(e) === side) return side;
      const other = timeOf(e);
      return other !== side ? other : undefined;
    };
    boundSide(side, condition, read, bound);
  }
  return out;
}

/** joinStateWatermarkOffsets's bounds of one side, each comparison read by `read`. */
function boundSide(side: JoinSideName, condition: Expr | undefined, read: EventTimeColumnOf, bound: (side: JoinSideName, offset: number) => void): void {
  for (const c of comparisons(condition)) {
    if (c.kind !== 'binary' || !['<', '<=', '>', '>='].includes(c.op)) continue;
    // a op b  ⇔  (a − b) op 0
    const a = linear(c.left, read);
    const b = linear(c.right, read);
    if (!a || !b) continue;
    const d = { left: a.left - b.left, right: a.right - b.right, constUs: a.constUs - b.constUs };
    if (Math.abs(d.left) !== 1 || d.right !== -d.left) continue;
    // Normalise to left − right + k op 0 with left's coefficient +1 (flipping the comparison).
    const greater = (c.op === '>' || c.op === '>=') === (d.left === 1);
    // In milliseconds, as timestamps are (their fraction the microseconds).
    const k = (d.left === 1 ? d.constUs : -d.constUs) / 1000 || 0; // no −0
    // left − right + k > 0: left > right − k bounds left from below (offset −k);
    // left − right + k < 0: right > left + k bounds right from below (offset k).
    // A bound that admits equality (>=, <=) holds rows 1 ms longer, as Spark's state watermark
    // is 1 ms lower then: a row exactly at the bound is kept for one more watermark.
    const inclusive = c.op === '<=' || c.op === '>=' ? 1 : 0;
    if (greater && side === 'left') bound('left', -k - inclusive || 0);
    else if (!greater && side === 'right') bound('right', k - inclusive || 0);
  }
}

/**
 * One conjunct of a time range read exactly: `sign · (left − right) + constUs  op  0`, in
 * microseconds, over one event-time column of each side.
 */
export interface TimeBound {
  left: string;
  right: string;
  /** The coefficient of the left column: ±1 (the right column's is its negation). */
  sign: 1 | -1;
  constUs: number;
  op: '<' | '<=' | '>' | '>=';
}

/** Whether every interval literal in `e` is whole milliseconds (a bound the typed test reads as the SQL does). */
function wholeMillis(e: Expr): boolean {
  if (e.kind === 'literal') return Number(e.value) % 1000 === 0;
  if (e.kind === 'unary') return wholeMillis(e.arg);
  if (e.kind === 'binary') return wholeMillis(e.left) && wholeMillis(e.right);
  return true;
}

/**
 * The condition as bounds on the difference of a left and a right event-time column, when it is
 * nothing else: every conjunct (a BETWEEN as two) compares sums of one column of each side and
 * day-time interval literals of whole milliseconds, the two columns with opposite signs.
 * Undefined when any conjunct is not such a comparison. So a pair of whole-millisecond times can
 * be tested by integer arithmetic (TimeBound) instead of the compiled expression.
 */
export function timeRangeBounds(condition: Expr | undefined, timeOf: EventTimeColumnOf): TimeBound[] | undefined {
  const bounds = conjunctBounds(condition, timeOf);
  return bounds && !bounds.includes(undefined) ? (bounds as TimeBound[]) : undefined;
}

/** Each comparison of the condition (a BETWEEN as two) as a TimeBound, or undefined where it is not one. */
function conjunctBounds(condition: Expr | undefined, timeOf: EventTimeColumnOf): (TimeBound | undefined)[] | undefined {
  return condition && comparisons(condition).map((c) => comparisonBound(c, timeOf));
}

function comparisonBound(c: Expr, timeOf: EventTimeColumnOf): TimeBound | undefined {
  if (c.kind !== 'binary' || (c.op !== '<' && c.op !== '<=' && c.op !== '>' && c.op !== '>=')) return undefined;
  const a = linear(c.left, timeOf);
  const b = linear(c.right, timeOf);
  if (!a || !b || !wholeMillis(c)) return undefined;
  const d = { left: a.left - b.left, right: a.right - b.right, constUs: a.constUs - b.constUs };
  if (Math.abs(d.left) !== 1 || d.right !== -d.left) return undefined;
  // The one column of each side it reads (a side of a join of joins has several event times).
  const columns: Record<JoinSideName, Set<string>> = { left: new Set(), right: new Set() };
  const collect = (e: Expr): void => {
    if (e.kind === 'column') columns[timeOf(e)!].add(e.name);
    else if (e.kind === 'unary') collect(e.arg);
    else if (e.kind === 'binary') {
      collect(e.left);
      collect(e.right);
    }
  };
  collect(c);
  if (columns.left.size !== 1 || columns.right.size !== 1) return undefined;
  return { left: [...columns.left][0], right: [...columns.right][0], sign: d.left as 1 | -1, constUs: d.constUs, op: c.op };
}

/**
 * What the condition's time bounds over the event-time columns `left` and `right` say of their
 * difference, in milliseconds: every pair the condition joins has `minMs ≤ left − right ≤ maxMs`
 * (±Infinity where nothing bounds it). Read from the conjuncts that are such bounds, whatever
 * the others are: a range every joined pair is in, so a pair outside it can be passed over
 * without evaluating the condition. Undefined when no conjunct bounds the two.
 */
export function timeDifferenceRange(condition: Expr | undefined, timeOf: EventTimeColumnOf, left: string, right: string): { minMs: number; maxMs: number } | undefined {
  let min = -Infinity, max = Infinity;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  for (const b of conjunctBounds(condition, timeOf) ?? []) {
    if (!b || !same(b.left, left) || !same(b.right, right)) continue;
    // sign · (left − right) + constUs op 0: d (ms) is above or below −sign · constUs / 1000.
    const at = (-b.sign * b.constUs) / 1000 || 0; // no −0
    const below = b.op === '<' || b.op === '<=';
    if (below === (b.sign === 1)) max = Math.min(max, at);
    else min = Math.max(min, at);
  }
  return min === -Infinity && max === Infinity ? undefined : { minMs: min, maxMs: max };
}

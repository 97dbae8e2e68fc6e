/**
 * Spark's TimeWindowing rule for `window(ts, size[, slide[, start]])` outside GROUP BY (a select
 * item, WHERE): the clause reads a column `window` that a Generate below it adds, one row per
 * window containing ts (tumbling: one; sliding: each of them, Spark's Expand and Filter), no row
 * for a NULL ts. The column keeps ts's watermark (Spark copies the time column's metadata onto
 * it), so a stream keyed by its window is bounded as an aggregation's window is.
 * GROUP BY window(…) stays the aggregation's own key (stateful-planner.ts), planned in one pass.
 */
import { AnalysisException } from '../errors';
import { typeText, type TypeInfo } from './data-types';
import { exprToString, type Expr } from './expression';
import type { CollectionFunctionDef } from './function-types';
import { expressionSql } from './parser/expression-sql';
import { mapExpression, someExpression } from './parser/expression-tree';
import type { Expression, UnresolvedFunction } from './parser/unresolved-plan';
import { SqlValidationError } from './sql-error';
import { addMicros } from './timestamp-micros';

/** The column a window(…) outside GROUP BY becomes (Spark's WINDOW_COL_NAME). */
export const WINDOW_COLUMN = 'window';

const isWindowCall = (e: Expression): e is UnresolvedFunction =>
  e.kind === 'UnresolvedFunction' && e.nameParts.length === 1 && e.nameParts[0].toLowerCase() === 'window';

/**
 * The one window(…) call the expressions of a clause hold, or undefined. Several different ones
 * would each multiply the rows, which Spark refuses.
 */
export function timeWindowIn(exprs: readonly Expression[]): UnresolvedFunction | undefined {
  const found = new Map<string, UnresolvedFunction>();
  for (const e of exprs) {
    someExpression(e, (x) => {
      if (isWindowCall(x)) found.set(expressionSql(x).toLowerCase(), x);
      return false;
    });
  }
  if (found.size > 1) {
    throw new AnalysisException(
      `Multiple time/session window expressions would result in a cartesian product of rows, therefore they are currently not supported: ${[...found.values()].map((w) => expressionSql(w)).join(', ')}. ` +
        'Compute one window in a subquery and the other in the outer SELECT',
    );
  }
  return found.values().next().value;
}

/**
 * Whether a select item reads window(…) inside an expression (`window(ts, '1 minute').start`),
 * not as the item itself, which an aggregation takes as its key.
 */
export function windowInsideAnItem(items: readonly Expression[]): boolean {
  return items.some((i) => {
    const e = i.kind === 'Alias' ? i.child : i;
    return !isWindowCall(e) && someExpression(e, isWindowCall);
  });
}

/** `e` reading the `window` column where it called window(…). */
export function withWindowColumn(e: Expression): Expression {
  return mapExpression(e, (x) => (isWindowCall(x) ? { kind: 'UnresolvedAttribute', nameParts: [WINDOW_COLUMN], pos: x.pos } : undefined));
}


export const isWindowStruct = (t: TypeInfo) =>
  t.type === 'struct' && t.fields?.length === 2 && t.fields.every((f, i) => f.name === ['start', 'end'][i] && f.type === 'timestamp');

/**
 * window_time(w) (Spark's WindowTime): the time that stands for window w, its end less one unit
 * of time, so that it falls inside the window ([start, end) excludes its end): a microsecond.
 */
export const WINDOW_TIME_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  window_time: {
    min: 1, max: 1,
    // A watermarked window's time carries the watermark (Spark's WindowTime keeps the window
    // column's metadata), so a window over it bounds an aggregation of the windows' results.
    type: ([w]) => (w.type === 'null' || isWindowStruct(w) ? { type: 'timestamp', ...(w.watermarkDelayMs === undefined ? {} : { watermarkDelayMs: w.watermarkDelayMs }) } : `The input is not a correct window column: window_time() takes the window column of window(…), got ${typeText(w)}`),
    impl: ([w]) => addMicros((w as { end: number }).end, -1),
  },
};

/** What a window(…) left where no Generate or GROUP BY computes it (a join's ON, HAVING, an ungrouped item of an aggregation) says. */
export function windowNotComputedHere(e: Expr): SqlValidationError {
  return new SqlValidationError(
    `${exprToString(e)} cannot be computed here: Weir computes a time window in a select list, in WHERE or as a GROUP BY key (Spark's TimeWindowing). ` +
      "Compute it in a subquery (SELECT window(ts, '10 minutes') AS w, … FROM …) and read w here, or group by it",
    e.pos,
    'window',
  );
}

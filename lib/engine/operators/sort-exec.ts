/**
 * Sort over a complete aggregation result (the only place Spark allows sorting a stream).
 * NULLs first when ascending and last when descending, as in Spark; windows order by start, then end.
 */
import { compareValues } from '../query/ordering';
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';

/** NULLs first, then Spark's order of values. */
function compareNullsFirst(a: unknown, b: unknown): number {
  const an = a === null || a === undefined, bn = b === null || b === undefined;
  if (an || bn) return an && bn ? 0 : an ? -1 : 1;
  return compareValues(a, b);
}

export class SortExec implements PhysicalOperator {
  readonly name = 'Sort';
  readonly stateful = false;
  constructor(
    private readonly order: { column: string; ascending: boolean }[],
    readonly outputSchema: Schema,
  ) {}

  execute(rows: Row[], _ctx: OperatorContext): Row[] {
    const order = this.order;
    return [...rows].sort((x, y) => {
      for (const o of order) {
        const c = compareNullsFirst(x[o.column], y[o.column]);
        if (c !== 0) return o.ascending ? c : -c;
      }
      return 0;
    });
  }
}

/**
 * Sort over a complete aggregation result (the only place Spark allows sorting a stream).
 * NULLs first when ascending and last when descending, as in Spark; windows order by start.
 */
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';

function compareValues(a: unknown, b: unknown): number {
  const an = a === null || a === undefined, bn = b === null || b === undefined;
  if (an || bn) return an && bn ? 0 : an ? -1 : 1;
  if (typeof a === 'object' && typeof b === 'object') {
    const wa = a as { start: number; end: number }, wb = b as { start: number; end: number };
    return wa.start - wb.start || wa.end - wb.end;
  }
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
    return a - b;
  }
  const sa = a as string | boolean, sb = b as string | boolean;
  return sa < sb ? -1 : sa > sb ? 1 : 0;
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
        const c = compareValues(x[o.column], y[o.column]);
        if (c !== 0) return o.ascending ? c : -c;
      }
      return 0;
    });
  }
}

/**
 * Sort over a complete aggregation result (the only place Spark allows sorting a stream).
 * NULLs where ORDER BY puts them (NULLS FIRST or LAST; unwritten, first when ascending and last
 * when descending, as in Spark); windows order by start, then end.
 */
import { compareSortKey } from '../query/ordering';
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';

export class SortExec implements PhysicalOperator {
  readonly name = 'Sort';
  readonly stateful = false;
  constructor(
    private readonly order: { column: string; ascending: boolean; nullsFirst: boolean }[],
    readonly outputSchema: Schema,
  ) {}

  execute(rows: Row[], _ctx: OperatorContext): Row[] {
    const order = this.order;
    return [...rows].sort((x, y) => {
      for (const o of order) {
        const c = compareSortKey(x[o.column], y[o.column], o.ascending, o.nullsFirst);
        if (c !== 0) return c;
      }
      return 0;
    });
  }
}

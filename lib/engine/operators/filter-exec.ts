/** Filter: keeps the rows whose predicate is TRUE (FALSE and NULL both drop the row, as in SQL). */
import type { Row, Schema } from '../types';
import type { Evaluator } from '../query/expression-compiler';
import { divertBadRow, type OperatorContext, type PhysicalOperator } from './physical-operator';

export class FilterExec implements PhysicalOperator {
  readonly name = 'Filter';
  readonly stateful = false;
  constructor(
    /** Read by physical planning to fuse this Filter into the Project above it. */
    readonly predicate: Evaluator,
    readonly outputSchema: Schema,
  ) {}

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const p = this.predicate;
    const out: Row[] = [];
    for (const r of rows) {
      let keep: unknown;
      try {
        keep = p(r, ctx);
      } catch (e) {
        if (divertBadRow(e, r, ctx)) continue;
        throw e;
      }
      if (keep === true) out.push(r);
    }
    return out;
  }
}

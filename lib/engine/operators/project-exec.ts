/** Project: computes the select list into new rows with the output column names. */
import type { Row, Schema } from '../types';
import type { Evaluator } from '../query/expression-compiler';
import { divertBadRow, type OperatorContext, type PhysicalOperator } from './physical-operator';

export class ProjectExec implements PhysicalOperator {
  readonly name = 'Project';
  readonly stateful = false;
  private readonly names: string[];
  constructor(
    private readonly evaluators: Evaluator[],
    readonly outputSchema: Schema,
  ) {
    this.names = outputSchema.map((f) => f.name);
  }

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const { names, evaluators } = this;
    const n = names.length;
    const out = new Array<Row>(rows.length);
    let k = 0;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      const o: Row = {};
      try {
        for (let j = 0; j < n; j++) o[names[j]] = evaluators[j](r, ctx);
      } catch (e) {
        if (divertBadRow(e, r, ctx)) continue;
        throw e;
      }
      out[k++] = o;
    }
    out.length = k;
    return out;
  }
}

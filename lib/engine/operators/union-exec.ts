/**
 * Union (UNION ALL): each branch's operators run on the batch's input rows (a branch over another
 * source starts with its own MicroBatchScanExec), and the outputs follow each other, first branch
 * first. Spark unions by position, so every branch's row is renamed to the first branch's column
 * names. A branch may hold a stateful operator (an aggregation): `children` lists it, so that
 * the runtime opens, commits and reports its state as any other's.
 */
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';

export class UnionExec implements PhysicalOperator {
  readonly name = 'Union';
  readonly stateful = false;
  constructor(
    private readonly branches: { operators: PhysicalOperator[]; schema: Schema }[],
    readonly outputSchema: Schema,
  ) {}

  get children(): PhysicalOperator[] {
    return this.branches.flatMap((b) => b.operators);
  }

  async execute(rows: Row[], ctx: OperatorContext): Promise<Row[]> {
    const names = this.outputSchema.map((f) => f.name);
    const out: Row[] = [];
    for (const b of this.branches) {
      let part = rows;
      for (const op of b.operators) part = await op.execute(part, ctx);
      const own = b.schema.map((f) => f.name);
      const same = own.every((n, i) => n === names[i]);
      for (const r of part) {
        if (same) out.push(r);
        else {
          const o: Row = {};
          for (let i = 0; i < names.length; i++) o[names[i]] = r[own[i]];
          out.push(o);
        }
      }
    }
    return out;
  }
}

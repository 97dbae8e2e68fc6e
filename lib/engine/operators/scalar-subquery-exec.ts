/**
 * ScalarSubqueryExec: evaluates a query's uncorrelated scalar subqueries over static tables (Spark's
 * ScalarSubquery, whose plan Spark runs before the plan that reads its value) before the batch's
 * other operators, and passes the rows on untouched. Each subquery runs at the first batch, and
 * again at each batch with data whose tables may have changed, as a stream-static join reads its
 * static side (StaticTableReads; Spark runs the subqueries of each batch's plan): its one row's
 * one value, NULL for no row; more than one row fails the batch with Spark's
 * SCALAR_SUBQUERY_TOO_MANY_ROWS. The values go to the run's ScalarSubqueryResults, which the
 * query's expressions read; the logical plan holds none.
 */
import type { EvalContext } from '../query/function-types';
import type { ScalarSubquery } from '../query/logical-plan';
import type { ScalarSubqueryResults } from '../query/scalar-subquery-results';
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';
import { scalarSubqueryTooManyRows } from './correlated-scalar-subquery-exec';
import { StaticTableReads } from './static-table-reads';
import { loadStaticTable, type StaticTableSpec } from './stream-static-join';

export interface PlannedScalarSubquery {
  subquery: ScalarSubquery;
  /** Its column's name in the rows `run` gives. */
  column: string;
  /** Its plan's rows, its tables read through `load`. */
  run: (load: (t: StaticTableSpec) => Promise<Row[]>, ctx: EvalContext) => Promise<Row[]>;
}

export class ScalarSubqueryExec implements PhysicalOperator {
  readonly stateful = false;
  readonly name: string;
  private evaluated = false;
  /** What the subqueries read last, and whether they must run again. */
  private readonly reads: StaticTableReads;

  /** `results`: the run's values, which the query's expressions were compiled to read. */
  constructor(private readonly subqueries: readonly PlannedScalarSubquery[], private readonly results: ScalarSubqueryResults, readonly outputSchema: Schema, load: (t: StaticTableSpec) => Promise<Row[]> = loadStaticTable) {
    this.name = `Subquery ${subqueries.map((s) => `scalar-subquery#${s.subquery.id}`).join(', ')}`;
    this.reads = new StaticTableReads(load);
  }

  async execute(rows: Row[], ctx: OperatorContext): Promise<Row[]> {
    if (await this.reads.mustRead(ctx.batchId, rows.length > 0, this.evaluated)) {
      const load = this.reads.reader();
      // In order: a subquery may read one evaluated before it.
      for (const s of this.subqueries) {
        const out = await s.run(load, ctx);
        if (out.length > 1) throw scalarSubqueryTooManyRows(s.subquery, out.length);
        this.results.set(s.subquery, out.length === 0 ? null : out[0][s.column] ?? null);
      }
      this.evaluated = true;
    }
    return rows;
  }
}

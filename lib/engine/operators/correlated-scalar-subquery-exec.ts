/**
 * CorrelatedScalarSubqueryExec: computes the correlated scalar subqueries the next operator's
 * expressions read (query/correlated-scalar-subquery.ts), for the rows it passes on untouched:
 * each subquery's batch plan runs once for each tuple of outer values among the rows that this
 * batch has not run it for, its one row's one value the tuple's value (NULL for no row; more than
 * one fails the batch with Spark's SCALAR_SUBQUERY_TOO_MANY_ROWS). The values are kept for the
 * batch (a batch's pieces share them) and dropped at the next, whose tables may have changed, as
 * a stream-static join reads its static side again (StaticTableReads); each table is read once
 * for all the runs of one call.
 */
import { WeirError } from '../errors';
import type { EvalContext, Evaluator } from '../query/function-types';
import type { ScalarSubquery } from '../query/logical-plan';
import { outerValuesKey, type CorrelatedValues, type OuterValues } from '../query/correlated-scalar-subquery';
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';
import { StaticTableReads } from './static-table-reads';
import { loadStaticTable, type StaticTableSpec } from './stream-static-join';

export interface PlannedCorrelatedSubquery {
  subquery: ScalarSubquery;
  /** Its outer values over the operator's row (the expression's `outer`). */
  outer: readonly Evaluator[];
  /** Where its plan's outer references read the values of the run under way. */
  outerValues: OuterValues;
  /** Its column's name in the rows `run` gives. */
  column: string;
  /** Its plan's rows for the outer values set, its tables read through `load`. */
  run: (load: (t: StaticTableSpec) => Promise<Row[]>, ctx: EvalContext) => Promise<Row[]>;
}

/** Spark's SCALAR_SUBQUERY_TOO_MANY_ROWS for a subquery that gave `rows` rows. */
export function scalarSubqueryTooManyRows(s: ScalarSubquery, rows: number): WeirError {
  const e = new WeirError('SCALAR_SUBQUERY_TOO_MANY_ROWS',
    `[SCALAR_SUBQUERY_TOO_MANY_ROWS] More than one row returned by a subquery used as an expression: scalar-subquery#${s.id} returned ${rows} rows. ` +
      'Make it return one row (an aggregate such as max(…), a WHERE on a unique key, or LIMIT 1).');
  e.errorClass = 'SCALAR_SUBQUERY_TOO_MANY_ROWS';
  return e;
}

export class CorrelatedScalarSubqueryExec implements PhysicalOperator {
  readonly stateful = false;
  readonly name: string;
  private readonly reads: StaticTableReads;
  /** The batch the values are of. */
  private batchId?: number;
  /** The runs under way: one at a time, as they share their plans' outer values. */
  private running: Promise<unknown> = Promise.resolve();

  /** `values`: where the next operator's expressions were compiled to read the subqueries' values. */
  constructor(private readonly subqueries: readonly PlannedCorrelatedSubquery[], private readonly values: CorrelatedValues, readonly outputSchema: Schema, load: (t: StaticTableSpec) => Promise<Row[]> = loadStaticTable) {
    this.name = `Subquery ${subqueries.map((s) => `scalar-subquery#${s.subquery.id}`).join(', ')} [for each outer value]`;
    this.reads = new StaticTableReads(load);
  }

  execute(rows: Row[], ctx: OperatorContext): Promise<Row[]> {
    const done = this.running.then(() => this.evaluate(rows, ctx));
    this.running = done.catch(() => undefined);
    return done.then(() => rows);
  }

  private async evaluate(rows: Row[], ctx: OperatorContext): Promise<void> {
    if (this.batchId !== ctx.batchId) {
      this.values.clear();
      this.batchId = ctx.batchId;
    }
    const reader = ctx.loadStaticTable ?? this.reads.reader();
    const tables = new Map<StaticTableSpec, Promise<Row[]>>();
    const load = (t: StaticTableSpec) => {
      let read = tables.get(t);
      if (!read) tables.set(t, (read = reader(t)));
      return read;
    };
    for (const s of this.subqueries) {
      for (const row of rows) {
        const outer = s.outer.map((f) => f(row, ctx));
        const key = outerValuesKey(outer);
        if (this.values.has(s.subquery, key)) continue;
        s.outerValues.values = outer;
        // A loader of its own for each run: the run's CTEs are computed for its outer values.
        const out = await s.run((t) => load(t), ctx);
        if (out.length > 1) throw scalarSubqueryTooManyRows(s.subquery, out.length);
        this.values.set(s.subquery, key, out.length === 0 ? null : out[0][s.column] ?? null);
      }
    }
  }
}

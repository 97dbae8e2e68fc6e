/**
 * The scan of one source in a query over several (Spark's MicroBatchScanExec): it yields the
 * batch's rows of its own source, whatever rows reach it, so that each branch of a UNION of
 * streams starts from its own stream. A one-source plan has no scan: its operators start from
 * the source's rows.
 */
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';

export class MicroBatchScanExec implements PhysicalOperator {
  readonly name: string;
  readonly stateful = false;
  constructor(
    readonly sourceName: string,
    readonly outputSchema: Schema,
  ) {
    this.name = `MicroBatchScan ${sourceName}`;
  }

  execute(_rows: Row[], ctx: OperatorContext): Row[] {
    const rows = ctx.inputs?.get(this.sourceName);
    if (!rows) throw new Error(`Internal: no input rows for source "${this.sourceName}" in this batch`);
    return rows;
  }
}

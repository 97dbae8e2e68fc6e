/**
 * A stateful operator above a stream-stream join reads the watermark its input is bounded by,
 * not the global one (Spark's watermark propagation for several stateful operators). A join
 * emits a buffered row when its match arrives, long after the row's event time: its output
 * watermark is the least of its input watermark and each side's state watermark
 * (produceOutputWatermark), so the operator above it sees the global watermark moved back by
 * that much (`deltaMs` ≤ 0), for late rows, eviction and whether a no-data batch is worth it.
 * Without it a windowed count over a join would close a window before the join's last match
 * for it came out, and drop that match as late. It wraps an operator that runs nothing inside
 * it (an aggregation, a deduplication); a join above a join shifts its own reading (its sides
 * must see theirs).
 */
import type { Row } from '../types';
import type { OperatorContext, StatefulOperator, StateOperatorProgress } from './physical-operator';

export class InputWatermarkExec implements StatefulOperator {
  readonly stateful = true as const;

  constructor(
    private readonly op: StatefulOperator,
    readonly deltaMs: number,
  ) {}

  get name(): string { return this.op.name; }
  get outputSchema() { return this.op.outputSchema; }
  get operatorId(): number { return this.op.operatorId; }
  get numPartitions(): number | undefined { return this.op.numPartitions; }
  get storeNames(): readonly string[] | undefined { return this.op.storeNames; }

  async execute(rows: Row[], ctx: OperatorContext): Promise<Row[]> {
    // The context is the batch's, shared with the operators around this one: shifted only while
    // this operator reads it.
    const global = ctx.batchWatermarkMs;
    const late = ctx.lateEventsWatermarkMs;
    ctx.batchWatermarkMs = global + this.deltaMs;
    if (late !== undefined) ctx.lateEventsWatermarkMs = late + this.deltaMs;
    try {
      return await this.op.execute(rows, ctx);
    } finally {
      ctx.batchWatermarkMs = global;
      ctx.lateEventsWatermarkMs = late;
    }
  }

  shouldRunAnotherBatch(newWatermarkMs: number): boolean {
    return this.op.shouldRunAnotherBatch?.(newWatermarkMs + this.deltaMs) ?? false;
  }

  onCommitted(version: number): void { this.op.onCommitted(version); }
  onAborted(): void { this.op.onAborted(); }
  progress(): StateOperatorProgress { return this.op.progress(); }
}

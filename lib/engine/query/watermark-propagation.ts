/**
 * Spark's watermark propagation for a query with several stateful operators
 * (PropagateWatermarkSimulator): each operator reads the watermark its input is bounded by. A
 * stream-stream join's output watermark is the least of its input watermark and each side's
 * state watermark (produceOutputWatermark: it may still emit a buffered row that old); every
 * other operator passes its input's on, and an operator's input watermark is the least of its
 * children's. Weir has one global watermark per batch, so each is a delta to it (ms, ≤ 0).
 */
import { children, isStreamStreamJoin, type LogicalPlan } from './logical-plan';
import { readStreamJoin } from './stream-join-planner';

export function inputWatermarkDelta(plan: LogicalPlan): number {
  return children(plan).reduce((d, c) => Math.min(d, outputWatermarkDelta(c)), 0);
}

function outputWatermarkDelta(plan: LogicalPlan): number {
  const input = inputWatermarkDelta(plan);
  if (plan.kind !== 'Join' || !isStreamStreamJoin(plan)) return input;
  const offsets = Object.values(readStreamJoin(plan).stateWatermarks);
  // A watermark is whole milliseconds (Spark's micros / 1000): a bound's microseconds round it
  // down, which holds rows longer, never shorter.
  return input + Math.floor(Math.min(0, ...offsets));
}

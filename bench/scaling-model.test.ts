/**
 * The scaling model's arithmetic (bench/scaling-model.ts): list scheduling, and a batch's time as
 * the sum of the driver, the two stages' latencies and their makespans.
 */
import { describe, expect, it } from 'vitest';
import { makespan, simulateBatch, type MeasuredCosts } from './scaling-model';

describe('makespan', () => {
  it('is the sum on one worker and the longest task with a worker each', () => {
    expect(makespan([3, 1, 2], 1)).toBe(6);
    expect(makespan([3, 1, 2], 3)).toBe(3);
    expect(makespan([3, 1, 2], 16)).toBe(3);
    expect(makespan([], 4)).toBe(0);
  });
  it('places the longest first on the least loaded worker', () => {
    // Longest first: 5 | 4, then 3 → the 4, 3 → the 5: loads 8 and 7.
    expect(makespan([3, 3, 4, 5], 2)).toBe(8);
    expect(makespan([2, 2, 2, 2, 2], 2)).toBe(6);
  });
});

describe('simulateBatch', () => {
  const costs: MeasuredCosts = { driverMs: 10, mapTaskMsPerEvent: 0.004, mapStageLatencyMs: 40, reduceTaskMs: 12, reduceStageLatencyMs: 30, localMsPerEvent: 0.0036 };

  it('adds the driver, both latencies and both makespans', () => {
    const b = simulateBatch(costs, { workers: 2, eventsPerBatch: 50_000 });
    // Two map tasks of 25,000 events (100 ms) on two workers; two reduce tasks of 12 ms.
    expect(b.batchMs).toBeCloseTo(10 + 40 + 100 + 30 + 12);
    expect(b.localMs).toBeCloseTo(180);
    expect(b.speedup).toBeCloseTo(180 / 192);
  });

  it('stops gaining once the fixed costs dominate a fixed batch, and scales when the batch grows with the workers', () => {
    const fixed = [1, 2, 4, 8, 16].map((w) => simulateBatch(costs, { workers: w, eventsPerBatch: 50_000 }).speedup);
    for (let i = 1; i < fixed.length; i++) expect(fixed[i]).toBeGreaterThan(fixed[i - 1]);
    // The floor: driver + latencies + one reduce task, whatever the workers.
    expect(fixed[4]).toBeLessThan(180 / (10 + 40 + 30 + 12));
    const grown = simulateBatch(costs, { workers: 16, eventsPerBatch: 16 * 25_000 });
    expect(grown.speedup).toBeGreaterThan(fixed[4]);
    expect(grown.eventsPerSecond).toBeGreaterThan(simulateBatch(costs, { workers: 2, eventsPerBatch: 2 * 25_000 }).eventsPerSecond * 4);
  });

  it('with more splits than workers, a worker runs several map tasks in turn', () => {
    const b = simulateBatch(costs, { workers: 2, eventsPerBatch: 40_000, splits: 4, partitions: 2 });
    expect(b.batchMs).toBeCloseTo(10 + 40 + 2 * 40 + 30 + 12);
  });
});

/**
 * Spark's partial aggregation, checked against the row fold: for every function isMergeable says
 * merges, folding a state's rows and then a batch's rows one by one gives exactly (Object.is on
 * every number, so -0, NaN and bigint against number count) what folding the batch cut into
 * splits, each from init(), and merging the splits' buffers into the state in order gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '@/lib/testing/property-runs';
import { isMergeable, merge, resolveAggregate, update, type AggregateArg } from './aggregate-functions';
import { toLong } from './long';

const long = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(toLong), fc.constantFrom(toLong(2n ** 63n - 1n), toLong(-(2n ** 63n))));
const double = fc.oneof(fc.double(), fc.constantFrom(0, -0, NaN, Infinity));
const decimal = fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n });

/** count_min_sketch's eps, confidence and seed literals (a 3 by 4 sketch). */
const sketchOptions: AggregateArg[] = [
  { type: 'double', literal: { value: 0.5 } }, { type: 'double', literal: { value: 0.8 } }, { type: 'long', integral: 32, literal: { value: 7 } },
];

const CASES: { call: string; args: AggregateArg[]; value: fc.Arbitrary<unknown> }[] = [
  { call: 'count', args: [{ type: 'long' }], value: long },
  { call: 'count_if', args: [{ type: 'boolean' }], value: fc.boolean() },
  { call: 'sum', args: [{ type: 'long' }], value: long },
  { call: 'sum', args: [{ type: 'decimal', decimal: { precision: 12, scale: 2 } }], value: decimal },
  { call: 'avg', args: [{ type: 'decimal', decimal: { precision: 12, scale: 2 } }], value: decimal },
  { call: 'min', args: [{ type: 'double' }], value: double },
  { call: 'max', args: [{ type: 'double' }], value: double },
  { call: 'min', args: [{ type: 'string' }], value: fc.string({ maxLength: 2 }) },
  { call: 'max', args: [{ type: 'long' }], value: long },
  { call: 'bool_and', args: [{ type: 'boolean' }], value: fc.boolean() },
  { call: 'bool_or', args: [{ type: 'boolean' }], value: fc.boolean() },
  { call: 'bit_and', args: [{ type: 'long' }], value: long },
  { call: 'bit_or', args: [{ type: 'long' }], value: long },
  { call: 'bit_xor', args: [{ type: 'long' }], value: long },
  { call: 'first', args: [{ type: 'double' }], value: double },
  { call: 'last', args: [{ type: 'double' }], value: double },
  { call: 'first', args: [{ type: 'double' }, { type: 'boolean', literal: { value: true } }], value: double },
  { call: 'last', args: [{ type: 'double' }, { type: 'boolean', literal: { value: true } }], value: double },
  { call: 'bitmap_construct_agg', args: [{ type: 'long' }], value: fc.integer({ min: 0, max: 32767 }) },
  { call: 'bitmap_or_agg', args: [{ type: 'binary' }], value: fc.uint8Array({ maxLength: 4100 }) },
  { call: 'count_min_sketch', args: [{ type: 'long' }, ...sketchOptions], value: long },
  { call: 'count_min_sketch', args: [{ type: 'string' }, ...sketchOptions], value: fc.string({ maxLength: 4 }) },
];

describe('merging partial buffers gives the row fold of every row, in order', () => {
  for (const c of CASES) {
    it(`${c.call}(${c.args.map((a) => a.type).join(', ')})`, () => {
      const fn = resolveAggregate({ name: c.call, args: c.args, star: false, distinct: false }, c.call);
      expect(isMergeable(fn)).toBe(true);
      const values = fc.array(fc.option(c.value, { freq: 4 }), { maxLength: 12 });
      fc.assert(
        fc.property(values, fc.array(values, { maxLength: 4 }), (state, splits) => {
          const fold = (b: unknown, vs: unknown[]) => vs.reduce((acc, v) => update(fn.op, acc, v), b);
          const sequential = fold(fold(fn.init(), state), splits.flat());
          const merged = splits.reduce((acc, split) => merge(fn.op, acc, fold(fn.init(), split)), fold(fn.init(), state));
          expect(fn.result(merged)).toEqual(fn.result(sequential));
        }),
        { numRuns: propertyRuns(200, 1000) },
      );
    });
  }

  it('sum and avg of doubles, avg of a BIGINT, the try_ and interval sums and the HLL sketches do not merge', () => {
    const resolve = (name: string, arg: AggregateArg) => resolveAggregate({ name, args: [arg], star: false, distinct: false }, name);
    for (const fn of [resolve('sum', { type: 'double' }), resolve('avg', { type: 'double' }), resolve('avg', { type: 'long' }), resolve('try_sum', { type: 'long' }), resolve('sum', { type: 'day_time_interval' }), resolve('collect_list', { type: 'long' }), resolve('hll_sketch_agg', { type: 'long' }), resolve('hll_union_agg', { type: 'binary' })]) {
      expect(isMergeable(fn)).toBe(false);
    }
  });
});

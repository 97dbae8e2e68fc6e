/**
 * The join's key table against a Map: whatever adds, lookups and removals of number keys (small,
 * large, fractional, -0, NaN, colliding in the table's slots) and string keys, it finds exactly
 * the entries a Map would, and lists them all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JoinKeyTable, type CacheKey } from './join-key-table';

const key: fc.Arbitrary<CacheKey> = fc.oneof(
  fc.integer({ min: 0, max: 1500 }),
  fc.integer({ min: 0, max: 40 }).map((n) => n * 1024),
  fc.constantFrom(-0, NaN, 0.5, -1.5, 2 ** 40, -(2 ** 53), Infinity),
  fc.double(),
  fc.string({ maxLength: 3 }),
);
const ops = fc.array(fc.record({ add: fc.boolean(), key }), { minLength: 1000, maxLength: 4000 });

describe('JoinKeyTable', () => {
  it('holds what a Map holds', () => {
    fc.assert(
      fc.property(ops, (os) => {
        const table = new JoinKeyTable<{ cacheKey: CacheKey }>();
        const model = new Map<CacheKey, { cacheKey: CacheKey }>();
        for (const o of os) {
          if (table.get(o.key) !== model.get(o.key)) expect(table.get(o.key)).toBe(model.get(o.key));
          if (o.add && !model.has(o.key)) {
            const e = { cacheKey: o.key };
            table.add(e);
            model.set(o.key, e);
          } else if (!o.add) {
            table.delete(o.key);
            model.delete(o.key);
          }
        }
        expect(table.size).toBe(model.size);
        for (const [k, e] of model) expect(table.get(k)).toBe(e);
        expect(new Set(table.values())).toEqual(new Set(model.values()));
      }),
      { numRuns: 40, seed: 4713 },
    );
  });
});

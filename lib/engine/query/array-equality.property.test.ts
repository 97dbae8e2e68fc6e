/**
 * The array functions that search or deduplicate agree with SQL's `=` (Spark's ordering.equiv):
 * over random arrays of doubles (NaN, -0.0 and 0.0 among them), of arrays of them and of structs
 * of them, with NULLs at every depth, array_contains, array_position, array_remove,
 * array_distinct and arrays_overlap answer what `=` between the elements says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { select } from './testing/spark-printed';

const DOUBLES = ['0.0D', '-0.0D', '1.0D', "CAST('NaN' AS DOUBLE)", 'CAST(NULL AS DOUBLE)'];

/** An element of one of three shapes, as SQL text: a DOUBLE, an ARRAY<DOUBLE>, a STRUCT<a: DOUBLE>. */
const element = (shape: number): fc.Arbitrary<string> => {
  const d = fc.constantFrom(...DOUBLES);
  if (shape === 0) return d;
  const nullOf = shape === 1 ? 'CAST(NULL AS ARRAY<DOUBLE>)' : 'CAST(NULL AS STRUCT<a: DOUBLE>)';
  const value = shape === 1 ? fc.array(d, { maxLength: 2 }).map((xs) => (xs.length ? `array(${xs.join(', ')})` : 'CAST(array() AS ARRAY<DOUBLE>)')) : d.map((x) => `named_struct('a', ${x})`);
  return fc.oneof({ weight: 1, arbitrary: fc.constant(nullOf) }, { weight: 5, arbitrary: value });
};

const arrayOf = (xs: string[], shape: number) => (xs.length ? `array(${xs.join(', ')})` : `CAST(array() AS ARRAY<${['DOUBLE', 'ARRAY<DOUBLE>', 'STRUCT<a: DOUBLE>'][shape]}>)`);

const cases = fc.integer({ min: 0, max: 2 }).chain((shape) =>
  fc.record({ shape: fc.constant(shape), a: fc.array(element(shape), { maxLength: 4 }), b: fc.array(element(shape), { maxLength: 3 }), v: element(shape) }),
);

describe('the array functions agree with SQL equality', () => {
  it('array_contains, array_position, array_remove, array_distinct and arrays_overlap', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ shape, a, b, v }) => {
        const [A, B] = [arrayOf(a, shape), arrayOf(b, shape)];
        const { row } = await select([
          `transform(${A}, x -> x = ${v}) AS eqV`,
          `transform(${A}, x -> transform(${B}, y -> x = y)) AS eqB`,
          `transform(${A}, x -> transform(${A}, y -> x = y)) AS eqA`,
          `array_contains(${A}, ${v}) AS contains`,
          `array_position(${A}, ${v}) AS position`,
          `size(array_remove(${A}, ${v})) AS kept`,
          `size(array_distinct(${A})) AS distinct`,
          `arrays_overlap(${A}, ${B}) AS overlap`,
        ].join(', '));
        const eqV = row.eqV as (boolean | null)[];
        const eqB = row.eqB as (boolean | null)[][];
        const eqA = row.eqA as (boolean | null)[][];
        if (row.contains === null) return; // v is NULL, or no match beside a NULL element
        const first = eqV.indexOf(true);
        expect(row.contains).toBe(first >= 0);
        expect(row.position).toBe(first + 1);
        expect(row.kept).toBe(eqV.filter((e) => e !== true).length);
        // A class of `=`-equal elements is kept once, as is one NULL.
        const nulls = a.map((_, i) => eqA[i][i] === null);
        const firstOfClass = a.filter((_, i) => (nulls[i] ? nulls.indexOf(true) === i : !eqA[i].slice(0, i).some((e) => e === true)));
        expect(row.distinct).toBe(firstOfClass.length);
        if (eqB.some((r) => r.includes(true))) expect(row.overlap).toBe(true);
        else expect(row.overlap).not.toBe(true);
      }),
      { numRuns: 150, seed: 20261205 },
    );
  });
});

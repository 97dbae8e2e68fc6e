/**
 * The SQL size and depth limits (sql-parser.ts): over a limit is a SqlValidationError with a
 * position, never a RangeError; within the limits every shape of expression compiles and
 * evaluates; and the count never undershoots what the parser sees as operators.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { SqlValidationError } from './sql-error';
import { checkSqlLimits, MAX_SQL_BYTES, MAX_SQL_NESTING, MAX_SQL_OPERATORS } from './sql-limits';
import { compileStreamingQuery } from './streaming-query';
import { propertyRuns } from '@/lib/testing/property-runs';

const SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 's', type: 'string' },
  { name: 'b', type: 'boolean' },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

async function run(sql: string): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel);
  let out: Row[] = [{ id: 2, s: 'a', b: true }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out;
}

function refusal(sql: string): SqlValidationError {
  try {
    compileStreamingQuery(sql, rel);
  } catch (e) {
    expect(e).toBeInstanceOf(SqlValidationError);
    return e as SqlValidationError;
  }
  throw new Error('expected a refusal');
}

/** Chains of `n` operators, one per shape that recurses once per operator somewhere. */
const SHAPES: Record<string, (n: number) => string> = {
  plus: (n) => `SELECT ${Array.from({ length: n + 1 }, () => 'id').join(' + ')} AS x FROM src`,
  or: (n) => `SELECT id FROM src WHERE ${Array.from({ length: n + 1 }, () => 'b').join(' OR ')}`,
  and: (n) => `SELECT id FROM src WHERE ${Array.from({ length: n + 1 }, () => 'b').join(' AND ')}`,
  concat: (n) => `SELECT ${Array.from({ length: n / 2 + 1 }, () => 's').join(' || ')} AS x FROM src`,
  not: (n) => `SELECT id FROM src WHERE ${'NOT '.repeat(n)}b`,
  minus: (n) => `SELECT ${'- '.repeat(n)}id AS x FROM src`,
  case: (n) => `SELECT ${'CASE WHEN b THEN 1 ELSE '.repeat(n / 2)}0${' END'.repeat(n / 2)} AS x FROM src`,
};

describe('SQL limits', () => {
  it.each(Object.keys(SHAPES))('%s: at the operator limit it compiles and runs; one past it is refused with a position', async (shape) => {
    const at = SHAPES[shape](MAX_SQL_OPERATORS);
    expect(() => checkSqlLimits(at)).not.toThrow();
    expect(await run(at)).toHaveLength(1);
    const over = refusal(SHAPES[shape](MAX_SQL_OPERATORS + 2));
    expect(over.message).toMatch(/more than 256 operators/);
    expect(over.line).toBe(1);
    expect(over.column).toBeGreaterThan(1);
  });

  it('the reproductions: a 60,000-term OR and a 5,000-term + are refused in about no time', () => {
    expect(refusal(`SELECT id FROM src WHERE ${Array.from({ length: 60_000 }, (_, i) => `id = ${i}`).join(' OR ')}`).message).toMatch(/operators/);
    expect(refusal(`SELECT ${Array.from({ length: 5_000 }, () => 'id').join(' + ')} AS x FROM src`).message).toMatch(/operators/);
  });

  it('nesting: 64 levels of brackets and function calls run, 65 are refused at the 65th bracket', async () => {
    expect(await run(`SELECT ${'abs('.repeat(MAX_SQL_NESTING)}id${')'.repeat(MAX_SQL_NESTING)} AS x FROM src`)).toEqual([{ x: 2 }]);
    const e = refusal(`SELECT ${'('.repeat(MAX_SQL_NESTING + 1)}id${')'.repeat(MAX_SQL_NESTING + 1)} AS x FROM src`);
    expect(e.message).toMatch(/nest more than 64/);
    expect(e.column).toBe('SELECT '.length + MAX_SQL_NESTING + 1);
  });

  it('size counts UTF-8 bytes: 64 KiB of ASCII passes, the same number of two-byte characters does not', () => {
    const pad = (ch: string, total: number) => `SELECT '${ch.repeat(total)}' AS x FROM src`;
    expect(() => checkSqlLimits(pad('x', MAX_SQL_BYTES - 30))).not.toThrow();
    expect(() => checkSqlLimits(pad('é', MAX_SQL_BYTES / 2))).toThrow(/longer than 65536 bytes/);
    expect(() => checkSqlLimits(pad('😀', MAX_SQL_BYTES / 4))).toThrow(/longer than 65536 bytes/);
    expect(() => checkSqlLimits(pad('😀', MAX_SQL_BYTES / 4 - 10))).not.toThrow();
  });

  it('property: any mix of operators, brackets and CASEs is either refused by the limits or compiles; never a RangeError', () => {
    const atom = fc.constantFrom('id', 's', 'b', '1', "'x'", 'abs(id)');
    const op = fc.constantFrom(' + ', ' - ', ' * ', ' || ', ' AND ', ' OR ', ' = ', ' < ', ' >= ');
    const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
      e: fc.oneof(
        { depthSize: 'medium', maxDepth: 40 },
        atom,
        fc.tuple(tie('e'), op, tie('e')).map(([a, o, b]) => `${a}${o}${b}`),
        tie('e').map((a) => `(${a})`),
        tie('e').map((a) => `NOT ${a}`),
        fc.tuple(tie('e'), tie('e')).map(([a, b]) => `CASE WHEN ${a} THEN ${b} END`),
        fc.tuple(atom, fc.integer({ min: 50, max: 400 })).map(([a, n]) => Array.from({ length: n }, () => a).join(' + ')),
      ),
    })).e.filter((e) => e.length < 70_000);
    fc.assert(
      fc.property(expr, (e) => {
        try {
          compileStreamingQuery(`SELECT ${e} AS x FROM src`, rel);
        } catch (err) {
          expect(err).not.toBeInstanceOf(RangeError);
          if (!(err instanceof SqlValidationError)) expect((err as Error).constructor.name).toMatch(/Error|Exception/);
        }
      }),
      { numRuns: propertyRuns(50, 200) },
    );
  });
});

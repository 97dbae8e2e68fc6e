/**
 * [NOT] EXISTS and [NOT] IN subqueries in an outer, semi or anti join's ON condition, each reading
 * one side (Spark's RewritePredicateSubquery makes it an existence join of that side), checked
 * against DuckDB over the same random rows with NULLs. DuckDB refuses a subquery in a non-inner
 * join's condition, so its answer is the join written out from inner joins, where it takes one:
 * a LEFT JOIN is the inner join's pairs and the left rows that no right row pairs with (NOT
 * EXISTS of such a row), a FULL JOIN those and the right's unpaired rows, a LEFT SEMI (ANTI) join
 * the left rows that some (no) right row pairs with.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '@/lib/testing/property-runs';
import { useDuckDB } from './testing/duckdb';
import { weirAnswer } from './testing/spark-golden-file';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import type { StreamingRelation } from './logical-plan';

const duck = useDuckDB();

type Rows = (number | null)[][];
const value = fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 4 });
const rows = fc.array(fc.tuple(value, value), { minLength: 1, maxLength: 5 });

const literal = (v: number | null) => (v === null ? 'NULL' : String(v));
const values = (r: Rows) => r.map((row) => `(${row.map((v) => `CAST(${literal(v)} AS INT)`).join(', ')})`).join(', ');

/** Each predicate reads the left side x or the right side y (and z). */
const PREDICATES = [
  'EXISTS (SELECT * FROM z WHERE z2 = x2)',
  'NOT EXISTS (SELECT * FROM z WHERE z2 = y2)',
  'x2 IN (SELECT z1 FROM z WHERE z2 = x1)',
  'y2 NOT IN (SELECT z1 FROM z WHERE z2 = y1)',
  'x2 NOT IN (SELECT z1 FROM z)',
];
const CONDITIONS = PREDICATES.flatMap((p) => [`x1 = y1 AND ${p}`, `x1 = y1 OR ${p}`]);

/** The join of x and y on `on` in DuckDB, written from inner joins and subqueries in WHERE. */
function duckJoin(type: string, on: string): string {
  const pairs = `SELECT x1, x2, y1, y2 FROM x JOIN y ON ${on}`;
  const leftOnly = `SELECT x1, x2, NULL, NULL FROM x WHERE NOT EXISTS (SELECT 1 FROM y WHERE ${on})`;
  const rightOnly = `SELECT NULL, NULL, y1, y2 FROM y WHERE NOT EXISTS (SELECT 1 FROM x WHERE ${on})`;
  switch (type) {
    case 'LEFT': return `${pairs} UNION ALL ${leftOnly}`;
    case 'RIGHT': return `${pairs} UNION ALL ${rightOnly}`;
    case 'FULL': return `${pairs} UNION ALL ${leftOnly} UNION ALL ${rightOnly}`;
    case 'LEFT SEMI': return `SELECT x1, x2 FROM x WHERE EXISTS (SELECT 1 FROM y WHERE ${on})`;
    default: return `SELECT x1, x2 FROM x WHERE NOT EXISTS (SELECT 1 FROM y WHERE ${on})`;
  }
}

async function duckRows(sql: string, tables: Record<string, Rows>): Promise<string> {
  const c = duck();
  for (const [name, r] of Object.entries(tables)) {
    await c.run(`CREATE OR REPLACE TABLE ${name} AS SELECT * FROM (VALUES ${values(r)}) t(${name}1, ${name}2)`);
  }
  const text = (v: unknown) => (v === null ? 'NULL' : String(v));
  return ((await c.runAndReadAll(sql)).getRowsJson() as unknown[][]).map((r) => r.map(text).join('\t')).sort().join('\n');
}

describe('a predicate subquery in a join condition', () => {
  it('of an outer, semi or anti join keeps the pairs DuckDB\'s inner joins do', async () => {
    const type = fc.constantFrom('LEFT', 'RIGHT', 'FULL', 'LEFT SEMI', 'LEFT ANTI');
    await fc.assert(
      fc.asyncProperty(type, fc.constantFrom(...CONDITIONS), rows, rows, rows, async (t, on, x, y, z) => {
        const views = Object.entries({ x, y, z }).map(([name, r]) => ({ name, sql: `SELECT * FROM VALUES ${values(r)} AS ${name}(${name}1, ${name}2)` }));
        const weir = await weirAnswer(`SELECT * FROM x ${t} JOIN y ON ${on}`, views);
        expect(weir.output).toBe(await duckRows(duckJoin(t, on), { x, y, z }));
      }),
      { numRuns: propertyRuns(15, 500) },
    );
  });

  it.each(['LEFT JOIN', 'JOIN'])('reading both sides of a %s is refused, as Spark refuses it', async (join) => {
    const views = ['x', 'y', 'z'].map((name) => ({ name, sql: `SELECT * FROM VALUES (1, 2) AS ${name}(${name}1, ${name}2)` }));
    const answer = await weirAnswer(`SELECT * FROM x ${join} y ON x1 = y1 AND EXISTS (SELECT * FROM z WHERE z2 = x2 AND z2 = y2)`, views);
    expect(answer.output).toBe('error UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_EXPRESSION_IN_JOIN_CONDITION');
    // Reading one side, or in WHERE over the join, it is answered.
    expect((await weirAnswer(`SELECT * FROM x ${join} y ON x1 = y1 AND EXISTS (SELECT * FROM z WHERE z2 = x2)`, views)).output).toBe('1\t2\t1\t2');
    expect((await weirAnswer(`SELECT * FROM x ${join} y ON x1 = y1 WHERE EXISTS (SELECT * FROM z WHERE z2 = x2 AND z2 = y2)`, views)).output).toBe('1\t2\t1\t2');
  });

  it('of a stream\'s LEFT JOIN with a static table reads either side', async () => {
    // A stream events (k: 1, 2, 3, NULL) and a static table dept (k: 1, 1, 3), in Append mode.
    const rel: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 'k', type: 'long', nullable: true }], watermarkDelayMs: 0 };
    const path = join(mkdtempSync(join(tmpdir(), 'weir-join-subquery-')), 'dept.json');
    writeFileSync(path, '{"k": 1}\n{"k": 1}\n{"k": 3}\n');
    const spec = { name: 'dept', type: 'file' as const, path, schema: [{ name: 'k', type: 'long' as const, nullable: true }] };
    const run = async (on: string) => {
      const sql = `SELECT events.k, d.k AS dk FROM events LEFT JOIN dept d ON ${on}`;
      const runner = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'append', {}, { staticTables: [spec] });
      return (await runner.runBatch([{ k: 1 }, { k: 2 }, { k: 3 }, { k: null }])).output.map((r) => `${r.k} ${r.dk}`).sort();
    };
    expect(await run('events.k = d.k AND NOT EXISTS (SELECT 1 FROM dept e WHERE e.k = events.k + 2)')).toEqual(['1 null', '2 null', '3 3', 'null null']);
    expect(await run('events.k = d.k AND EXISTS (SELECT 1 FROM dept e WHERE e.k = d.k + 2)')).toEqual(['1 1', '1 1', '2 null', '3 null', 'null null']);
  });
});

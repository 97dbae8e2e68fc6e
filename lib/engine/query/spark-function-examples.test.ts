/**
 * The measurement of Weir's function library against Spark's own: every example of Spark's
 * function reference (testing/spark-function-examples.ts) runs end to end (SQL text → plan →
 * operators), its answer printed as Spark's spark-sql shell prints it, and compared with what
 * Spark printed. An example Weir answers differently is listed, with the reason, in
 * SPARK_EXAMPLE_DIFFERENCES: the test fails on any other difference (a regression) and on a
 * listed one that now agrees (so the list, and docs/sql.md, stay true).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { Field, Row, Schema } from '../types';
import { FUNCTION_REGISTRY } from './function-registry';
import { SPARK_EXAMPLE_DIFFERENCES, SPARK_FUNCTION_EXAMPLES } from './testing/spark-function-examples';
import { printed, select } from './testing/spark-printed';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

interface Example { group: string; query: string; printed: string }

/** The function an example is of: the outermost call (`SELECT sum(col) FROM …` is of sum). */
const functionOf = (query: string): string => /^SELECT\s+([A-Za-z_0-9]+)/.exec(query)?.[1]?.toLowerCase() ?? '';

/** The examples, in file order. */
export function sparkExamples(): Example[] {
  const out: Example[] = [];
  let group = '';
  for (const line of SPARK_FUNCTION_EXAMPLES.split('\n')) {
    if (line.startsWith('# ')) group = line.slice(2).trim();
    else if (line.trim() !== '') {
      const at = line.lastIndexOf(' => ');
      const printed = line.slice(at + 4);
      out.push({ group, query: line.slice(0, at), printed: printed.startsWith('⟨') && printed.endsWith('⟩') ? printed.slice(1, -1) : printed });
    }
  }
  return out;
}

/** Splits at the commas outside parentheses and quotes. */
function topLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0, quote = '', start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) { if (c === '\\') i++; else if (c === quote) quote = ''; } else if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) { parts.push(s.slice(start, i).trim()); start = i + 1; }
  }
  parts.push(s.slice(start).trim());
  return parts;
}

/** What Weir prints for one of Spark's example queries (or its error). */
async function weirPrints(query: string): Promise<string> {
  const sql = query.replace(/^SELECT /, '');
  try {
    const values = /^(.*) FROM VALUES (.*) AS tab\((.*)\)$/i.exec(sql);
    if (!values) {
      const { row, schema } = await select(`${sql} AS v`);
      return printed(row.v, schema[0]);
    }
    // An aggregate over Spark's inline table: its rows as a stream's one batch.
    const [, agg, tuples, names] = values;
    const cols = names.split(',').map((n) => n.trim());
    const rows: Row[] = [];
    // Each column's type is its first non-NULL value's (a NULL literal alone would type it STRING).
    const typed: (Field | undefined)[] = cols.map(() => undefined);
    for (const t of topLevel(tuples)) {
      const r = await select(topLevel(t.slice(1, -1)).map((e, i) => `${e} AS ${cols[i]}`).join(', '));
      rows.push(r.row);
      cols.forEach((c, i) => { if (!typed[i] && r.row[c] !== null && r.row[c] !== undefined) typed[i] = r.schema[i]; });
    }
    const schema: Schema = cols.map((c, i) => ({ ...(typed[i] ?? { type: 'long' as const }), name: c, nullable: true }));
    const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema };
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), `SELECT ${agg} AS v FROM src`, rel, 'complete');
    const { output } = await q.runBatch(rows);
    return printed(output[0].v, q.outputSchema()[0]);
  } catch (e) {
    return `error: ${(e as Error).message.split('\n')[0].slice(0, 160)}`;
  }
}

describe("Spark's function reference examples", () => {
  // The examples of functions Weir registers (each statement form, CAST, POSITION … IN, is a call too).
  const all = sparkExamples();
  const examples = all.filter((e) => FUNCTION_REGISTRY.has(functionOf(e.query)) || ['cast', 'trim', 'overlay', 'position', 'extract'].includes(functionOf(e.query)));

  it('gives the result Spark prints for each, but for the differences listed with their reason', { timeout: 120_000 }, async () => {
    const unexpected: string[] = [];
    const nowAgreeing: string[] = [];
    let agree = 0;
    for (const ex of examples) {
      const got = await weirPrints(ex.query);
      const listed = Object.hasOwn(SPARK_EXAMPLE_DIFFERENCES, ex.query);
      if (got === ex.printed) {
        agree++;
        if (listed) nowAgreeing.push(ex.query);
      } else if (!listed) unexpected.push(`${ex.query}\n    Spark: ${ex.printed}\n    Weir:  ${got}`);
    }
    const share = agree / examples.length;
    const unregistered = [...new Set(all.filter((e) => !examples.includes(e)).map((e) => functionOf(e.query)))];
    console.log(`Spark's examples: ${agree} of ${examples.length} give Spark's result (${(share * 100).toFixed(1)}%); not registered: ${unregistered.join(', ')}`);
    expect(unexpected, 'examples that differ from Spark and are not listed').toEqual([]);
    expect(nowAgreeing, 'listed as differing, but now agree: take them off the list').toEqual([]);
    expect(share).toBeGreaterThanOrEqual(0.95);
  });

  it('lists each difference once, for an example that exists', () => {
    const queries = new Set(examples.map((e) => e.query));
    for (const q of Object.keys(SPARK_EXAMPLE_DIFFERENCES)) expect(queries, q).toContain(q);
    expect(queries.size).toBe(examples.length);
  });
});

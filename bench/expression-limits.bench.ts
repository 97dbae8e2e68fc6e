/**
 * The longest one record can hold the event loop through an expression: the worst LIKE, ILIKE
 * and rlike cases over a 1 MiB value (the largest an expression may build), the functions that
 * walk every regexp match from 10k characters to 1 MiB, and the string-growing functions up to
 * the 1 MiB limit and just over it (refused before building).
 * Each case is one evaluation of a compiled query over one row, the best of 3 (ms).
 *
 *   npm run bench -- expression-limits
 *   npx tsx bench/expression-limits.bench.ts   # prints the table alone
 */
import { compileStreamingQuery } from '../lib/engine/query/streaming-query';
import type { Row } from '../lib/engine/types';

const MiB = 1 << 20;
const relation = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 's', type: 'string' as const }, { name: 'n', type: 'long' as const }] };

interface Case {
  name: string;
  sql: string;
  row: Row;
}

const a1m = 'a'.repeat(MiB);
const CASES: Case[] = [
  { name: "LIKE '%a%a%a%a%a%a%b' over 1 MiB of a", sql: "SELECT s LIKE '%a%a%a%a%a%a%b' v FROM src", row: { s: a1m, n: 0 } },
  // _ mixed with text between two %: each occurrence of the first text run is checked (step budget).
  { name: "LIKE '%a_a_…(40)…b%' over 1 MiB of a", sql: `SELECT s LIKE '%${'a_'.repeat(40)}b%' v FROM src`, row: { s: a1m, n: 0 } },
  { name: "LIKE '%a_a_…(4000)…b%' over 1 MiB of a (over the step budget: bad record)", sql: `SELECT s LIKE '%${'a_'.repeat(4000)}b%' v FROM src`, row: { s: a1m, n: 0 } },
  { name: "LIKE '%' || 60 KiB of a || 'b%' over 1 MiB of a", sql: `SELECT s LIKE '%${'a'.repeat(60 * 1024)}b%' v FROM src`, row: { s: a1m, n: 0 } },
  { name: "ILIKE '%A%A%A%A%A%A%B' over 1 MiB of a", sql: "SELECT s ILIKE '%A%A%A%A%A%A%B' v FROM src", row: { s: a1m, n: 0 } },
  { name: "rlike '(a*)*b' over 1 MiB of a", sql: "SELECT rlike(s, '(a*)*b') v FROM src", row: { s: a1m, n: 0 } },
  { name: "rlike '(x+x+)+y|a{1000}b' over 1 MiB of a", sql: "SELECT rlike(s, '(x+x+)+y|a{1000}b') v FROM src", row: { s: a1m, n: 0 } },
  { name: "rlike '[ab]{1000}c' over 1 MiB of a", sql: "SELECT rlike(s, '[ab]{1000}c') v FROM src", row: { s: a1m, n: 0 } },
  { name: "rlike '[a-z]{1000}c|…' × 8 alternatives over 1 MiB of a", sql: `SELECT rlike(s, '${Array.from({ length: 8 }, (_, i) => `[a-z]{1000}${'cdefghij'[i]}`).join('|')}') v FROM src`, row: { s: a1m, n: 0 } },
  { name: "rlike '[a-z]{100}[a-z]{100}c' over 1 MiB of a (the largest counts allowed)", sql: "SELECT rlike(s, '[a-z]{100}[a-z]{100}c') v FROM src", row: { s: a1m, n: 0 } },
  { name: "rlike '(a|aa){100}c' over 1 MiB of a", sql: "SELECT rlike(s, '(a|aa){100}c') v FROM src", row: { s: a1m, n: 0 } },
  { name: 'regexp_extract(s, (a+)(b)?, 1) over 1 MiB of a', sql: "SELECT regexp_extract(s, '(a+)(b)?', 1) v FROM src", row: { s: a1m, n: 0 } },
  // The functions that walk every match: one record costs the value's length, not the value's
  // length per match (regex.ts). Before, 10k characters of a took 3.4 s and 40k 41 s.
  ...[10_000, 100_000, MiB].flatMap((n) => {
    const label = n === MiB ? '1 MiB' : `${n / 1000}k`;
    const s = 'a'.repeat(n);
    return [
      { name: `regexp_replace(s, 'a', 'b') over ${label} of a`, sql: "SELECT length(regexp_replace(s, 'a', 'b')) v FROM src", row: { s, n: 0 } },
      { name: `regexp_count(s, 'a') over ${label} of a`, sql: "SELECT regexp_count(s, 'a') v FROM src", row: { s, n: 0 } },
      { name: `regexp_extract_all(s, '(a)', 1) over ${label} of a`, sql: "SELECT size(regexp_extract_all(s, '(a)', 1)) v FROM src", row: { s, n: 0 } },
      { name: `split(s, '[a]') over ${label} of a`, sql: "SELECT size(split(s, '[a]')) v FROM src", row: { s, n: 0 } },
    ];
  }),
  { name: "regexp_replace(s, 'a', 100 b) over 1 MiB of a (over the limit: bad record)", sql: `SELECT regexp_replace(s, 'a', '${'b'.repeat(100)}') v FROM src`, row: { s: a1m, n: 0 } },
  { name: "regexp_replace(s, '.+', '$0' × 10,000) over 1 MiB of a (over the limit: bad record)", sql: `SELECT regexp_replace(s, '.+', '${'$0'.repeat(10_000)}') v FROM src`, row: { s: a1m, n: 0 } },
  // The largest program the repetition limits allow, with a match every 201 characters.
  { name: "regexp_count(s, '(?i)[a-z]{100}[a-z]{100}c') over 1 MiB of (a×200 c)", sql: "SELECT regexp_count(s, '(?i)[a-z]{100}[a-z]{100}c') v FROM src", row: { s: ('a'.repeat(200) + 'c').repeat(Math.floor(MiB / 201)), n: 0 } },
  { name: "regexp_count(s, '[a-z]{100}[a-z]{100}c') over 1 MiB of a", sql: "SELECT regexp_count(s, '[a-z]{100}[a-z]{100}c') v FROM src", row: { s: a1m, n: 0 } },
  { name: "regexp_count(s, '\\w+') over 1 MiB of 'ab '", sql: "SELECT regexp_count(s, '\\\\w+') v FROM src", row: { s: 'ab '.repeat(MiB / 3), n: 0 } },
  { name: 'lpad to the limit (1 MiB)', sql: "SELECT lpad(s, n, 'xy') v FROM src", row: { s: 'a', n: MiB } },
  { name: 'lpad to 2,000,000,000 (refused before building)', sql: "SELECT lpad(s, n, 'xy') v FROM src", row: { s: 'a', n: 2_000_000_000 } },
  { name: "replace 1 MiB of a, 'a' → 'aa' (refused before building)", sql: "SELECT replace(s, 'a', 'aa') v FROM src", row: { s: a1m, n: 0 } },
  { name: 'upper of 1 MiB', sql: 'SELECT upper(s) v FROM src', row: { s: a1m, n: 0 } },
  { name: 's || s of 512 KiB each (to the limit)', sql: 'SELECT s || s v FROM src', row: { s: 'a'.repeat(MiB / 2), n: 0 } },
];

async function once(c: Case): Promise<{ ms: number; outcome: string }> {
  let q: ReturnType<typeof compileStreamingQuery>;
  try {
    q = compileStreamingQuery(c.sql, relation);
  } catch (e) {
    return { ms: 0, outcome: `refused at validation: ${(e as Error).message.slice(0, 80)}` };
  }
  const t0 = performance.now();
  let outcome: string;
  try {
    let rows: Row[] = [c.row];
    for (const op of q.operators) rows = await op.execute(rows, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    const v = rows[0]?.v;
    outcome = typeof v === 'string' ? `${v.length} chars` : String(v);
  } catch (e) {
    outcome = `bad record (${(e as { code?: string }).code})`;
  }
  return { ms: performance.now() - t0, outcome };
}

export async function run(only?: string) {
  const results = [];
  for (const c of CASES.filter((x) => only === undefined || x.name.includes(only))) {
    let best = Infinity;
    let outcome = '';
    for (let i = 0; i < 3; i++) {
      const r = await once(c);
      best = Math.min(best, r.ms);
      outcome = r.outcome;
    }
    results.push({ name: `expression-limits: ${c.name}`, value: Math.round(best * 10) / 10, unit: 'ms', note: outcome });
  }
  return results;
}

if (process.argv[1]?.endsWith('expression-limits.bench.ts')) {
  for (const r of await run(process.argv[2])) console.log(`${String(r.value).padStart(9)} ms  ${r.name.replace('expression-limits: ', '')}  → ${r.note}`);
}

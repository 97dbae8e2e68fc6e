/**
 * A stream-static join whose key pairs are of two types: Spark reads both as their common type
 * (an INT beside a BIGINT as the BIGINT, decimals at the wider scale, a string beside a BIGINT as
 * a BIGINT), so equal values match whichever side holds them, and a NULL key matches nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { validateJob } from '../spec/validate-job';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const STREAM = [{ name: 'id', type: 'long' }, { name: 'k', type: 'long', integral: 32 }, { name: 'amt', type: 'decimal', precision: 10, scale: 2 }, { name: 's', type: 'string' }];
const TABLE = [{ name: 'code', type: 'long' }, { name: 'price', type: 'decimal', precision: 12, scale: 4 }, { name: 'label', type: 'string' }];
// price 1.5000 and 2.5001; codes 5 and 12, one NULL.
const LINES = ['{"code":5,"price":1.5,"label":"five"}', '{"code":12,"price":2.5001,"label":"twelve"}', '{"code":null,"price":null,"label":"none"}'];
// Stream amounts are DECIMAL(10,2) unscaled: 150 is 1.50, 250 is 2.50.
const ROWS = [
  { id: 1, k: 5, amt: 150n, s: '5' },
  { id: 2, k: 12, amt: 250n, s: '12' },
  { id: 3, k: 6, amt: 151n, s: 'five' },
  { id: 4, k: null, amt: null, s: null },
];

let n = 0;
async function run(sql: string) {
  const name = `ssjk-${process.pid}-${n++}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-join-keys-'));
  roots.push(dir);
  const file = path.join(dir, 'codes.json');
  await writeFile(file, LINES.join('\n') + '\n');
  const spec = {
    name,
    source: { name: 'events', type: 'memory', options: { stream: name }, schema: STREAM },
    staticTables: [{ name: 'codes', path: file, format: 'json', schema: TABLE }],
    sql,
    sink: { type: 'memory', options: { table: name } },
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(dir, 'cp'),
  };
  const q = new MicroBatchExecution({ spec: mustParse(spec), clock: new ManualClock(0) });
  MemoryStream.named(name).addData(...ROWS);
  await q.processAllAvailable();
  await q.stop();
  const rows = MemorySinkTable.named(name).rows.map((r) => `${String(r.id)}:${String(r.label)}`).sort();
  return { rows, explain: validateJob(spec).explain };
}

describe('stream-static join on keys of two types', () => {
  it('INT beside BIGINT: equal values match, the rest and NULL do not', async () => {
    const r = await run('SELECT e.id, c.label FROM events e LEFT JOIN codes c ON e.k = c.code');
    expect(r.rows).toEqual(['1:five', '2:twelve', '3:null', '4:null']);
    expect(r.explain).toMatch(/Join LeftOuter \(cast\(k as bigint\) = code\)/);
  });

  it('<=> is a key too (Spark\'s hash join takes EqualNullSafe), a NULL matching a NULL', async () => {
    const r = await run('SELECT e.id, c.label FROM events e LEFT JOIN codes c ON e.k <=> c.code');
    expect(r.rows).toEqual(['1:five', '2:twelve', '3:null', '4:none']);
    expect(r.explain).toMatch(/Join LeftOuter equal_null\(cast\(k as bigint\), code\)/);
  });

  it('DECIMAL(10,2) beside DECIMAL(12,4): 1.50 matches 1.5000, 2.50 not 2.5001', async () => {
    const r = await run('SELECT e.id, c.label FROM events e JOIN codes c ON e.amt = c.price');
    expect(r.rows).toEqual(['1:five']);
    expect(r.explain).toMatch(/cast\(amt as decimal\(12,4\)\) = price/);
  });

  it('STRING beside BIGINT: the string read as a BIGINT, text that is no number matches nothing', async () => {
    const r = await run('SELECT e.id, c.label FROM codes c JOIN events e ON c.code = e.s');
    expect(r.rows).toEqual(['1:five', '2:twelve']);
    expect(r.explain).toMatch(/cast\(s as bigint\) = code/);
  });

  it('refuses keys that do not compare, with Spark\'s error class', () => {
    const spec = { name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: [{ name: 'b', type: 'binary' }] }, staticTables: [{ name: 'codes', path: '/nonexistent.json', format: 'json', schema: TABLE }], sql: 'SELECT * FROM events e JOIN codes c ON e.b = c.code', sink: { type: 'memory', options: { table: 'x' } } };
    expect(validateJob(spec).errors.map((e) => e.message).join('\n')).toContain('Cannot compare binary with long');
  });
});

describe('stream-static LEFT SEMI and LEFT ANTI joins (stream on the left, as Spark allows them)', () => {
  it('semi: each matched stream row once, with the stream columns only; anti: the others, a NULL key among them', async () => {
    const semi = await run('SELECT e.id, e.s AS label FROM events e LEFT SEMI JOIN codes c ON e.k = c.code');
    expect(semi.rows).toEqual(['1:5', '2:12']);
    expect(semi.explain).toMatch(/Join LeftSemi/);
    const anti = await run('SELECT * FROM events e LEFT ANTI JOIN codes c ON e.k = c.code');
    expect(anti.rows).toEqual(['3:undefined', '4:undefined']);
  });

  it('x IN (SELECT c FROM <static table>) in WHERE is that semi join (RewritePredicateSubquery), the rest of WHERE a filter', async () => {
    const r = await run('SELECT e.id, e.s AS label FROM events e WHERE e.id > 1 AND k IN (SELECT code FROM codes)');
    expect(r.rows).toEqual(['2:12']);
    expect(r.explain).toMatch(/Join LeftSemi \(cast\(k as bigint\) = code\)/);
  });

  it('refuses them with the stream on the right, with Spark\'s messages', () => {
    const refusal = (sql: string) => validateJob({ name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: STREAM }, staticTables: [{ name: 'codes', path: '/nonexistent.json', format: 'json', schema: TABLE }], sql, sink: { type: 'memory', options: { table: 'x' } } }).errors.map((e) => e.message).join('\n');
    expect(refusal('SELECT c.label FROM codes c LEFT SEMI JOIN events e ON e.k = c.code')).toContain('LeftSemi join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported');
    expect(refusal('SELECT c.label FROM codes c LEFT ANTI JOIN events e ON e.k = c.code')).toContain('LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported');
  });
});

describe('a subquery on the static side (Spark runs it as a batch plan, over the tables it reads)', () => {
  const refusal = (sql: string) => validateJob({ name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: STREAM }, staticTables: [{ name: 'codes', path: '/nonexistent.json', format: 'json', schema: TABLE }], sql, sink: { type: 'memory', options: { table: 'x' } } }).errors.map((e) => e.message).join('\n');

  it('selects and filters the table: the join reads the subquery\'s rows and columns', async () => {
    const r = await run("SELECT e.id, c.label FROM events e JOIN (SELECT code, upper(label) AS label FROM codes WHERE price > 2) c ON e.k = c.code");
    expect(r.rows).toEqual(['2:TWELVE']);
    expect(r.explain).toMatch(/StaticRelation c \[label\] \[static: the batch plan below.*\n.*Project \[code, upper\(label\) AS label\] \[batch\]\n.*Filter .*price.* \[batch\]\n.*StaticRelation codes \[code, price, label\] \(.*codes\.json\)/);
  });

  it('a CTE over the table, LEFT JOIN: unmatched stream rows padded with NULLs', async () => {
    const r = await run("WITH c AS (SELECT code, concat(label, '!') AS label FROM codes WHERE code IS NOT NULL) SELECT e.id, c.label FROM events e LEFT JOIN c ON e.k = c.code");
    expect(r.rows).toEqual(['1:five!', '2:twelve!', '3:null', '4:null']);
  });

  it('x IN (SELECT c FROM <static table> WHERE …) is the semi join with that subquery', async () => {
    const r = await run("SELECT e.id, e.s AS label FROM events e WHERE k IN (SELECT code FROM codes WHERE label = 'twelve')");
    expect(r.rows).toEqual(['2:12']);
    expect(r.explain).toMatch(/Join LeftSemi/);
  });

  it('refuses a static table read where a stream must be', () => {
    expect(refusal('WITH c AS (SELECT * FROM codes) SELECT * FROM c')).toContain('A streaming query needs FROM events');
    expect(refusal('WITH c AS (SELECT code FROM codes) SELECT id FROM events UNION ALL SELECT code FROM c')).toContain('Union between streaming and batch DataFrames/Datasets is not supported');
    expect(refusal('SELECT * FROM codes')).toContain('codes is a static table, which a streaming query reads by joining it with a stream');
  });
});

describe("ON conditions beside the keys (Spark's hash join checks them on each pair)", () => {
  it('inner: a condition on the static row drops the pairs that fail it', async () => {
    const r = await run('SELECT e.id, c.label FROM events e JOIN codes c ON e.k = c.code AND c.price > 2');
    expect(r.rows).toEqual(['2:twelve']);
    expect(r.explain).toMatch(/Join Inner \(.*code.* AND \(price > .*\)\)/);
  });

  it('left: a stream row whose pairs all fail it is padded with NULLs, not dropped', async () => {
    const r = await run('SELECT e.id, c.label FROM events e LEFT JOIN codes c ON e.k = c.code AND e.amt > 2');
    expect(r.rows).toEqual(['1:null', '2:twelve', '3:null', '4:null']);
  });

  it('semi and anti: a condition over both rows decides the match', async () => {
    const semi = await run('SELECT e.id, e.s AS label FROM events e LEFT SEMI JOIN codes c ON e.k = c.code AND e.amt < c.price');
    expect(semi.rows).toEqual(['2:12']);
    const anti = await run('SELECT e.id, e.s AS label FROM events e LEFT ANTI JOIN codes c ON e.k = c.code AND e.amt < c.price');
    expect(anti.rows).toEqual(['1:5', '3:five', '4:null']);
  });

  it('without a key equality, compares every pair as the condition reads them (a nested loop join)', async () => {
    // DECIMAL(10,2) < DECIMAL(12,4): 1.50, 2.50 and 1.51 are below 2.5001 only; a NULL matches nothing.
    const r = await run('SELECT e.id, c.label FROM events e JOIN codes c ON e.amt < c.price');
    expect(r.rows).toEqual(['1:twelve', '2:twelve', '3:twelve']);
  });
});

describe('keys that are expressions over one side (Spark hashes any key expression)', () => {
  it('an expression on the stream side, and on the static side', async () => {
    const r = await run('SELECT e.id, c.label FROM events e JOIN codes c ON e.id * 5 = c.code');
    expect(r.rows).toEqual(['1:five']);
    expect(r.explain).toMatch(/Join Inner \(\(id \* cast\(5 as bigint\)\) = code\)/);
    const s = await run('SELECT e.id, c.label FROM events e LEFT JOIN codes c ON upper(e.s) = upper(c.label)');
    expect(s.rows).toEqual(['1:null', '2:null', '3:five', '4:null']);
  });

  it('of two types: both read as their common type, as a column key', async () => {
    // e.k - 4 is an INT, c.price - 0.5 a DECIMAL: 5 - 4 = 1 equals 1.5000 - 0.5 = 1.0000; 8 is not 2.0001.
    const r = await run('SELECT e.id, c.label FROM events e JOIN codes c ON e.k - 4 = c.price - 0.5');
    expect(r.rows).toEqual(['1:five']);
  });
});

describe("NOT IN and [NOT] EXISTS over a static table (Spark's RewritePredicateSubquery)", () => {
  it('NOT IN is the null-aware anti join: a NULL in the list keeps no row, an empty list every row', async () => {
    // codes holds 5, 12 and a NULL code.
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE k NOT IN (SELECT code FROM codes)')).rows).toEqual([]);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE k NOT IN (SELECT code FROM codes WHERE code IS NOT NULL)')).rows).toEqual(['3:five']);
    const empty = await run('SELECT e.id, e.s AS label FROM events e WHERE k NOT IN (SELECT code FROM codes WHERE code > 100)');
    expect(empty.rows).toEqual(['1:5', '2:12', '3:five', '4:null']);
    expect(empty.explain).toMatch(/Join LeftAnti \(\(cast\(k as bigint\) = __in_value\) OR isnull\(\(cast\(k as bigint\) = __in_value\)\)\)/);
  });

  it('EXISTS is the semi join on the correlated condition, NOT EXISTS the anti join', async () => {
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT 1 FROM codes c WHERE c.code = e.k AND c.price > 2)')).rows).toEqual(['2:12']);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE e.id > 1 AND NOT EXISTS (SELECT * FROM codes WHERE code = k)')).rows).toEqual(['3:five', '4:null']);
  });

  it('EXISTS over a CTE of the static table is that semi join', async () => {
    const sql = 'WITH cheap AS (SELECT code FROM codes WHERE price < 2) SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT 1 FROM cheap WHERE cheap.code = e.k)';
    expect((await run(sql)).rows).toEqual(['1:5']);
  });

  it('EXISTS ignores its ORDER BY and DISTINCT, and a GROUP BY without HAVING has a row where its input has one', async () => {
    const sql = 'SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT DISTINCT max(c.price) FROM codes c WHERE c.code = e.k GROUP BY c.label ORDER BY c.label)';
    expect((await run(sql)).rows).toEqual(['1:5', '2:12']);
    expect((await run(sql.replace('WHERE EXISTS', 'WHERE NOT EXISTS'))).rows).toEqual(['3:five', '4:null']);
  });

  it('EXISTS of an aggregate without GROUP BY is true for every row: it has one row, whatever its input (the count bug)', async () => {
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT count(*) FROM codes c WHERE c.code = e.k)')).rows).toEqual(['1:5', '2:12', '3:five', '4:null']);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE NOT EXISTS (SELECT count(*) + 1 FROM codes c WHERE c.code = e.k)')).rows).toEqual([]);
    expect((await run('SELECT e.id, EXISTS (SELECT sum(c.price) FROM codes c WHERE c.code = e.k) AS label FROM events e')).rows).toEqual(['1:true', '2:true', '3:true', '4:true']);
  });

  it('EXISTS of LIMIT 0 is false, of another LIMIT its query\'s; an uncorrelated set operation is the semi join with its rows', async () => {
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT 1 FROM codes c WHERE c.code = e.k LIMIT 0)')).rows).toEqual([]);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT 1 FROM codes c WHERE c.code = e.k ORDER BY c.price DESC LIMIT 1)')).rows).toEqual(['1:5', '2:12']);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE e.id < 3 AND EXISTS (SELECT code FROM codes WHERE code > 10 LIMIT 1)')).rows).toEqual(['1:5', '2:12']);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE NOT EXISTS (SELECT code FROM codes WHERE code > 100 UNION SELECT code FROM codes WHERE code < 0)')).rows).toEqual(['1:5', '2:12', '3:five', '4:null']);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT code FROM codes INTERSECT SELECT code FROM codes WHERE code = 5)')).rows).toEqual(['1:5', '2:12', '3:five', '4:null']);
  });

  it('a subquery in an EXISTS subquery\'s WHERE filters its table first, the correlated conjuncts joining it', async () => {
    const sql = 'SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT 1 FROM codes c WHERE c.code = e.k AND EXISTS (SELECT 1 FROM codes d WHERE d.code = c.code AND d.price > 2))';
    expect((await run(sql)).rows).toEqual(['2:12']);
    expect((await run(sql.replace('WHERE EXISTS', 'WHERE NOT EXISTS'))).rows).toEqual(['1:5', '3:five', '4:null']);
  });

  it('EXISTS over a join of static tables is the semi join with that join, its WHERE read by table and column', async () => {
    const sql = 'SELECT e.id, e.s AS label FROM events e WHERE EXISTS (SELECT c.label FROM codes c JOIN codes d ON d.code = c.code WHERE c.code = e.k AND d.price > 2)';
    expect((await run(sql)).rows).toEqual(['2:12']);
    expect((await run(sql.replace('WHERE EXISTS', 'WHERE NOT EXISTS'))).rows).toEqual(['1:5', '3:five', '4:null']);
  });

  it('in the select list, EXISTS and IN are the counts of the rows that decide them (an existence join): true, false or NULL', async () => {
    // codes holds 5, 12 and a NULL code: 6 is NULL there (not found beside a NULL), a NULL k too.
    expect((await run('SELECT e.id, e.k IN (SELECT code FROM codes) AS label FROM events e')).rows).toEqual(['1:true', '2:true', '3:null', '4:null']);
    expect((await run('SELECT e.id, e.k NOT IN (SELECT code FROM codes WHERE code IS NOT NULL) AS label FROM events e')).rows).toEqual(['1:false', '2:false', '3:true', '4:null']);
    expect((await run('SELECT e.id, EXISTS (SELECT 1 FROM codes c WHERE c.code = e.k AND c.price > 2) AS label FROM events e')).rows).toEqual(['1:false', '2:true', '3:false', '4:false']);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE e.id = 4 OR EXISTS (SELECT 1 FROM codes c WHERE c.code = e.k)')).rows).toEqual(['1:5', '2:12', '4:null']);
  });

  it('a correlated scalar subquery without FROM is the stream row\'s value, NULL where its WHERE is not true', async () => {
    expect((await run('SELECT e.id, (SELECT e.s) AS label FROM events e')).rows).toEqual(['1:5', '2:12', '3:five', '4:null']);
    expect((await run('SELECT e.id, (SELECT upper(s) WHERE k > 5) AS label FROM events e')).rows).toEqual(['1:null', '2:12', '3:FIVE', '4:null']);
  });

  it('a correlated IN joins on the value and the WHERE; NOT IN keeps a row no WHERE pair compares equal or NULL', async () => {
    // Code 5 costs 1.5 (event 1's 1.50), code 12 costs 2.5001 (event 2's 2.50); event 3's k has no code, event 4's is NULL.
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE e.amt IN (SELECT c.price FROM codes c WHERE c.code = e.k)')).rows).toEqual(['1:5']);
    const notIn = await run('SELECT e.id, e.s AS label FROM events e WHERE e.amt NOT IN (SELECT c.price FROM codes c WHERE c.code = e.k)');
    expect(notIn.rows).toEqual(['2:12', '3:five', '4:null']);
    expect(notIn.explain).toMatch(/Join LeftAnti \(\(cast\(k as bigint\) = code\) AND .* OR .*= price\) IS NULL/);
  });

  it('(a, b) IN joins on each column pair; NOT IN drops a row some subquery row equals or leaves unknown on every pair', async () => {
    const inTable = await run('SELECT e.id, e.s AS label FROM events e WHERE (e.k, e.amt) IN (SELECT code, price FROM codes)');
    expect(inTable.rows).toEqual(['1:5']);
    // codes' (NULL, 'none') is unknown on k, but no event's s is 'none': it drops only event 4 (NULL, NULL).
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE (k, s) NOT IN (SELECT code, label FROM codes)')).rows).toEqual(['1:5', '2:12', '3:five']);
    const inline = await run("SELECT e.id, e.s AS label FROM events e WHERE (k, s) NOT IN (SELECT c, l FROM VALUES (6, 'five'), (NULL, '12') AS t(c, l))");
    expect(inline.rows).toEqual(['1:5']);
    expect((await run("SELECT e.id, e.s AS label FROM events e WHERE (k, s) NOT IN (SELECT * FROM VALUES (6, 'five') AS t(c, l))")).rows).toEqual(['1:5', '2:12']);
    expect(inline.explain).toMatch(/Join LeftAnti \(\(\(k = __in_value_0\) OR \(\(k = __in_value_0\) IS NULL\)\) AND \(\(s = __in_value_1\) OR \(\(s = __in_value_1\) IS NULL\)\)\)/);
  });

  it('(a, b) IN a subquery of another number of columns is DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH', async () => {
    await expect(run('SELECT e.id, e.s AS label FROM events e WHERE (k, s) IN (SELECT code FROM codes)')).rejects.toThrow(/^\[DATATYPE_MISMATCH\.IN_SUBQUERY_LENGTH_MISMATCH\] .*Left hand side columns\(length: 2\): \["k", "s"\], right hand side columns\(length: 1\): \["code"\]\. Select as many/);
  });

  it('a correlated IN over GROUP BY joins its aggregation grouped by the correlated column too', async () => {
    // Only event 3's s ('five') is a label: its code 5, less 2, is its id.
    const r = await run('SELECT e.id, e.s AS label FROM events e WHERE id IN (SELECT max(code) - 2 FROM codes c WHERE c.label = e.s GROUP BY c.price)');
    expect(r.rows).toEqual(['3:five']);
  });

  it('a correlated (a, b) IN joins on each pair and the WHERE; NOT IN keeps a row no WHERE pair equals', async () => {
    // Event 1's (5, 1.50) is code 5's (5, 1.5); event 4's s is NULL, so the WHERE pairs it with no row.
    const sql = (op: string) => `SELECT e.id, e.s AS label FROM events e WHERE (k, amt) ${op} (SELECT code, price FROM codes c WHERE c.code IS NOT NULL AND c.label <> e.s ORDER BY code)`;
    expect((await run(sql('IN'))).rows).toEqual(['1:5']);
    expect((await run(sql('NOT IN'))).rows).toEqual(['2:12', '3:five', '4:null']);
  });

  it("an inner join's ON conjunct x IN (SELECT …) is WHERE's, the semi join over the join", async () => {
    // codes less 4: 1, 8 and NULL; of the joined events 1 and 2, only 1 is among them.
    expect((await run('SELECT e.id, c.label FROM events e JOIN codes c ON e.k = c.code AND e.id IN (SELECT code - 4 FROM codes)')).rows).toEqual(['1:five']);
  });

  it('x [NOT] IN (SELECT <literal>) reads the one-row relation as its static side', async () => {
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE k IN (SELECT 5)')).rows).toEqual(['1:5']);
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE k NOT IN (SELECT 5)')).rows).toEqual(['2:12', '3:five']);
  });

  it('x IN an aggregation without GROUP BY is x = that scalar subquery: its count over no rows is 0', async () => {
    // Events 3 and 4 have no code (6, NULL): the count is 0.
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE 0 IN (SELECT count(*) FROM codes c WHERE c.code = e.k)')).rows).toEqual(['3:five', '4:null']);
  });

  it('an IN under OR reads its value from the outer row, a column of the name of the subquery\'s own', async () => {
    // codes: 5, 12 and NULL; event 3's 6 is NULL IN them, event 4 is kept by the OR.
    expect((await run('WITH c AS (SELECT code AS k FROM codes) SELECT e.id, e.s AS label FROM events e WHERE e.id = 4 OR k IN (SELECT k FROM c)')).rows).toEqual(['1:5', '2:12', '4:null']);
    // Event 4's (NULL, NULL) is unknown on both pairs of every row, the others equal none.
    expect((await run('SELECT e.id, e.s AS label FROM events e WHERE e.id = 1 OR (k, s) NOT IN (SELECT code, label FROM codes)')).rows).toEqual(['1:5', '2:12', '3:five']);
  });
});

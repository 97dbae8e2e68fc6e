/**
 * Inline tables (Spark's `VALUES (1, 'a'), (2, 'b') AS t(id, name)`) beside a stream: joined as
 * a static table, read by IN and by a scalar subquery, with Spark's column names (col1, col2, …),
 * its column types (the rows' values widened: an INT beside a DECIMAL(2,1) is a DECIMAL(11,1), a
 * NULL takes the other rows' type; a STRING beside a number, date or timestamp refused) and its
 * refusals (INVALID_INLINE_TABLE.*). A NULL column of a
 * UNION of streams widens the same way.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import { EVENTS, eventsQueries } from './testing/events-query';

const { specOf, run, outputSchema, errorOf } = eventsQueries('inline-table');

describe('inline tables (VALUES) beside a stream', () => {
  it('joins as a static table, its columns named by the alias list', async () => {
    expect(await run("SELECT e.id, t.name FROM events e JOIN (VALUES (1, 'a'), (2, 'b')) AS t(id, name) ON t.id = e.k")).toEqual(['1:a', '2:b']);
    expect(await run("SELECT e.id, t.name FROM events e JOIN VALUES (1, 'a'), (3, 'c') AS t(id, name) ON t.id = e.k")).toEqual(['1:a', '3:c']);
  });

  it('without an alias list, its columns are col1, col2, …; a LEFT JOIN pads the unmatched rows', async () => {
    expect(await run("SELECT id, col2 FROM events LEFT JOIN VALUES (1, 'a'), (3, 'c') ON col1 = k")).toEqual(['1:a', '2:null', '3:c', '4:null']);
  });

  it('is read by IN, NOT IN and a scalar subquery', async () => {
    expect(await run('SELECT id FROM events WHERE k IN (VALUES 1, 3)')).toEqual(['1', '3']);
    // NOT IN with no NULL among the values: a NULL k is NULL, so not kept.
    expect(await run('SELECT id FROM events WHERE k NOT IN (VALUES 1, 3)')).toEqual(['2']);
    expect(await run('SELECT id, (SELECT max(col1) FROM VALUES (5), (7)) AS m FROM events WHERE k = 1')).toEqual(['1:7']);
  });

  it('matches a struct, an array or a BINARY key by its value, not by the object holding it', async () => {
    expect(await run('SELECT id FROM (SELECT id, named_struct(\'a\', k, \'b\', 1) AS s FROM events) x WHERE s IN (SELECT named_struct(\'a\', col1, \'b\', col2) FROM VALUES (1, 1), (3, 2))')).toEqual(['1']);
    expect(await run('SELECT e.id, t.n FROM events e JOIN (SELECT array(col1) AS a, col2 AS n FROM VALUES (2, \'two\')) t ON t.a = array(e.k)')).toEqual(['2:two']);
    expect(await run('SELECT id FROM (SELECT id, CAST(CAST(k AS STRING) AS BINARY) AS b FROM events) x WHERE b IN (SELECT col1 FROM VALUES X\'33\', X\'34\')')).toEqual(['3']);
  });

  it('is read by a scalar subquery through the CTEs the subquery defines, each seeing the ones before it', async () => {
    expect(await run('SELECT id, (WITH v AS (SELECT max(col1) AS m FROM VALUES (5), (7)), w AS (SELECT m + 1 AS m FROM v) SELECT m FROM w) AS m FROM events WHERE k = 1')).toEqual(['1:8']);
    // An IN subquery reads the query's CTEs over static data as it reads the tables.
    expect(await run('WITH v AS (SELECT col1 AS c FROM VALUES 1, 3) SELECT id FROM events WHERE k IN (SELECT c FROM v)')).toEqual(['1', '3']);
    // A CTE the subquery defines over the stream is still the stream.
    expect(errorOf('SELECT id, (WITH v AS (SELECT max(id) AS m FROM events) SELECT m FROM v) AS m FROM events')).toContain('A scalar subquery over a stream');
  });

  it('types a column as its rows widen: INT and DECIMAL(2,1) to DECIMAL(11,1), NULL to the others\' type', () => {
    expect(outputSchema('SELECT t.x FROM events e JOIN VALUES (1, 2.5), (2, 3) AS t(k, x) ON t.k = e.k')).toEqual(['x decimal']);
    expect(validateJob(specOf('SELECT t.x FROM events e JOIN VALUES (1, 2.5), (2, 3) AS t(k, x) ON t.k = e.k')).outputSchema?.[0]).toMatchObject({ precision: 11, scale: 1 });
    expect(outputSchema('SELECT t.x FROM events e JOIN VALUES (1, NULL), (2, 5) AS t(k, x) ON t.k = e.k')).toEqual(['x long']);
    expect(outputSchema('SELECT t.x FROM events e JOIN VALUES (1, array(1, 2)), (2, array(3L)) AS t(k, x) ON t.k = e.k')).toEqual(['x array']);
  });

  it('gives its widened values, a NULL as NULL', async () => {
    expect(await run('SELECT e.id, t.x FROM events e JOIN VALUES (1, NULL), (2, 5) AS t(k, x) ON t.k = e.k')).toEqual(['1:null', '2:5']);
  });

  it("refuses what Spark's ResolveInlineTables refuses, with its error classes", () => {
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1, 'a'), (2) AS t(k, x) ON t.k = e.k")).toContain('[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table expected 2 columns but found 1 columns in row 1.');
    expect(errorOf('SELECT * FROM events e JOIN VALUES (1, rand()) AS t(k, x) ON t.k = e.k')).toContain('[INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE] Invalid inline table. Cannot evaluate the expression "rand()"');
    expect(errorOf('SELECT * FROM events e JOIN VALUES (1, id) AS t(k, x) ON t.k = e.k')).toContain('[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter with name `id` cannot be resolved.');
    // The alias list gives the number of columns (Spark's validateInputDimension counts the table's names).
    expect(errorOf('SELECT * FROM events e JOIN VALUES (1, 2) AS t(k) ON t.k = e.k')).toContain('[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table expected 1 columns but found 2 columns in row 0.');
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1), (2) AS t(k, x) ON t.k = e.k")).toContain('[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table expected 2 columns but found 1 columns in row 0.');
    // An aggregate is no constant either.
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1, count(1)), (2, 2) AS t(k, x) ON t.k = e.k")).toContain('[INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE] Invalid inline table. Cannot evaluate the expression "count(1)"');
  });

  it('refuses values that widen only by promoting to a STRING (findWiderTypeWithoutStringPromotion), naming the column', () => {
    const incompatible = (column: string) => `[INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE] Invalid inline table. Found incompatible types in the column ${column} for inline table.`;
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1), ('a') AS t(k) ON t.k = e.k")).toContain(incompatible('`k`'));
    expect(errorOf("SELECT id FROM events WHERE k IN (VALUES 1, 'a')")).toContain(incompatible('`col1`'));
    // inline-table.sql.out: an array beside a struct.
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1, array(0, 1)), (2, struct(1, 2)) AS t(k, b) ON t.k = e.k")).toContain(incompatible('`b`'));
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1, DATE '2024-01-01'), (2, 'x') AS t(k, d) ON t.k = e.k")).toContain(incompatible('`d`'));
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1, array(1)), (2, array('a')) AS t(k, a) ON t.k = e.k")).toContain(incompatible('`a`'));
    expect(errorOf("SELECT * FROM events e JOIN VALUES (1, true), (2, 1) AS t(k, b) ON t.k = e.k")).toContain(incompatible('`b`'));
    // What widens without a STRING is taken, as Spark takes it.
    for (const ok of [
      'SELECT t.x FROM events e JOIN VALUES (1, 1), (2, 2.5), (3, NULL) AS t(k, x) ON t.k = e.k',
      "SELECT t.x FROM events e JOIN VALUES (1, 'a'), (2, NULL) AS t(k, x) ON t.k = e.k",
      "SELECT t.x FROM events e JOIN VALUES (1, DATE '2024-01-01'), (2, TIMESTAMP '2024-01-01 10:00:00') AS t(k, x) ON t.k = e.k",
      'SELECT t.x FROM events e JOIN VALUES (1, 1), (2, 2L), (3, 1.5D) AS t(k, x) ON t.k = e.k',
    ]) expect(errorOf(ok), ok).toBe('');
    expect(outputSchema('SELECT t.x FROM events e JOIN VALUES (1, 1), (2, 2.5), (3, NULL) AS t(k, x) ON t.k = e.k')).toEqual(['x decimal']);
  });

  it("a SELECT without FROM on the static side reads one row (Spark's OneRowRelation); the query itself still needs the stream", async () => {
    expect(await run('SELECT e.id, t.x FROM events e JOIN (SELECT 2 AS x UNION ALL SELECT 3) t ON t.x = e.k')).toEqual(['2:2', '3:3']);
    expect(await run('WITH c AS (SELECT 1 AS one) SELECT e.id FROM events e JOIN c ON c.one = e.k')).toEqual(['1']);
    expect(errorOf('SELECT 1')).toContain('A streaming query needs FROM events');
  });

  it('alone is no streaming query, and says how to read it', () => {
    expect(errorOf('SELECT * FROM VALUES (1, 2)')).toContain('FROM VALUES: an inline table a streaming query reads by joining it with a stream');
  });

  it('is explained as an inline table, not by an internal name', () => {
    const explain = validateJob(specOf("SELECT * FROM events e JOIN VALUES (1, 'a') AS t(k, x) ON t.k = e.k")).explain ?? '';
    expect(explain).toContain('StaticRelation VALUES [] (inline table)');
    expect(explain).not.toContain('\u0000');
  });
});

describe('a NULL column of a UNION of streams', () => {
  const twoSources = (sql: string) => ({ ...specOf(sql), sources: [{ name: 'a', type: 'memory', options: { stream: 'a' }, schema: EVENTS }, { name: 'b', type: 'memory', options: { stream: 'b' }, schema: EVENTS }], source: undefined });
  const schemaOf = (sql: string) => validateJob(twoSources(sql)).outputSchema?.map((f) => `${f.name} ${f.type}${f.void ? ' void' : ''}`);

  it("takes the other branch's type, as Spark widens NullType", () => {
    expect(schemaOf('SELECT k AS x FROM a UNION ALL SELECT NULL FROM b')).toEqual(['x long']);
    expect(schemaOf('SELECT NULL AS x FROM a UNION ALL SELECT k FROM b')).toEqual(['x long']);
    expect(schemaOf("SELECT NULL AS x FROM a UNION ALL SELECT 'v' FROM b")).toEqual(['x string']);
    expect(schemaOf('SELECT NULL AS x FROM a UNION ALL SELECT NULL FROM b')).toEqual(['x string void']);
  });
});

describe('a nondeterministic CTE over static data', () => {
  // Spark 3.4+'s InlineCTE keeps a CTE that is nondeterministic and read more than once as one
  // relation: every read sees the same rows, so a UNION of two reads has the rows of one.
  it('is computed once for all its reads in a batch plan', async () => {
    const union = 'SELECT count(*) AS n FROM (SELECT * FROM q UNION SELECT * FROM q)';
    expect(await run(`WITH q AS (SELECT rand() AS r FROM range(1, 5)) SELECT e.id, c.n FROM events e CROSS JOIN (${union}) c WHERE e.id = 1`)).toEqual(['1:4']);
    expect(await run(`WITH q(r) AS (SELECT uuid() FROM VALUES 1, 2, 3) SELECT e.id, c.n FROM events e CROSS JOIN (${union}) c WHERE e.id = 1`)).toEqual(['1:3']);
    expect(await run('WITH q AS (SELECT rand() AS r FROM range(1, 5)) SELECT e.id, c.n FROM events e CROSS JOIN (SELECT count(*) AS n FROM q a JOIN q b ON a.r = b.r) c WHERE e.id = 1')).toEqual(['1:4']);
  });

  it('over the stream is inlined into each read, each drawing its own values in the batch', async () => {
    expect(await run('WITH c AS (SELECT id, rand() AS r FROM events) SELECT id FROM c WHERE r >= 0 AND r < 1')).toEqual(['1', '2', '3', '4']);
    expect(await run('WITH c AS (SELECT id, rand() AS r FROM events) SELECT id FROM c UNION ALL SELECT id FROM c')).toEqual(['1', '1', '2', '2', '3', '3', '4', '4']);
  });

  it('is still inlined where it is deterministic', async () => {
    expect(await run('WITH q AS (SELECT id FROM range(1, 5)) SELECT e.id, c.n FROM events e CROSS JOIN (SELECT count(*) AS n FROM (SELECT * FROM q UNION ALL SELECT * FROM q)) c WHERE e.id = 1')).toEqual(['1:8']);
  });
});

describe('EXISTS over an inline table or range()', () => {
  // Spark's RewritePredicateSubquery makes any relation of static data a semi (or anti) join's side.
  it('is a LEFT SEMI or ANTI join with it, correlated or not', async () => {
    expect(await run('SELECT e.id FROM events e WHERE EXISTS (SELECT 1 FROM range(3) r WHERE r.id = e.k)')).toEqual(['1', '2']);
    expect(await run('SELECT e.id FROM events e WHERE NOT EXISTS (SELECT 1 FROM range(3) r WHERE r.id = e.k)')).toEqual(['3', '4']);
    expect(await run('SELECT e.id FROM events e WHERE EXISTS (SELECT 1 FROM VALUES 1, 3 AS t(a) WHERE a = e.k)')).toEqual(['1', '3']);
    expect(await run('SELECT e.id FROM events e WHERE EXISTS (SELECT 1 FROM VALUES (2), (3) WHERE col1 = k AND e.id > 2)')).toEqual(['3']);
    expect(await run('SELECT e.id FROM events e WHERE EXISTS (SELECT 1 FROM range(3)) AND e.id < 3')).toEqual(['1', '2']);
    expect(await run('SELECT e.id FROM events e WHERE NOT EXISTS (SELECT 1 FROM range(0))')).toEqual(['1', '2', '3', '4']);
    expect(await run('SELECT e.id FROM events e WHERE e.k IN (SELECT id FROM range(2, 5))')).toEqual(['2', '3']);
  });
});

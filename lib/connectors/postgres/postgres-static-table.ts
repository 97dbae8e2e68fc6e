/**
 * The `postgres` static-table reader: a stream-static join against a PostgreSQL table, queried at
 * the first batch and again at each batch with data (once per run with `cache: true`), as Spark
 * re-runs a JDBC DataFrame's scan each micro-batch (see stream-static-join.ts, and there why a
 * table that does not fit its schema fails the run instead of joining against part of it). Each
 * read opens its own connection and closes it: a run holds none between batches.
 */
import type pg from 'pg';
import { BadRecordError, convertValue, describeStaticTable, registerStaticTableReader, type Row, type StaticTableSpec } from '../../engine';
import { createPool, errorText, identifierProblem, pgValue, qualifiedName, quoteIdent, secretsOf, PG_READ_TYPES } from './pg-util';

/**
 * SELECT of the schema's columns from the table, each value converted to its column type; a
 * value that does not fit fails the run naming the row and column, with secrets redacted.
 */
async function loadPostgresTable(t: StaticTableSpec): Promise<Row[]> {
  const secrets = secretsOf(t.connectionString ?? '');
  const pool = createPool(t.connectionString ?? '', 1);
  try {
    const cols = t.schema.map((f) => quoteIdent(f.name)).join(', ');
    let result: pg.QueryResult;
    try {
      // Timestamps as PostgreSQL's text: the driver's Date would cut their microseconds.
      result = await pool.query({ text: `SELECT ${cols} FROM ${qualifiedName(t.dbSchema ?? 'public', t.table ?? '')}`, rowMode: 'array', types: PG_READ_TYPES });
    } catch (e) {
      throw new BadRecordError(`Static table ${t.name} (${describeStaticTable(t)}) could not be read: ${errorText(e, secrets)}. Check staticTables[].connectionString, table and schema.`, { table: t.name });
    }
    const oids = result.fields.map((c) => c.dataTypeID);
    return result.rows.map((values: unknown[], i: number) => {
      const row: Row = {};
      t.schema.forEach((f, c) => {
        const raw = values[c];
        const v = convertValue(pgValue(raw, oids[c], f), f);
        if (!v.ok) throw new BadRecordError(`Static table ${t.name} (${describeStaticTable(t)}) row ${i + 1}, column "${f.name}": ${v.reason}. Fix the table or the column's type.`, { table: t.name, row: i + 1, column: f.name });
        row[f.name] = v.value;
      });
      return row;
    });
  } finally {
    await pool.end().catch(() => undefined);
  }
}

registerStaticTableReader({
  type: 'postgres',
  check(t) {
    const problems: { path: string; message: string }[] = [];
    for (const field of ['table', 'dbSchema'] as const) {
      const name = t[field];
      const problem = name === undefined ? undefined : identifierProblem(name);
      if (problem) problems.push({ path: field, message: problem });
    }
    return problems;
  },
  load: loadPostgresTable,
});

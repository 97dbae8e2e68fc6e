/**
 * One in-memory DuckDB (single connection, UTC) for a differential test file: opened before its
 * tests, closed after them. Returns the connection's accessor.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll } from 'vitest';

export function useDuckDB(): () => DuckDBConnection {
  let instance: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    // Timestamps compare as Weir computes them: in UTC.
    await conn.run("SET TimeZone = 'UTC'");
  });
  afterAll(() => {
    conn?.closeSync();
    instance?.closeSync();
  });
  return () => {
    if (!conn) throw new Error('DuckDB is opened in beforeAll: use it inside a test');
    return conn;
  };
}

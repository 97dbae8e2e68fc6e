/**
 * One read statement sent straight to the pg pool as a named (prepared) statement, for the hot
 * reads that answer many requests with a few rows: Prisma's own work per raw query (its query
 * compiler and result mapping) measured ~1 ms of CPU against pg's ~0.5 ms for the jobs page, and
 * a prepared statement spares PostgreSQL planning it again on each connection (docs/api.md,
 * Figures). Given a PrismaClient instead (tests, or a caller inside a transaction), the same SQL
 * goes through it.
 *
 * Named statements need a direct connection or a pooler that keeps them (PgBouncer 1.21+ with
 * max_prepared_statements); Weir connects to PostgreSQL directly.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';

/** Where a read goes: the process's pg pool (db.ts pgPool), or a Prisma client. */
export type ReadDb = pg.Pool | PrismaClient;

/**
 * pg prepares a statement once per connection by name and keeps it for the connection's life;
 * the name is the text's, so one text, one name. The first MAX_PREPARED texts are named; any
 * text beyond them goes unnamed (parsed and planned on each execution, nothing kept), so a
 * client varying its filters and page sizes cannot grow every connection's statements without
 * bound.
 */
export const MAX_PREPARED = 1000;
const names = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (!name && names.size < MAX_PREPARED) {
    name = `weir_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

export async function queryPrepared<T>(db: ReadDb, sql: Prisma.Sql): Promise<T[]> {
  if ('$queryRaw' in db) return db.$queryRaw<T[]>(sql);
  const name = statementName(sql.text);
  const result = await db.query(name ? { name, text: sql.text, values: sql.values as unknown[] } : { text: sql.text, values: sql.values as unknown[] });
  return result.rows as T[];
}

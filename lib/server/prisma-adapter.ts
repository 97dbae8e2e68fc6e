/**
 * The Prisma driver adapter for migrations, with one small shim.
 *
 * Why: with @prisma/adapter-pg 6.19.3 the WebAssembly schema engine (the only one that runs
 * offline here) fails on PostgreSQL `name`/`char` result columns: "Column type 'name' could not be
 * deserialized from the database" (prisma/orm#27403). The catalog queries `migrate deploy` makes
 * return such columns. We report them as `text` (and `name[]` as `text[]`); their text values are
 * identical. Covered by prisma-adapter.test.ts.
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';

const RETYPE: Record<number, number> = { 19: 25, 18: 25, 1003: 1009 };

interface FieldLike { dataTypeID: number }

export function retypeNameColumns<T extends { fields?: FieldLike[] }>(result: T): T {
  for (const f of result?.fields ?? []) {
    const to = RETYPE[f.dataTypeID];
    if (to !== undefined) f.dataTypeID = to;
  }
  return result;
}

type QueryFn = (...args: unknown[]) => Promise<{ fields?: FieldLike[] }>;

function wrapQuery<T extends { query: unknown }>(target: T): T {
  const original = (target.query as QueryFn).bind(target);
  (target as { query: unknown }).query = async (...args: unknown[]) => retypeNameColumns(await original(...args));
  return target;
}

/** A pg Pool whose results (direct, and through checked-out clients) report name columns as text. */
export class NameAsTextPool extends pg.Pool {
  constructor(config: pg.PoolConfig) {
    super(config);
    wrapQuery(this);
    // pg-pool's own query() checks out a client with the callback form of connect(); leave that
    // path alone (its results pass through the wrapped query above) and wrap the promise form,
    // which the adapter uses for transactions.
    const connect = this.connect.bind(this) as (cb?: unknown) => Promise<pg.PoolClient> | undefined;
    (this as { connect: unknown }).connect = (cb?: unknown) =>
      typeof cb === 'function' ? connect(cb) : (connect() as Promise<pg.PoolClient>).then(wrapQuery);
  }
}

export function makeMigrationAdapter(connectionString: string) {
  if (!connectionString) throw new Error('DATABASE_URL is not set: the Prisma CLI needs it to migrate.');
  // allowExitOnIdle: the CLI process exits as soon as it is done instead of waiting out the idle timeout.
  return new PrismaPg(new NameAsTextPool({ connectionString, allowExitOnIdle: true, idleTimeoutMillis: 200 }));
}

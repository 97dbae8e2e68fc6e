/**
 * The Prisma driver adapter for migrations, with two small shims.
 *
 * Why the first: with @prisma/adapter-pg 6.19.3 the WebAssembly schema engine (the only one that runs
 * offline here) fails on PostgreSQL `name`/`char` result columns: "Column type 'name' could not be
 * deserialized from the database" (prisma/orm#27403). The catalog queries `migrate deploy` makes
 * return such columns. We report them as `text` (and `name[]` as `text[]`); their text values are
 * identical.
 *
 * Why the second: the adapter's executeScript, which `migrate deploy` runs each migration through,
 * splits the script on every `;` and sends the pieces one by one, so a migration defining a
 * PL/pgSQL function (whose body is full of `;`) or with a `;` in a comment fails with a syntax
 * error. We send the script whole, in one simple query, as Prisma's native engine does (and
 * lib/server/migrate.ts): PostgreSQL runs it as one implicit transaction. Both are covered by
 * prisma-adapter.integration.test.ts.
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

/** The parts of the adapter's connection the whole-script shim uses (@prisma/adapter-pg 6.19 internals). */
interface ScriptRunner {
  client: { query(sql: string): Promise<unknown> };
  onError(error: unknown): never;
  executeScript(script: string): Promise<void>;
}

/** PrismaPg whose connections run a script as one query instead of splitting it on `;`. */
export class WholeScriptPrismaPg extends PrismaPg {
  override async connect(): ReturnType<PrismaPg['connect']> {
    const adapter = await super.connect();
    const runner = adapter as unknown as ScriptRunner;
    runner.executeScript = async (script: string) => {
      try {
        await runner.client.query(script);
      } catch (error) {
        runner.onError(error);
      }
    };
    return adapter;
  }
}

export function makeMigrationAdapter(connectionString: string) {
  if (!connectionString) throw new Error('DATABASE_URL is not set: the Prisma CLI needs it to migrate.');
  // allowExitOnIdle: the CLI process exits as soon as it is done instead of waiting out the idle timeout.
  return new WholeScriptPrismaPg(new NameAsTextPool({ connectionString, allowExitOnIdle: true, idleTimeoutMillis: 200 }));
}

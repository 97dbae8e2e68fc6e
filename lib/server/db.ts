/**
 * The Prisma client of this process and the pg pool under it (one each per process; Next's dev
 * server reloads modules, hence the global).
 */
// Never in a browser bundle: a client component importing this fails the build.
import 'server-only';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { databaseUrl } from '@/lib/env';

const globalForPrisma = globalThis as unknown as { weirPrisma?: PrismaClient; weirPool?: pg.Pool };

/**
 * Interactive transactions get more than Prisma's 5 s: on a loaded machine (or behind a lock a
 * path claim waits for) a short transaction can take longer, and an expired one fails a request
 * that would have succeeded. The bound stays: a transaction that hangs is still ended.
 */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

export function prisma(): PrismaClient {
  globalForPrisma.weirPrisma ??= new PrismaClient({
    adapter: new PrismaPg(pgPool(), { disposeExternalPool: true }),
    transactionOptions: TRANSACTION_OPTIONS,
  });
  return globalForPrisma.weirPrisma;
}

/**
 * The connections Prisma uses, for the few hot reads that send their SQL without Prisma
 * (prepared-query.ts). A pool ended by prisma().$disconnect() is replaced.
 */
export function pgPool(): pg.Pool {
  if (!globalForPrisma.weirPool || globalForPrisma.weirPool.ended) globalForPrisma.weirPool = new pg.Pool({ connectionString: databaseUrl() });
  return globalForPrisma.weirPool;
}

export type { PrismaClient };

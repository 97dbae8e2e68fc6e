/**
 * The Prisma client of this process (one per process; Next's dev server reloads modules, hence
 * the global).
 */
// Never in a browser bundle: a client component importing this fails the build.
import 'server-only';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { databaseUrl } from '@/lib/env';

const globalForPrisma = globalThis as unknown as { weirPrisma?: PrismaClient };

export function prisma(): PrismaClient {
  globalForPrisma.weirPrisma ??= new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl() }) });
  return globalForPrisma.weirPrisma;
}

export type { PrismaClient };

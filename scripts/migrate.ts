/** `node --import tsx scripts/migrate.ts`: applies prisma/migrations to DATABASE_URL (see lib/server/migrate.ts). */
import { databaseUrl } from '../lib/env';
import { migrate } from '../lib/server/migrate';

const applied = await migrate(databaseUrl());
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database schema is up to date');

// Prisma CLI configuration. The JS engine runs the bundled WebAssembly schema engine, so
// `prisma migrate deploy` works offline (the native engines cannot be downloaded here).
import 'dotenv/config';
import { defineConfig } from 'prisma/config';
import { makeMigrationAdapter } from './lib/server/prisma-adapter';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  engine: 'js',
  experimental: { adapter: true },
  adapter: async () => makeMigrationAdapter(process.env.DATABASE_URL ?? ''),
});

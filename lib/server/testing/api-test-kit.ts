/**
 * Route-handler tests: a fresh migrated database on the machine's PostgreSQL, this process's
 * configuration pointed at it (DATABASE_URL, a temporary checkpoint root, the files roots: the
 * system temp directory unless the test names its own, BullMQ on its Postgres backend in that
 * database), one API token per role, and `call()`, which invokes an exported
 * GET/POST/… with a real Request, exactly as Next does.
 *
 * Must run before anything calls env() or prisma() in the test file (both cache per process;
 * vitest gives each test file its own process).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeRunQueues } from '@/lib/queue/run-queue';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hashToken, hashPassword } from '../credentials';
import { createTestDatabase, type TestDatabase } from './database';

export type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

interface CallOptions {
  method?: string;
  token?: string;
  cookie?: string;
  body?: unknown;
  params?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  body: any;
  headers: Headers;
}

export interface ApiTestKit {
  db: PrismaClient;
  database: TestDatabase;
  checkpointRoot: string;
  /** WEIR_FILES_ROOTS of this process: where the test's files sources and sinks may be. */
  filesRoots: string[];
  tokens: { viewer: string; operator: string; admin: string };
  /** UI user `alice` (operator) with password `alice-password`. */
  call(handler: Handler, url: string, opts?: CallOptions): Promise<CallResult>;
  teardown(): Promise<void>;
}

/**
 * `infrastructure`: 'shared' (the default) sets the test-only seam WEIR_TEST_SHARED_SERVERS,
 * because the suite's postgres and redis sources and sinks live on the same servers as this
 * kit's metadata database; 'refused' leaves it unset, as in a deployment, for tests of the
 * boundary that keeps jobs and previews away from Weir's own services. `env`: more configuration
 * for this process (WEIR_OUTBOUND_ALLOW, REDIS_URL, …), set before anything reads it.
 */
export async function setupApiTestKit(opts: { filesRoots?: string[]; checkpointRoot?: string; infrastructure?: 'shared' | 'refused'; env?: Record<string, string> } = {}): Promise<ApiTestKit> {
  const database = await createTestDatabase('weir_api');
  const checkpointRoot = opts.checkpointRoot ?? (await mkdtemp(path.join(tmpdir(), 'weir-api-cp-')));
  const filesRoots = opts.filesRoots ?? [tmpdir()];
  process.env.DATABASE_URL = database.url;
  process.env.WEIR_CHECKPOINT_ROOT = checkpointRoot;
  process.env.WEIR_FILES_ROOTS = filesRoots.join(',');
  delete process.env.REDIS_URL;
  (process.env as Record<string, string | undefined>).NODE_ENV ??= 'test';
  process.env.WEIR_TEST_SHARED_SERVERS = opts.infrastructure === 'refused' ? '' : '1';
  Object.assign(process.env, opts.env);
  const { prisma } = await import('../db');
  const db = prisma();
  const tokens = { viewer: 'test-viewer-token-0123456789', operator: 'test-operator-token-0123456789', admin: 'test-admin-token-0123456789' };
  for (const role of ['viewer', 'operator', 'admin'] as const) {
    await db.apiToken.create({ data: { name: `${role}-token`, role, tokenHash: hashToken(tokens[role]) } });
  }
  await db.user.create({ data: { username: 'alice', role: 'operator', passwordHash: await hashPassword('alice-password') } });

  const call = async (handler: Handler, url: string, opts: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.cookie) headers.cookie = opts.cookie;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const req = new Request(new URL(url, 'http://localhost:3000'), { method: opts.method ?? 'GET', headers, body });
    const res = await handler(req, { params: Promise.resolve(opts.params ?? {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    db,
    database,
    checkpointRoot,
    filesRoots,
    tokens,
    call,
    teardown: async () => {
      await closeRunQueues();
      await db.$disconnect();
      await database.drop();
      await rm(checkpointRoot, { recursive: true, force: true });
    },
  };
}

/** A valid files → files spec (exactly-once; local checkpoint). */
export function filesSpec(name: string, dir: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    source: { name: 'clicks', type: 'files', options: { path: path.join(dir, 'in'), format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] },
    sql: 'SELECT user, n FROM clicks WHERE n > 0',
    sink: { type: 'files', options: { path: path.join(dir, 'out'), format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '1 second' },
    ...extra,
  };
}

export const PG_SECRET_PASSWORD = 's3cret-Pa55word';
/** A files → postgres spec whose sink connection string carries a password. */
export function postgresSinkSpec(name: string, dir: string) {
  return filesSpec(name, dir, {
    sink: { type: 'postgres', options: { connectionString: `postgres://writer:${PG_SECRET_PASSWORD}@127.0.0.1:5432/analytics`, table: 'clicks_out' } },
  });
}

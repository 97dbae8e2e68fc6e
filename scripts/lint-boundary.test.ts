// The engine boundary is a lint rule so nobody has to remember it; this proves the rule bites.
import { ESLint } from 'eslint';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
// The boundary rules read imports only; the snippets are not files, so the type-aware parsing
// (which needs a file on disk in tsconfig's program) is switched off for them.
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: [{
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off', '@typescript-eslint/switch-exhaustiveness-check': 'off' },
  }],
});

async function errorsFor(code: string, file = 'lib/engine/example.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file });
  return result.messages.filter((m) => m.severity === 2).map((m) => m.message);
}

describe('lib/engine lint boundary', () => {
  it.each([
    ["import { Queue } from 'bullmq';", /BullMQ/],
    ["import { NextResponse } from 'next/server';", /Next/],
    ["import { PrismaClient } from '@prisma/client';", /Prisma/],
    ["import { env } from '@/lib/env';", /configuration is read in lib\/env.ts/],
    ["import { env } from '../../lib/env';", /configuration is read in lib\/env.ts/],
    ['export const x = process.env.HOME;', /process.env/],
    ['export const t = Date.now();', /Clock/],
    ["import pg from 'pg';", /connector client library/],
    ["import type pg from 'pg';", /connector client library/],
    ["import { Redis } from 'ioredis';", /connector client library/],
    ["import { connect } from '@nats-io/transport-node';", /connector client library/],
    ["import type { S3Client } from '@aws-sdk/client-s3';", /connector client library/],
    ["import { Kafka } from 'kafkajs';", /connector client library/],
    ["export const sdk = () => import('@aws-sdk/client-s3');", /not even lazily/],
    ["import '../../connectors/postgres/index';", /must not import lib\/connectors/],
    ["import '@/lib/connectors';", /must not import lib\/connectors/],
  ])('rejects %s', async (code, message) => {
    const errors = await errorsFor(code);
    expect(errors.join('\n')).toMatch(message);
  });

  it('lets an engine test register a connector but not use a client library itself', async () => {
    const file = 'lib/engine/execution/example.test.ts';
    expect(await errorsFor("import '../../connectors/postgres/index';", file)).toEqual([]);
    expect((await errorsFor("import pg from 'pg';\nexport const p = pg;", file)).join('\n')).toMatch(/connector client library/);
  });

  it('allows connectors their client libraries and the engine', async () => {
    expect(await errorsFor("import pg from 'pg';\nimport { WeirError } from '../../engine';\nexport const x = [pg, WeirError];", 'lib/connectors/postgres/example.ts')).toEqual([]);
  });

  it('allows the same imports outside the engine', async () => {
    expect(await errorsFor("import { Queue } from 'bullmq';\nexport const q = Queue;", 'lib/queue/example.ts')).toEqual([]);
  });
});

describe('connectors reach the engine through its public index', () => {
  it.each([
    ["import { WeirError } from '../../engine/errors';", 'lib/connectors/postgres/example.ts'],
    ["import type { Sink } from '../../engine/sinks/sink';", 'lib/connectors/redis/example.ts'],
    ["import { CommitLog } from '../engine/checkpoint/commit-log';", 'lib/connectors/example.ts'],
    ["import { jsonWriter } from '@/lib/engine/sinks/row-rendering';", 'lib/connectors/kafka/example.ts'],
  ])('rejects %s in %s', async (code, file) => {
    expect((await errorsFor(code, file)).join('\n')).toMatch(/only through its public index/);
  });

  it.each([
    ["import { WeirError } from '../../engine';\nexport const x = WeirError;", 'lib/connectors/postgres/example.ts'],
    ["import { WeirError } from '../../engine/index';\nexport const x = WeirError;", 'lib/connectors/postgres/example.ts'],
    ["import { WeirError } from '@/lib/engine';\nexport const x = WeirError;", 'lib/connectors/postgres/example.ts'],
    ["import { MemoryStream } from '../../engine/sources/memory-source';\nimport { sinkContractSuite } from '../../engine/sinks/testing/sink.contract';\nexport const x = [MemoryStream, sinkContractSuite];", 'lib/connectors/postgres/example.test.ts'],
  ])('allows %s in %s', async (code, file) => {
    expect(await errorsFor(code, file)).toEqual([]);
  });
});

describe('services (lib/server/services, *-service.ts) import neither presenters nor http/', () => {
  it.each([
    ["import { presentJob } from '../presenters/jobs-presenter';", 'lib/server/services/example.ts', /must not import presenters/],
    ["import { getJob } from '@/lib/server/presenters/jobs-presenter';", 'lib/server/services/example.ts', /must not import presenters/],
    ["import { ConflictError } from '../http/http-errors';", 'lib/server/services/example.ts', /must not import http\//],
    ["import { apiRoute } from '@/lib/server/http/api-handler';", 'lib/server/services/example.ts', /must not import http\//],
    ["import { presentAlert } from './alert-presenter';", 'lib/server/alerts/example-service.ts', /must not import presenters/],
    ["import { NotFoundError } from '../http/http-errors';", 'lib/server/drills/example-service.ts', /must not import http\//],
    ["import { describe } from 'vitest';", 'lib/server/services/example.ts', /must not import vitest/],
  ])('rejects %s in %s', async (code, file, message) => {
    expect((await errorsFor(code, file)).join('\n')).toMatch(message);
  });

  it.each([
    ["import { ConflictError } from '../errors';\nimport { presentJob } from '../job-view';\nexport const x = [ConflictError, presentJob];", 'lib/server/services/example.ts'],
    ["import { presentJob } from '../job-view';\nimport { ConflictError } from '../errors';\nexport const x = [presentJob, ConflictError];", 'lib/server/presenters/example.ts'],
    ["import { errorResponse } from '../http/http-errors';\nexport const x = errorResponse;", 'lib/server/metrics/example.ts'],
    ["import { presentAlert } from './alert-view';\nexport const x = presentAlert;", 'lib/server/alerts/example-service.ts'],
  ])('allows %s in %s', async (code, file) => {
    expect(await errorsFor(code, file)).toEqual([]);
  });
});

describe('test support stays out of production code', () => {
  it.each([
    ["import { describe } from 'vitest';", 'lib/server/example.ts', /must not import vitest/],
    ["import { describe } from 'vitest';", 'lib/engine/sources/example.ts', /must not import vitest/],
    ["import { createTestDatabase } from '../testing/pg-test-database';", 'lib/server/example.ts', /test support/],
    ["import { testStream } from '../execution/testing/stream-test';", 'lib/engine/query/example.ts', /test support/],
    ["import { harness } from './testing/harness';", 'worker/example.ts', /test support/],
    ["import { kit } from '@/lib/server/testing/api-test-kit';", 'app/api/example/route.ts', /test support/],
    ["import { describe } from 'vitest';", 'components/example.tsx', /must not import vitest/],
  ])('rejects %s in %s', async (code, file, message) => {
    expect((await errorsFor(code, file)).join('\n')).toMatch(message);
  });

  it.each([
    ["import { describe } from 'vitest';\nimport { tempDir } from './testing/test-fixtures';\nexport const x = [describe, tempDir];", 'lib/engine/execution/example.test.ts'],
    ["import { expect } from 'vitest';\nimport { MemoryStream } from '../memory-source';\nexport const x = [expect, MemoryStream];", 'lib/engine/sources/testing/example.ts'],
    ["import { createTestDatabase } from '../../lib/testing/pg-test-database';\nexport const x = createTestDatabase;", 'bench/example.bench.ts'],
  ])('allows it in tests, test support and benchmarks (%s)', async (code, file) => {
    expect(await errorsFor(code, file)).toEqual([]);
  });
});

describe('type-aware rules', () => {
  it('reject a floating promise, a promise where a void callback is expected, and a switch missing a union member', async () => {
    // A real file: type information comes from a TypeScript program, which reads the disk. The
    // program is tsconfig.json's options over this one file (a tsconfig beside it that extends
    // the project's): the whole project's program took most of this file's time to build.
    const file = path.join(ROOT, 'scripts', `lint-probe-${process.pid}.ts`);
    const tsconfig = path.join(ROOT, 'scripts', `lint-probe-${process.pid}.tsconfig.json`);
    await writeFile(tsconfig, JSON.stringify({ extends: '../tsconfig.json', include: [], files: [path.basename(file)] }));
    await writeFile(file, [
      'const later = async () => 1;',
      'later();',
      "[1].forEach(async () => { await later(); });",
      "export function name(k: 'a' | 'b'): string {",
      '  switch (k) {',
      "    case 'a': return 'A';",
      "    default: return '?';",
      '  }',
      '}',
      "export const button = { onClick: (f: () => void) => f };",
      'button.onClick(async () => { await later(); });',
      '',
    ].join('\n'));
    try {
      const typed = new ESLint({
        cwd: ROOT,
        overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, project: [tsconfig], tsconfigRootDir: ROOT } } }],
      });
      const [result] = await typed.lintFiles([file]);
      const rules = result.messages.map((m) => m.ruleId);
      expect(rules).toContain('@typescript-eslint/no-floating-promises');
      expect(rules).toContain('@typescript-eslint/no-misused-promises');
      expect(rules).toContain('@typescript-eslint/switch-exhaustiveness-check');
    } finally {
      await Promise.all([rm(file, { force: true }), rm(tsconfig, { force: true })]);
    }
  });
});

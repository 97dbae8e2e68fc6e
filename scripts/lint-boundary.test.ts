// The engine boundary is a lint rule so nobody has to remember it; this proves the rule bites.
import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, '..') });

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
    expect(await errorsFor("import pg from 'pg';\nimport { WeirError } from '../../engine/errors';\nexport const x = [pg, WeirError];", 'lib/connectors/postgres/example.ts')).toEqual([]);
  });

  it('allows the same imports outside the engine', async () => {
    expect(await errorsFor("import { Queue } from 'bullmq';\nexport const q = Queue;", 'lib/queue/example.ts')).toEqual([]);
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

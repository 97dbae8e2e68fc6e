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
  ])('rejects %s', async (code, message) => {
    const errors = await errorsFor(code);
    expect(errors.join('\n')).toMatch(message);
  });

  it('allows the same imports outside the engine', async () => {
    expect(await errorsFor("import { Queue } from 'bullmq';\nexport const q = Queue;", 'lib/queue/example.ts')).toEqual([]);
  });
});

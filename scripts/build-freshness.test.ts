import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildFreshness, markBuiltAsOf } from './build-freshness';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function file(rel: string, atSec: number) {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, 'x');
  utimesSync(p, atSec, atSec);
}

describe('buildFreshness (npm start rebuilds a stale dashboard)', () => {
  it('missing without a build, fresh when the build is newer than every source, stale when one source is newer', () => {
    root = mkdtempSync(path.join(tmpdir(), 'weir-build-fresh-'));
    file('app/page.tsx', 1_000);
    file('lib/server/deep/x.ts', 1_000);
    expect(buildFreshness(root).state).toBe('missing');
    file('.next/BUILD_ID', 2_000);
    expect(buildFreshness(root).state).toBe('fresh');
    // A pulled change deep in lib/ makes it stale.
    file('lib/server/deep/x.ts', 3_000);
    expect(buildFreshness(root)).toEqual({ state: 'stale', newestSource: new Date(3_000_000).toISOString() });
    file('.next/BUILD_ID', 4_000);
    // The generated Prisma client and node_modules are rewritten by npm ci: not sources.
    file('lib/generated/prisma/client.ts', 5_000);
    file('node_modules/x/index.js', 5_000);
    expect(buildFreshness(root).state).toBe('fresh');
    // The schema and the lockfile count.
    file('prisma/schema.prisma', 6_000);
    expect(buildFreshness(root).state).toBe('stale');
    file('.next/BUILD_ID', 7_000);
    file('package-lock.json', 8_000);
    expect(buildFreshness(root).state).toBe('stale');
    // So does proxy.ts, which Next builds into the server (it answers undecodable paths).
    file('.next/BUILD_ID', 9_000);
    file('proxy.ts', 10_000);
    expect(buildFreshness(root).state).toBe('stale');
  });

  it('counts a source saved while the build ran as newer than the build, once the build is dated by its start', () => {
    root = mkdtempSync(path.join(tmpdir(), 'weir-build-fresh-'));
    file('components/a.tsx', 1_000);
    // The build starts at 2 000 s; a.tsx is saved at 3 000 s; BUILD_ID is written at 4 000 s.
    file('components/a.tsx', 3_000);
    file('.next/BUILD_ID', 4_000);
    expect(buildFreshness(root).state).toBe('fresh');
    markBuiltAsOf(root, 2_000_000);
    expect(buildFreshness(root)).toEqual({ state: 'stale', newestSource: new Date(3_000_000).toISOString() });
  });
});

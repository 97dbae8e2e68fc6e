/**
 * Whether the dashboard's production build is older than its sources, so `npm start` after a
 * `git pull` (or an edit) rebuilds instead of serving the old pages and API routes. The build's
 * `.next/BUILD_ID` is compared with the newest source file: app/, components/, lib/ (not the
 * generated Prisma client, which `npm ci` rewrites), the Prisma schema, proxy.ts, the Next config
 * and the lockfile. A build is dated by its start (markBuiltAsOf): a source saved while it ran may
 * not be in it.
 */
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';

const SOURCE_DIRS = ['app', 'components', 'lib'];
const SOURCE_FILES = ['prisma/schema.prisma', 'proxy.ts', 'next.config.js', 'next.config.ts', 'next.config.mjs', 'package-lock.json'];
const SKIP = new Set(['node_modules', 'generated', '.next']);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = path.join(dir, e.name);
    const t = e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs;
    if (t > newest) newest = t;
  }
  return newest;
}

/** `missing`: no build; `stale`: a source file is newer than the build; `fresh` otherwise. */
export function buildFreshness(root: string): { state: 'missing' | 'stale' | 'fresh'; newestSource?: string } {
  const id = path.join(root, '.next', 'BUILD_ID');
  if (!existsSync(id)) return { state: 'missing' };
  const built = statSync(id).mtimeMs;
  let newest = 0;
  for (const d of SOURCE_DIRS) if (existsSync(path.join(root, d))) newest = Math.max(newest, newestMtime(path.join(root, d)));
  for (const f of SOURCE_FILES) if (existsSync(path.join(root, f))) newest = Math.max(newest, statSync(path.join(root, f)).mtimeMs);
  return newest > built ? { state: 'stale', newestSource: new Date(newest).toISOString() } : { state: 'fresh' };
}

/**
 * Dates a finished build by when it started: `next build` writes BUILD_ID at its end, so a source
 * saved during the build (minutes, on a loaded machine) would look built when it may not be.
 */
export function markBuiltAsOf(root: string, startedMs: number): void {
  const at = new Date(startedMs);
  utimesSync(path.join(root, '.next', 'BUILD_ID'), at, at);
}

/**
 * A child process's entry as plain JavaScript, bundled once per process with esbuild: how the
 * worker's engine processes (worker/engine-host.ts) and the API's preview processes
 * (preview-host.ts) start. Forking TypeScript through tsx instead costs each child about three
 * times the memory (147 MB against 50 MB idle) and over a second of start-up.
 *
 * The bundle goes to `<root>/node_modules/.cache/weir/<name>-<hash of the output>/`, inside
 * node_modules so that its package imports (kept external) resolve from the project's packages,
 * with the state store's snapshot worker beside it as `state-snapshot-worker.mjs` (the state
 * store looks for it next to its own module). It is written to a temporary directory and renamed
 * whole, so a process starting a child never sees half of it.
 *
 * `root` is the project directory, given by the caller: under `next start` this module is part of
 * Next's server bundle, where its own location says nothing about where the sources are, so the
 * API passes its working directory (scripts/start.ts starts the server there).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, stop as stopEsbuild } from 'esbuild';

/**
 * Packages bundled into the child although every other one stays external: dt-sql-parser's files
 * import each other without file extensions, which Node's ESM loader refuses (the SQL front end
 * parses with its grammar), and antlr4ng is its runtime.
 */
const BUNDLED_PACKAGES = /^(dt-sql-parser|antlr4ng)(\/|$)/;

const bundles = new Map<string, Promise<string>>();
/** One build at a time: stopping esbuild's service after one must not cut another short. */
let building: Promise<unknown> = Promise.resolve();

/**
 * The path of `<name>.mjs`, the bundle of `entry` (a path relative to `root`), built on the first
 * call in this process and cached; a failed build is tried again on the next call.
 */
export function childBundle(root: string, name: string, entry: string): Promise<string> {
  const key = `${root}\0${name}\0${entry}`;
  let b = bundles.get(key);
  if (!b) {
    b = building.then(() => buildChild(root, name, entry));
    building = b.catch(() => undefined);
    bundles.set(key, b);
    b.catch(() => bundles.delete(key));
  }
  return b;
}

async function buildChild(root: string, name: string, entry: string): Promise<string> {
  const cacheDir = path.join(root, 'node_modules', '.cache', 'weir');
  const out = await build({
    entryPoints: { [name]: path.join(root, entry), 'state-snapshot-worker': path.join(root, 'lib', 'engine', 'state', 'state-snapshot-worker.ts') },
    outdir: cacheDir,
    outExtension: { '.js': '.mjs' },
    tsconfig: path.join(root, 'tsconfig.json'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    plugins: [{
      name: 'bundled-packages',
      setup(b) {
        const req = createRequire(path.join(root, 'package.json'));
        b.onResolve({ filter: BUNDLED_PACKAGES }, (args) => ({ path: req.resolve(args.path) }));
      },
    }],
    // Error classes keep their names (errors cross the process boundary by name).
    keepNames: true,
    write: false,
    logLevel: 'silent',
  });
  // esbuild's service process would otherwise stay for this process's lifetime (27 MB).
  await stopEsbuild();
  const hash = createHash('sha256');
  for (const f of out.outputFiles) hash.update(path.basename(f.path)).update(f.contents);
  const dir = path.join(cacheDir, `${name}-${hash.digest('hex').slice(0, 16)}`);
  const file = path.join(dir, `${name}.mjs`);
  try {
    await access(file);
  } catch {
    await mkdir(cacheDir, { recursive: true });
    const tmp = `${dir}.${process.pid}.tmp`;
    await mkdir(tmp, { recursive: true });
    for (const f of out.outputFiles) await writeFile(path.join(tmp, path.basename(f.path)), f.contents);
    try {
      await rename(tmp, dir);
    } catch (e) {
      // Another process renamed the same build into place first.
      await rm(tmp, { recursive: true, force: true });
      if ((e as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return file;
}

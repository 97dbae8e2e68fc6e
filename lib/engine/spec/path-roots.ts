/**
 * Path roots: where a job may touch the local filesystem. The control plane runs as root beside
 * its users' data, so a spec given to the API names only paths inside configured roots: the
 * checkpoint root for `checkpointLocation`, the files roots for files sources, files sinks, static
 * tables and dead-letter paths. Pure (the roots are passed in; nothing here reads process.env),
 * so the API, the worker and the CLI share it.
 *
 * Resolution of a path field:
 * - `file://` URLs become their path; a files source, sink or static table reads local
 *   directories only, so any other scheme is refused there. A checkpoint or a dead-letter path may
 *   be an object-store or in-memory URL (`s3://…`, `memory://…`): no local root applies to it.
 * - a relative path resolves against the first root (for a checkpoint: the checkpoint root), not
 *   against the working directory of whichever process reads the spec;
 * - `..` is collapsed and symlinks are resolved through the nearest existing ancestor (a path that
 *   does not exist yet is judged by where its existing part really is, dangling links followed),
 *   and the roots are resolved the same way, so `/tmp` being a link does not matter.
 * The spec keeps the absolute path without `..` (`location`), so the engine opens exactly what
 * was checked; the real path (`resolved`) is what is compared with the roots and between jobs.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawSourcesOf } from './spec-sources';

export interface PathRoots {
  /** Where checkpoints live (a directory or an `s3://bucket/prefix`); undefined: unconfined. */
  checkpointRoot?: string;
  /** Directories for files sources, sinks, static tables and dead letters; undefined: unconfined. */
  filesRoots?: string[];
}

/** files: a local directory or file; dead-letter and checkpoint: also an object-store URL. */
export type PathKind = 'files' | 'dead-letter' | 'checkpoint';

export interface SpecPathField {
  /** Dotted field path, e.g. `source.options.path`, `staticTables.0.path`. */
  field: string;
  value: string;
  kind: PathKind;
}

export interface PathIssue {
  path: string;
  message: string;
  /** The path as resolved (real path), when it is a local path. */
  resolved?: string;
  roots?: string[];
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;
const MAX_LINKS = 40;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * Every path field of a job spec (raw or parsed). The files source and sink name a directory in
 * `options.path`; file static tables a file in `path`; `source.badRecordsPath` the dead-letter
 * directory; `checkpointLocation` the checkpoint. Other source and sink types name no local path.
 */
export function specPathFields(spec: unknown): SpecPathField[] {
  if (!isObj(spec)) return [];
  const out: SpecPathField[] = [];
  const sink = isObj(spec.sink) ? spec.sink : undefined;
  for (const { path: at, source: s } of rawSourcesOf(spec)) {
    const source = isObj(s) ? s : undefined;
    const srcPath = source?.type === 'files' && isObj(source.options) ? str(source.options.path) : undefined;
    if (srcPath) out.push({ field: `${at}.options.path`, value: srcPath, kind: 'files' });
    const bad = str(source?.badRecordsPath);
    if (bad) out.push({ field: `${at}.badRecordsPath`, value: bad, kind: 'dead-letter' });
  }
  const sinkPath = sink?.type === 'files' && isObj(sink.options) ? str(sink.options.path) : undefined;
  if (sinkPath) out.push({ field: 'sink.options.path', value: sinkPath, kind: 'files' });
  if (Array.isArray(spec.staticTables)) {
    spec.staticTables.forEach((t, i) => {
      const p = isObj(t) && (t.type === undefined || t.type === 'file') ? str(t.path) : undefined;
      if (p) out.push({ field: `staticTables.${i}.path`, value: p, kind: 'files' });
    });
  }
  const cp = str(spec.checkpointLocation);
  if (cp) out.push({ field: 'checkpointLocation', value: cp, kind: 'checkpoint' });
  return out;
}

/**
 * The real path of `p` (absolute): the nearest existing ancestor through realpath, the rest
 * appended; a dangling symlink on the way is followed to where it points (that is where a write
 * would land).
 */
export function realPathOf(p: string): string {
  let cur = path.resolve(p);
  const rest: string[] = [];
  for (let links = 0; ; ) {
    // lstat without throwing on a missing entry: this runs for every path of every job on a create.
    let st;
    try {
      st = lstatSync(cur, { throwIfNoEntry: false });
    } catch {
      st = undefined; // ENOTDIR, EACCES: judge by the parent
    }
    if (st?.isSymbolicLink() && links++ < MAX_LINKS) {
      cur = path.resolve(path.dirname(cur), readlinkSync(cur));
      continue;
    }
    if (st) {
      try {
        return path.join(realpathSync.native(cur), ...rest.reverse());
      } catch {
        // a link loop or an unreadable ancestor: judge by the parent
      }
    }
    const parent = path.dirname(cur);
    if (parent === cur) return path.join(cur, ...rest.reverse());
    rest.push(path.basename(cur));
    cur = parent;
  }
}

/** Whether `child` is `parent` or lies inside it (both absolute, normalized). */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith('/') ? parent : parent + '/';
  return child.startsWith(base);
}

/** How two locations relate: the same, one inside the other, or apart (null). */
export function overlapOf(a: string, b: string): 'equal' | 'inside' | 'contains' | null {
  if (a === b) return 'equal';
  if (isInside(a, b)) return 'inside';
  if (isInside(b, a)) return 'contains';
  return null;
}

/** A URL location (`s3://bucket/prefix/`) in one spelling for comparing: no trailing slashes. */
function urlKey(location: string): string {
  return location.replace(/\/+$/, '');
}

export type ResolvedPath =
  | { ok: true; location: string; key: string; local: boolean }
  | { ok: false; message: string; resolved?: string; roots?: string[] };

function rootsFor(kind: PathKind, roots: PathRoots): string[] | undefined {
  if (kind === 'checkpoint') return roots.checkpointRoot === undefined ? undefined : [roots.checkpointRoot];
  return roots.filesRoots;
}

function describeRoots(kind: PathKind, roots: string[]): string {
  const name = kind === 'checkpoint' ? 'WEIR_CHECKPOINT_ROOT' : 'WEIR_FILES_ROOTS';
  return `${name} (${roots.join(', ')})`;
}

/**
 * Resolves one path field and checks it against its roots. `location` is what the spec should
 * hold (absolute, no `..`), `key` what is compared (the real path, or the URL).
 */
export function resolvePathField(field: string, value: string, kind: PathKind, roots: PathRoots): ResolvedPath {
  if (value.includes('\0')) return { ok: false, message: `${field} contains a NUL byte; give a plain path.` };
  const allowed = rootsFor(kind, roots);
  let local = value;
  const m = SCHEME.exec(value);
  if (m) {
    const scheme = m[1].toLowerCase();
    if (scheme === 'file') {
      try {
        local = fileURLToPath(value);
      } catch (e) {
        return { ok: false, message: `${field} is not a usable file:// URL (${(e as Error).message}); give a plain path.` };
      }
    } else if (kind === 'files') {
      return { ok: false, message: `${field} must be a local path; "${scheme}://" is not a directory the files connectors can read or write.` };
    } else {
      // An object store or the in-memory store: no local root applies (its scheme is checked by
      // the engine when it builds the file manager).
      return { ok: true, location: value, key: urlKey(value), local: false };
    }
  }
  const firstRoot = allowed?.[0];
  if (!path.isAbsolute(local) && firstRoot !== undefined && SCHEME.test(firstRoot)) {
    // A relative checkpoint under an object-store root.
    const rel = path.posix.normalize(local);
    if (rel.startsWith('..')) return { ok: false, message: `${field} "${value}" leaves ${describeRoots(kind, allowed!)}; give a location inside it.`, roots: allowed };
    const location = `${urlKey(firstRoot)}/${rel}`;
    return { ok: true, location, key: urlKey(location), local: false };
  }
  // Unconfined (the CLI without roots): relative to the working directory, as before.
  const location = firstRoot !== undefined ? path.resolve(firstRoot, local) : path.resolve(local);
  const resolved = realPathOf(location);
  if (allowed === undefined) return { ok: true, location, key: resolved, local: true };
  const localRoots = allowed.filter((r) => !SCHEME.test(r));
  if (localRoots.some((r) => isInside(resolved, realPathOf(r)))) return { ok: true, location, key: resolved, local: true };
  const shown = resolved === location ? `"${resolved}"` : `"${location}" (really "${resolved}")`;
  // Leaving the field out is a way out only for a spec's checkpointLocation (a CLI's <dir> has none).
  const omittable = kind === 'checkpoint' && field.endsWith('checkpointLocation');
  const fix = localRoots.length
    ? `give a path inside ${describeRoots(kind, allowed)}${omittable ? ', or leave checkpointLocation out to get <root>/<job id>' : ''}, or ask the operator to add a root`
    : `this deployment keeps checkpoints in ${allowed.join(', ')}; ${omittable ? 'leave checkpointLocation out, or ' : ''}give a location under it`;
  return { ok: false, message: `${field} resolves to ${shown}, outside ${describeRoots(kind, allowed)}: ${fix}.`, resolved, roots: allowed };
}

export interface ConfinedSpec<T> {
  /** The spec with every path field replaced by its absolute location (when no errors). */
  spec: T;
  errors: PathIssue[];
  /** Each path field as resolved: the location stored and the key compared. */
  fields: (SpecPathField & { location: string; key: string; local: boolean })[];
}

function setAt(obj: Obj, dotted: string, v: string): Obj {
  const [head, ...rest] = dotted.split('.');
  if (rest.length === 0) return { ...obj, [head]: v };
  const child = obj[head];
  if (Array.isArray(child)) {
    const i = Number(rest[0]);
    const copy = [...child];
    copy[i] = rest.length === 1 ? v : setAt(copy[i] as Obj, rest.slice(1).join('.'), v);
    return { ...obj, [head]: copy };
  }
  return { ...obj, [head]: setAt((child ?? {}) as Obj, rest.join('.'), v) };
}

/**
 * Checks every path field of `spec` against `roots`; returns the spec with the fields rewritten
 * to absolute locations, one issue per escaping field, and the resolved fields.
 */
export function confineSpecPaths<T>(spec: T, roots: PathRoots): ConfinedSpec<T> {
  const errors: PathIssue[] = [];
  const fields: ConfinedSpec<T>['fields'] = [];
  let out = spec as unknown as Obj;
  for (const f of specPathFields(spec)) {
    const r = resolvePathField(f.field, f.value, f.kind, roots);
    if (!r.ok) {
      errors.push({ path: f.field, message: r.message, ...(r.resolved !== undefined ? { resolved: r.resolved } : {}), ...(r.roots ? { roots: r.roots } : {}) });
      continue;
    }
    fields.push({ ...f, location: r.location, key: r.key, local: r.local });
    if (r.location !== f.value) out = setAt(out, f.field, r.location);
  }
  return { spec: out as unknown as T, errors, fields };
}

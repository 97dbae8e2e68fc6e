import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { confineSpecPaths, isInside, overlapOf, realPathOf, resolvePathField, specPathFields } from './path-roots';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'weir-roots-')));
const files = path.join(base, 'files');
const cps = path.join(base, 'checkpoints');
const outside = path.join(base, 'outside');
// A sibling whose name starts with the root's: a check by string prefix would count it inside.
const filesEvil = `${files}-evil`;
for (const d of [files, cps, outside, filesEvil, path.join(files, 'in')]) mkdirSync(d, { recursive: true });
// Links inside the files root: to a directory outside, a dangling one pointing outside, one staying inside.
symlinkSync(outside, path.join(files, 'to-outside'));
symlinkSync(path.join(outside, 'not-yet'), path.join(files, 'dangling'));
symlinkSync(path.join(files, 'in'), path.join(files, 'to-in'));
symlinkSync(filesEvil, path.join(files, 'to-sibling'));
const roots = { checkpointRoot: cps, filesRoots: [files] };

afterAll(() => rmSync(base, { recursive: true, force: true }));

/**
 * Whether `child` is `parent` or under it, judged by whole path segments: the oracle for
 * `isInside`, written independently of it.
 */
function insideBySegments(child: string, parent: string): boolean {
  const c = child.split('/').filter(Boolean);
  const p = parent.split('/').filter(Boolean);
  return c.length >= p.length && p.every((s, i) => c[i] === s);
}

const files1 = (v: string) => resolvePathField('source.options.path', v, 'files', roots);

describe('resolvePathField', () => {
  it.each([
    ['/', '/'],
    ['/root', '/root'],
    ['/etc/ssh', '/etc/ssh'],
    ['../../', path.resolve(files, '../../')],
    ['in/../../outside', outside],
    ['file:///etc', '/etc'],
    ['to-outside', outside],
    ['to-outside/deeper/x', path.join(outside, 'deeper/x')],
    ['dangling/x', path.join(outside, 'not-yet/x')],
  ])('refuses %s, naming the field, the resolved path and the roots', (value, resolved) => {
    const r = files1(value);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.resolved).toBe(realPathOf(resolved));
    expect(r.roots).toEqual([files]);
    expect(r.message).toContain('source.options.path');
    expect(r.message).toContain('WEIR_FILES_ROOTS');
    expect(r.message).toContain(r.resolved!);
  });

  it('resolves a relative path against the first root and keeps the spec’s location free of ..', () => {
    expect(files1('in')).toMatchObject({ ok: true, location: path.join(files, 'in'), key: path.join(files, 'in') });
    expect(files1('./in/../in/new')).toMatchObject({ ok: true, location: path.join(files, 'in/new') });
    expect(files1(`file://${files}/in`)).toMatchObject({ ok: true, location: path.join(files, 'in') });
    // A link that stays inside the root is fine; the key is where it really leads.
    expect(files1('to-in')).toMatchObject({ ok: true, location: path.join(files, 'to-in'), key: path.join(files, 'in') });
  });

  it('a files connector reads local directories only; a checkpoint or dead-letter path may be an object store', () => {
    expect(files1('s3://bucket/in').ok).toBe(false);
    expect(resolvePathField('checkpointLocation', 's3://bucket/cp/job', 'checkpoint', roots)).toMatchObject({ ok: true, location: 's3://bucket/cp/job', local: false });
    expect(resolvePathField('source.badRecordsPath', 'memory://bad', 'dead-letter', roots)).toMatchObject({ ok: true, local: false });
  });

  it('checkpoints are judged against the checkpoint root, relative ones resolved under it', () => {
    expect(resolvePathField('checkpointLocation', 'job-1', 'checkpoint', roots)).toMatchObject({ ok: true, location: path.join(cps, 'job-1') });
    const r = resolvePathField('checkpointLocation', path.join(files, 'cp'), 'checkpoint', roots);
    expect(r).toMatchObject({ ok: false, roots: [cps] });
    expect(!r.ok && r.message).toContain('WEIR_CHECKPOINT_ROOT');
    // An object-store checkpoint root: a local checkpoint has no root, a relative one goes under the prefix.
    const s3 = { checkpointRoot: 's3://b/cp', filesRoots: [files] };
    expect(resolvePathField('checkpointLocation', cps, 'checkpoint', s3).ok).toBe(false);
    expect(resolvePathField('checkpointLocation', 'job-1', 'checkpoint', s3)).toMatchObject({ ok: true, location: 's3://b/cp/job-1' });
    expect(resolvePathField('checkpointLocation', '../x', 'checkpoint', s3).ok).toBe(false);
  });

  it('refuses a NUL byte', () => {
    expect(files1('in\0/x').ok).toBe(false);
  });

  it('unconfined (no roots): anything goes, relative to the working directory', () => {
    expect(resolvePathField('source.options.path', '/etc', 'files', {})).toMatchObject({ ok: true, location: '/etc' });
    expect(resolvePathField('source.options.path', 'in', 'files', {})).toMatchObject({ ok: true, location: path.resolve('in') });
  });

  it('property: whatever the segments, an accepted path lies inside the root (really) and its location has no ..', () => {
    const seg = fc.constantFrom('..', '.', 'in', 'to-outside', 'to-in', 'to-sibling', 'dangling', 'files-evil', 'x', '');
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 7 }), fc.boolean(), (segs, absolute) => {
        const v = (absolute ? files + '/' : '') + segs.join('/');
        if (v === '') return;
        const r = files1(v);
        if (!r.ok) return;
        expect(r.location.split('/')).not.toContain('..');
        expect(insideBySegments(realPathOf(r.location), files), v).toBe(true);
        expect(insideBySegments(r.key, files), v).toBe(true);
      }),
      // The sibling whose name extends the root's, reached by .. and by a link, always tried.
      { numRuns: 500, examples: [[['..', 'files-evil'], false], [['..', 'files-evil', 'x'], true], [['to-sibling'], false]] },
    );
  });

  it('property: isInside agrees with a comparison of whole path segments', () => {
    const seg = fc.constantFrom('files', 'files-evil', 'file', 'in', 'x');
    const abs = fc.array(seg, { minLength: 0, maxLength: 4 }).map((s) => '/' + s.join('/'));
    fc.assert(
      fc.property(abs, abs, (child, parent) => {
        expect(isInside(child, parent), `${child} in ${parent}`).toBe(insideBySegments(child, parent));
      }),
      { numRuns: 1000, examples: [['/x/files-evil', '/x/files'], ['/x/files-evil/in', '/x/files'], ['/x/files/in', '/x/files']] },
    );
  });
});

describe('specPathFields and confineSpecPaths', () => {
  const spec = {
    name: 'j',
    source: { name: 's', type: 'files', options: { path: 'in' }, badRecordsPath: 'bad', schema: [] },
    sink: { type: 'files', options: { path: 'out' } },
    staticTables: [{ name: 't', path: 'dim.json' }, { name: 'p', type: 'postgres', connectionString: 'postgres://x/y', table: 't' }],
    checkpointLocation: 'cp-j',
  };

  it('finds every path field of a spec, and none of a connector that names no local path', () => {
    expect(specPathFields(spec).map((f) => `${f.field}:${f.kind}`)).toEqual([
      'source.options.path:files',
      'source.badRecordsPath:dead-letter',
      'sink.options.path:files',
      'staticTables.0.path:files',
      'checkpointLocation:checkpoint',
    ]);
    expect(specPathFields({ source: { type: 'rate', options: { path: '/etc' } }, sink: { type: 'console', options: { path: '/etc' } } })).toEqual([]);
  });

  it('rewrites each field to its absolute location, leaving the input untouched', () => {
    const c = confineSpecPaths(spec, roots);
    expect(c.errors).toEqual([]);
    expect(c.spec.source.options.path).toBe(path.join(files, 'in'));
    expect(c.spec.source.badRecordsPath).toBe(path.join(files, 'bad'));
    expect(c.spec.sink.options.path).toBe(path.join(files, 'out'));
    expect(c.spec.staticTables[0].path).toBe(path.join(files, 'dim.json'));
    expect(c.spec.staticTables[1]).toEqual(spec.staticTables[1]);
    expect(c.spec.checkpointLocation).toBe(path.join(cps, 'cp-j'));
    expect(spec.source.options.path).toBe('in');
  });

  it('reports one issue per escaping field', () => {
    const c = confineSpecPaths({ ...spec, sink: { type: 'files', options: { path: '/root' } }, checkpointLocation: '/etc/ssh' }, roots);
    expect(c.errors.map((e) => e.path)).toEqual(['sink.options.path', 'checkpointLocation']);
    expect(c.errors[1]).toMatchObject({ resolved: realPathOf('/etc/ssh'), roots: [cps] });
  });
});

describe('overlapOf', () => {
  it('tells equal, inside, contains and apart, on path boundaries', () => {
    expect(overlapOf('/a/b', '/a/b')).toBe('equal');
    expect(overlapOf('/a/b/c', '/a/b')).toBe('inside');
    expect(overlapOf('/a', '/a/b')).toBe('contains');
    expect(overlapOf('/a/bc', '/a/b')).toBeNull();
    expect(overlapOf('/', '/a')).toBe('contains');
  });
});

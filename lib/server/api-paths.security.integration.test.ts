/**
 * Path confinement through the real route handlers: every path field of a spec must lie inside
 * its root (422 naming the field, the resolved path and the roots), a checkpoint belongs to one
 * job (409 naming the other), the checkpoint file endpoint serves only the engine's files, a
 * reset deletes only the engine's files of a real checkpoint, never through a symlink, and no job
 * may point into the savepoints directory, whose savepoints outlive any reset or delete.
 *
 * The files root is this test's own temp dir (not the whole system temp dir), so anything
 * outside it is "outside".
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointFileManagerFor, MicroBatchExecution, parseJobSpec, realPathOf } from '@/lib/engine';
import { verifySavepoint } from './services/savepoint-manifest';
import { setupApiTestKit, filesSpec, type ApiTestKit } from './testing/api-test-kit';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'weir-sec-paths-')));
const filesRoot = path.join(base, 'files');
const outside = path.join(base, 'outside');
// A second files root holding the checkpoint root, so that ownership between a checkpoint and
// another job's data can be reached past the roots check.
const shared = path.join(base, 'shared');
const cpRoot = path.join(shared, 'cp');
for (const d of [filesRoot, outside, cpRoot]) mkdirSync(d, { recursive: true });
// The machine's /etc/ssh may be absent: this stands in for it, outside every root.
const secretDir = path.join(outside, 'ssh');
mkdirSync(secretDir);
writeFileSync(path.join(secretDir, 'ssh_config'), 'Host *\n  SecretOption yes\n');
symlinkSync(outside, path.join(filesRoot, 'link-out'));

let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');
let one: typeof import('@/app/api/jobs/[id]/route');
let validate: typeof import('@/app/api/jobs/validate/route');
let draft: typeof import('@/app/api/jobs/draft-check/route');
let tree: typeof import('@/app/api/jobs/[id]/checkpoint/route');
let file: typeof import('@/app/api/jobs/[id]/checkpoint/file/route');
let reset: typeof import('@/app/api/jobs/[id]/reset-checkpoint/route');
let savepoints: typeof import('@/app/api/jobs/[id]/savepoints/route');

beforeAll(async () => {
  kit = await setupApiTestKit({ filesRoots: [filesRoot, shared], checkpointRoot: cpRoot });
  jobs = await import('@/app/api/jobs/route');
  one = await import('@/app/api/jobs/[id]/route');
  validate = await import('@/app/api/jobs/validate/route');
  draft = await import('@/app/api/jobs/draft-check/route');
  tree = await import('@/app/api/jobs/[id]/checkpoint/route');
  file = await import('@/app/api/jobs/[id]/checkpoint/file/route');
  reset = await import('@/app/api/jobs/[id]/reset-checkpoint/route');
  savepoints = await import('@/app/api/jobs/[id]/savepoints/route');
});
afterAll(async () => {
  await kit?.teardown();
  rmSync(base, { recursive: true, force: true });
});

const create = (spec: unknown) => kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec } });
const dirFor = (name: string) => path.join(filesRoot, name);
type Issue = { path: string; message: string; resolved?: string; roots?: string[] };
const issues = (res: { body: { error: { details: { errors: Issue[] } } } }) => res.body.error.details.errors;

/** Sets one path field of a valid spec. */
function withPath(name: string, field: string, value: string) {
  const s = filesSpec(name, dirFor(name)) as Record<string, unknown> & { source: Record<string, unknown>; sink: { options: Record<string, unknown> } };
  if (field === 'source.options.path') s.source = { ...s.source, options: { ...(s.source.options as object), path: value } };
  if (field === 'sink.options.path') s.sink = { ...s.sink, options: { ...s.sink.options, path: value } };
  if (field === 'source.badRecordsPath') s.source = { ...s.source, onBadRecord: 'dead-letter', badRecordsPath: value };
  if (field === 'staticTables.0.path') {
    s.staticTables = [{ name: 'dim', path: value, schema: [{ name: 'user', type: 'string' }] }];
  }
  if (field === 'checkpointLocation') s.checkpointLocation = value;
  return s;
}

const FIELDS = ['source.options.path', 'sink.options.path', 'source.badRecordsPath', 'staticTables.0.path', 'checkpointLocation'];
const ESCAPES = ['/', '/root', '../../', 'file:///etc', 'link-out/x'];

describe('every path field is confined to its root', () => {
  for (const [fi, field] of FIELDS.entries()) {
    it.each(ESCAPES.map((v, i) => [v, i] as const))(`${field} = %s: 422 naming the field, the resolved path and the roots; nothing saved`, async (escape, i) => {
      const isCp = field === 'checkpointLocation';
      // A relative checkpoint resolves under the checkpoint root, where `link-out` does not exist.
      const value = isCp && escape === 'link-out/x' ? path.join(filesRoot, escape) : escape;
      const name = `esc-${fi}-${i}`;
      const res = await create(withPath(name, field, value));
      expect(res.status).toBe(422);
      const e = issues(res).find((x) => x.path === field);
      expect(e, JSON.stringify(res.body)).toBeDefined();
      const roots = isCp ? [cpRoot] : [filesRoot, shared];
      const expected = realPathOf(value.startsWith('file://') ? '/etc' : path.resolve(isCp ? cpRoot : filesRoot, value));
      expect(e!).toMatchObject({ resolved: expected, roots });
      expect(e!.message).toContain(isCp ? 'WEIR_CHECKPOINT_ROOT' : 'WEIR_FILES_ROOTS');
      expect(e!.message).toContain(expected);
      expect(e!.message).toContain(roots[0]);
      expect(await kit.db.job.count({ where: { name } })).toBe(0);
    });
  }

  it('a checkpoint in /etc/ssh is refused, and so is one relative that climbs out of the checkpoint root', async () => {
    const r1 = await create(withPath('cp-etc', 'checkpointLocation', '/etc/ssh'));
    expect(r1.status).toBe(422);
    expect(issues(r1)[0]).toMatchObject({ path: 'checkpointLocation', roots: [cpRoot] });
    const r2 = await create(withPath('cp-up', 'checkpointLocation', '../..'));
    expect(r2.status).toBe(422);
    expect(issues(r2)[0].path).toBe('checkpointLocation');
  });

  it('validate and draft-check (viewer) report the same refusal without saving', async () => {
    const spec = withPath('v-esc', 'source.options.path', '/etc/ssh');
    const v = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec } });
    expect(v.status).toBe(200);
    expect(v.body.ok).toBe(false);
    expect(v.body.errors[0]).toMatchObject({ path: 'source.options.path', resolved: realPathOf('/etc/ssh'), roots: [filesRoot, shared] });
    const d = await kit.call(draft.POST, '/api/jobs/draft-check', { method: 'POST', token: kit.tokens.viewer, body: { spec } });
    expect(d.body.ok).toBe(false);
    expect(d.body.errors.map((e: Issue) => e.path)).toContain('source.options.path');
  });

  it('a relative path is stored resolved against the first root; an update cannot move a path out', async () => {
    const res = await create({ ...filesSpec('rel', dirFor('rel')), source: { ...filesSpec('rel', dirFor('rel')).source, options: { path: 'rel/in', format: 'json' } } });
    expect(res.status).toBe(201);
    expect(res.body.job.spec.source.options.path).toBe(path.join(filesRoot, 'rel/in'));
    const id = res.body.job.id;
    const put = await kit.call(one.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: withPath('rel', 'sink.options.path', '/root') } });
    expect(put.status).toBe(422);
    expect(issues(put)[0]).toMatchObject({ path: 'sink.options.path', resolved: '/root' });
  });
});

describe('a checkpoint belongs to one job', () => {
  let first: { id: string; checkpointLocation: string };
  beforeAll(async () => {
    const res = await create(filesSpec('owner', dirFor('owner'), { checkpointLocation: path.join(cpRoot, 'group', 'owner') }));
    expect(res.status).toBe(201);
    first = res.body.job;
  });

  const refusedNaming = async (res: Awaited<ReturnType<typeof create>>, other: { id: string; name: string }, intruder: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.message).toContain(other.name);
    expect(res.body.error.details.otherJob).toEqual({ id: other.id, name: other.name });
    expect(await kit.db.job.count({ where: { name: intruder } })).toBe(0);
  };

  it.each([
    ['the same checkpoint', () => first.checkpointLocation],
    ['a checkpoint inside it', () => path.join(first.checkpointLocation, 'state')],
    ['a checkpoint containing it', () => path.join(cpRoot, 'group')],
  ])('%s as another job’s: 409 naming the other job', async (_what, location) => {
    await refusedNaming(await create(withPath('intruder', 'checkpointLocation', location())), { id: first.id, name: 'owner' }, 'intruder');
  });

  it('an update onto another job’s checkpoint: 409 as well', async () => {
    const res = await create(filesSpec('mover', dirFor('mover')));
    const id = res.body.job.id;
    const put = await kit.call(one.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: withPath('mover', 'checkpointLocation', first.checkpointLocation) } });
    expect(put.status).toBe(409);
    expect(put.body.error.message).toContain('owner');
  });

  it('a job whose source lies inside another job’s checkpoint: 409 (a viewer could read it through the sink)', async () => {
    await refusedNaming(await create(withPath('reader', 'source.options.path', path.join(first.checkpointLocation, 'offsets'))), { id: first.id, name: 'owner' }, 'reader');
  });

  it('a checkpoint on, or inside, another job’s output directory: 409', async () => {
    const writer = await create(withPath('writer', 'sink.options.path', path.join(cpRoot, 'w-out')));
    expect(writer.status).toBe(201);
    const other = { id: writer.body.job.id, name: 'writer' };
    await refusedNaming(await create(withPath('on-out', 'checkpointLocation', path.join(cpRoot, 'w-out'))), other, 'on-out');
    await refusedNaming(await create(withPath('in-out', 'checkpointLocation', path.join(cpRoot, 'w-out', 'sub'))), other, 'in-out');
  });

  it('a sink inside the job’s own checkpoint: 422 on the sink’s field', async () => {
    const s = withPath('self', 'checkpointLocation', path.join(cpRoot, 'self'));
    const res = await create({ ...s, sink: { type: 'files', options: { path: path.join(cpRoot, 'self', 'out') } } });
    expect(res.status).toBe(422);
    expect(issues(res).map((e) => e.path)).toEqual(['sink.options.path']);
  });

  it('two jobs may share input and output directories', async () => {
    const a = await create({ ...filesSpec('share-a', dirFor('share')) });
    const b = await create({ ...filesSpec('share-b', dirFor('share')) });
    expect([a.status, b.status]).toEqual([201, 201]);
  });
});

describe('the checkpoint file endpoint serves only the engine’s files', () => {
  const read = (id: string, p: string, token = kit.tokens.viewer) => kit.call(file.GET, `x?path=${encodeURIComponent(p)}`, { token, params: { id } });

  it('a viewer cannot read ssh_config through an old job whose checkpoint is that directory', async () => {
    const res = await create(filesSpec('old-ssh', dirFor('old-ssh')));
    const id = res.body.job.id;
    // As a job created before the roots were enforced could be.
    await kit.db.job.update({ where: { id }, data: { checkpointLocation: secretDir } });
    const r = await read(id, 'ssh_config');
    expect(r.status).toBe(404);
    expect(JSON.stringify(r.body)).not.toContain('SecretOption');
    // Even an engine name is not read from outside the checkpoint root.
    writeFileSync(path.join(secretDir, 'metadata'), 'SecretOption');
    const m = await read(id, 'metadata');
    expect(m.status).toBe(409);
    expect(JSON.stringify(m.body)).not.toContain('SecretOption');
    const t = await kit.call(tree.GET, 'x', { token: kit.tokens.viewer, params: { id } });
    expect(t.status).toBe(409);
    expect(JSON.stringify(t.body)).not.toContain('ssh_config');
  });

  it('inside the root: foreign files and anything reached through a symlink are 404; engine files are served', async () => {
    const res = await create(filesSpec('links', dirFor('links')));
    const { id, checkpointLocation: cp } = res.body.job;
    mkdirSync(path.join(cp, 'offsets'), { recursive: true });
    writeFileSync(path.join(cp, 'offsets', '0'), 'v1\n{}\n{"logOffset":0}');
    writeFileSync(path.join(cp, 'ssh_config'), 'SecretOption');
    symlinkSync(path.join(secretDir, 'ssh_config'), path.join(cp, 'metadata'));
    symlinkSync(secretDir, path.join(cp, 'commits'));
    writeFileSync(path.join(secretDir, '0'), 'SecretOption');
    // A state schema linked to a JSON file outside: the state inspection must not read it either.
    mkdirSync(path.join(cp, 'state', '0', '_metadata'), { recursive: true });
    mkdirSync(path.join(cp, 'state', '0', '0'), { recursive: true });
    writeFileSync(path.join(cp, 'state', '0', '0', '1.delta'), 'x');
    writeFileSync(path.join(secretDir, 'schema.json'), JSON.stringify({ operatorName: 'SecretOption', parts: ['SecretOption'] }));
    symlinkSync(path.join(secretDir, 'schema.json'), path.join(cp, 'state', '0', '_metadata', 'schema'));
    expect((await read(id, 'offsets/0')).body).toMatchObject({ path: 'offsets/0', content: 'v1\n{}\n{"logOffset":0}' });
    for (const p of ['ssh_config', 'metadata', 'commits/0', 'offsets', 'sources/0', 'state/x', 'state/0/_metadata/schema']) {
      const r = await read(id, p);
      expect(r.status, p).toBe(404);
      expect(JSON.stringify(r.body)).not.toContain('SecretOption');
    }
    const t = await kit.call(tree.GET, 'x', { token: kit.tokens.viewer, params: { id } });
    expect(t.body.files.map((f: { path: string }) => f.path)).toEqual(['offsets/0', 'state/0/0/1.delta']);
    expect(t.body.otherEntries).toBe(4);
    expect(t.body.state).toEqual([expect.objectContaining({ operatorId: 0, operatorName: null })]);
    expect(JSON.stringify(t.body)).not.toContain('SecretOption');
  });
});

describe('reset and delete remove only the engine’s files', () => {
  const doReset = (id: string, name: string) => kit.call(reset.POST, 'x', { method: 'POST', token: kit.tokens.admin, params: { id }, body: { confirm: name } });

  it('refuses a directory that is not a Weir checkpoint, deleting nothing', async () => {
    const res = await create(filesSpec('not-cp', dirFor('not-cp')));
    const { id, checkpointLocation: cp } = res.body.job;
    mkdirSync(path.join(cp, 'home', '.ssh'), { recursive: true });
    writeFileSync(path.join(cp, 'home', '.ssh', 'id_rsa'), 'key');
    writeFileSync(path.join(cp, 'notes.txt'), 'mine');
    writeFileSync(path.join(cp, 'metadata'), 'not weir');
    const r = await doReset(id, 'not-cp');
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/not a Weir checkpoint.*nothing was deleted/);
    for (const f of ['home/.ssh/id_rsa', 'notes.txt', 'metadata']) expect(existsSync(path.join(cp, f)), f).toBe(true);
    const d = await kit.call(one.DELETE, `/api/jobs/${id}?deleteCheckpoint=true&confirm=not-cp`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });
    expect(d.status).toBe(409);
    expect(existsSync(path.join(cp, 'notes.txt'))).toBe(true);
    expect(await kit.db.job.count({ where: { id } })).toBe(1);
  });

  it('a checkpoint holding a foreign file: the engine’s files go, the foreign one stays, and the answer says so', async () => {
    const res = await create(filesSpec('mixed', dirFor('mixed')));
    const { id, checkpointLocation: cp } = res.body.job;
    mkdirSync(path.join(cp, 'offsets'), { recursive: true });
    mkdirSync(path.join(cp, 'state', '0', '0'), { recursive: true });
    writeFileSync(path.join(cp, 'metadata'), '{"id":"q-1"}');
    writeFileSync(path.join(cp, 'offsets', '0'), 'v1\n{}\n{"logOffset":0}');
    writeFileSync(path.join(cp, 'offsets', '.0.123.1.tmp'), 'half a write');
    writeFileSync(path.join(cp, 'state', '0', '0', '1.delta'), 'x');
    // progress/N is the engine's too: a reset that left it would feed the old query's batches to
    // the history backfill of the new one.
    mkdirSync(path.join(cp, 'progress'), { recursive: true });
    writeFileSync(path.join(cp, 'progress', '0'), '{"batchId":0}');
    writeFileSync(path.join(cp, 'README'), 'keep me');
    writeFileSync(path.join(cp, 'offsets', 'keep.txt'), 'keep me too');
    // A symlinked state operator dir pointing outside, with engine-like names there: never followed.
    mkdirSync(path.join(outside, 'victim', '0'), { recursive: true });
    writeFileSync(path.join(outside, 'victim', '0', '1.delta'), 'precious');
    symlinkSync(path.join(outside, 'victim'), path.join(cp, 'state', '1'));
    const r = await doReset(id, 'mixed');
    expect(r.status).toBe(200);
    expect(r.body.deletedFiles).toBe(4);
    expect(r.body.keptEntries.sort()).toEqual(['README', 'offsets/keep.txt', 'state/1']);
    expect(existsSync(path.join(cp, 'progress'))).toBe(false);
    expect(r.body.message).toMatch(/3 entries .* not Weir's .* left in place/);
    expect(existsSync(path.join(cp, 'metadata'))).toBe(false);
    expect(existsSync(path.join(cp, 'offsets', '0'))).toBe(false);
    expect(existsSync(path.join(cp, 'offsets', '.0.123.1.tmp'))).toBe(false);
    expect(existsSync(path.join(cp, 'state', '0'))).toBe(false);
    expect(readFileSync(path.join(cp, 'README'), 'utf8')).toBe('keep me');
    expect(readFileSync(path.join(cp, 'offsets', 'keep.txt'), 'utf8')).toBe('keep me too');
    expect(readFileSync(path.join(outside, 'victim', '0', '1.delta'), 'utf8')).toBe('precious');
  });

  it('an old job whose checkpoint is outside the root: nothing is deleted', async () => {
    const res = await create(filesSpec('old-home', dirFor('old-home')));
    const id = res.body.job.id;
    const home = path.join(outside, 'home');
    mkdirSync(path.join(home, 'offsets'), { recursive: true });
    writeFileSync(path.join(home, 'offsets', '0'), 'v1');
    writeFileSync(path.join(home, 'metadata'), '{"id":"q"}');
    await kit.db.job.update({ where: { id }, data: { checkpointLocation: home } });
    const r = await doReset(id, 'old-home');
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('WEIR_CHECKPOINT_ROOT');
    expect(existsSync(path.join(home, 'offsets', '0'))).toBe(true);
    expect(existsSync(path.join(home, 'metadata'))).toBe(true);
  });
});

describe('savepoints are never a job’s checkpoint', () => {
  const spDir = path.join(cpRoot, 'savepoints');
  const doReset = (id: string, name: string) => kit.call(reset.POST, 'x', { method: 'POST', token: kit.tokens.admin, params: { id }, body: { confirm: name, acknowledgeReprocessing: true } });
  const doDelete = (id: string, name: string) =>
    kit.call(one.DELETE, `/api/jobs/${id}?deleteCheckpoint=true&confirm=${name}&acknowledgeReprocessing=true`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });

  it.each([
    ['checkpointLocation', 'savepoints', 'relative, the directory itself'],
    ['checkpointLocation', path.join(spDir, 'some-job', 'some-savepoint'), 'a savepoint inside it'],
    ['checkpointLocation', cpRoot, 'the checkpoint root, which contains it'],
    ['sink.options.path', path.join(spDir, 'out'), 'a sink writing into it'],
    ['source.options.path', spDir, 'a source reading it'],
  ])('%s = %s (%s): 422 naming the field and the savepoints directory; nothing saved', async (field, value) => {
    const name = `sp-${FIELDS.indexOf(field)}-${path.basename(value)}`;
    const res = await create(withPath(name, field, value));
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const e = issues(res).find((x) => x.path === field);
    expect(e, JSON.stringify(res.body)).toBeDefined();
    expect(e!.message).toContain(`the savepoints directory "${spDir}"`);
    expect(e!.message).toMatch(/a location outside/);
    expect(await kit.db.job.count({ where: { name } })).toBe(0);
  });

  it('validate reports the same refusal; an update cannot move a checkpoint there either', async () => {
    const v = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: withPath('sp-v', 'checkpointLocation', path.join(spDir, 'x')) } });
    expect(v.body.ok).toBe(false);
    expect(v.body.errors.map((e: Issue) => e.path)).toContain('checkpointLocation');
    const res = await create(filesSpec('sp-mover', dirFor('sp-mover')));
    expect(res.status).toBe(201);
    const id = res.body.job.id;
    const put = await kit.call(one.PUT, `/api/jobs/${id}`, {
      method: 'PUT',
      token: kit.tokens.admin,
      params: { id },
      body: { spec: withPath('sp-mover', 'checkpointLocation', path.join(spDir, id, 'x')), acknowledgeReprocessing: true },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(422);
    expect(issues(put).map((e) => e.path)).toEqual(['checkpointLocation']);
  });

  it('a savepoint survives the reset and the delete of its job, and of an old job pointed at it', async () => {
    const created = await create(filesSpec('sp-owner', dirFor('sp-owner')));
    expect(created.status).toBe(201);
    const { id, checkpointLocation: cp } = created.body.job;
    // A real checkpoint with two committed batches, written by the engine.
    mkdirSync(path.join(dirFor('sp-owner'), 'in'), { recursive: true });
    writeFileSync(path.join(dirFor('sp-owner'), 'in', 'a.json'), '{"user":"a","n":1}\n{"user":"b","n":2}\n');
    const stored = await kit.db.job.findUniqueOrThrow({ where: { id } });
    const parsed = parseJobSpec({ ...(stored.spec as object), checkpointLocation: stored.checkpointLocation });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const exec = new MicroBatchExecution({ spec: parsed.spec });
    await exec.processAllAvailable();
    writeFileSync(path.join(dirFor('sp-owner'), 'in', 'b.json'), '{"user":"c","n":3}\n');
    await exec.processAllAvailable();
    await exec.stop();
    const taken = await kit.call(savepoints.POST, `/api/jobs/${id}/savepoints`, { method: 'POST', token: kit.tokens.operator, params: { id }, body: { name: 'keep' } });
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    const location: string = taken.body.location;
    expect(location.startsWith(spDir + '/')).toBe(true);
    const copy = checkpointFileManagerFor(location);
    const files = (await verifySavepoint(copy)).files.length;
    expect(files).toBeGreaterThanOrEqual(5);

    // An old job pointed at the savepoint, as one stored before the rule could be: its reset and
    // its delete with the checkpoint are refused with nothing deleted, and say what to do.
    const old = await create(filesSpec('sp-old', dirFor('sp-old')));
    const oldId = old.body.job.id;
    await kit.db.job.update({ where: { id: oldId }, data: { checkpointLocation: location } });
    const r = await doReset(oldId, 'sp-old');
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.error.message).toMatch(/savepoints directory .* nothing was deleted/);
    expect(r.body.error.message).toMatch(/outside that directory/);
    const d = await doDelete(oldId, 'sp-old');
    expect(d.status, JSON.stringify(d.body)).toBe(409);
    expect(await kit.db.job.count({ where: { id: oldId } })).toBe(1);
    expect((await verifySavepoint(copy)).files.length).toBe(files);

    // The job's own reset empties its checkpoint and leaves its savepoint whole.
    const own = await doReset(id, 'sp-owner');
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.deletedFiles).toBeGreaterThan(0);
    expect(existsSync(path.join(cp, 'commits', '1'))).toBe(false);
    expect((await verifySavepoint(copy)).files.length).toBe(files);

    // And so does deleting the job with its checkpoint.
    const del = await doDelete(id, 'sp-owner');
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(await kit.db.job.count({ where: { id } })).toBe(0);
    expect((await verifySavepoint(copy)).files.length).toBe(files);
    expect(readFileSync(path.join(location, 'commits', '1'), 'utf8').length).toBeGreaterThan(0);
  }, 120_000);
});

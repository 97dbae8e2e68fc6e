import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import { mustParse } from '../execution/testing/test-fixtures';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { parseJobSpec, withSourcesReconciled, type JobSpec } from './job-spec';

const schema = [{ name: 'id', type: 'long' }];
const memory = (name: string, stream: string) => ({ name, type: 'memory', options: { stream }, schema });
let n = 0;

describe('withSourcesReconciled: a parsed spec whose source was replaced after parsing', () => {
  it('leaves a spec as parsed alone', () => {
    const spec = mustParse({ name: 'j', source: memory('events', 's'), sql: 'SELECT id FROM events', sink: { type: 'memory', options: { table: 't' } }, checkpointLocation: 'memory://j' });
    expect(withSourcesReconciled(spec)).toBe(spec);
  });

  it('one source: `source` wins, as the raw spec\'s rule', () => {
    const spec = mustParse({ name: 'j', source: memory('events', 'old'), sql: 'SELECT id FROM events', sink: { type: 'memory', options: { table: 't' } }, checkpointLocation: 'memory://j' });
    const replaced: JobSpec = { ...spec, source: { ...spec.source, options: { stream: 'new' } } };
    expect(withSourcesReconciled(replaced).sources).toEqual([replaced.source]);
  });

  it('several sources: a `source` that is not sources[0] is refused, not guessed at', () => {
    const spec = mustParse({ name: 'j', sources: [memory('a', 'a'), memory('b', 'b')], sql: 'SELECT id FROM a', sink: { type: 'memory', options: { table: 't' } }, checkpointLocation: 'memory://j' });
    expect(withSourcesReconciled({ ...spec, source: spec.sources[0] })).toEqual(spec);
    expect(() => withSourcesReconciled({ ...spec, source: { ...spec.source, options: { stream: 'c' } } })).toThrow('a spec of several sources changes one in sources');
  });

  it('MicroBatchExecution runs the replaced source, not the one parsed', async () => {
    const id = `reconciled-${++n}-${process.pid}`;
    const spec = mustParse({ name: id, source: memory('events', `${id}-old`), sql: 'SELECT id FROM events', sink: { type: 'memory', options: { table: id } }, trigger: { type: 'available-now' }, checkpointLocation: `memory://${id}` });
    MemoryStream.named(`${id}-old`).addData({ id: 1 });
    MemoryStream.named(`${id}-new`).addData({ id: 2 });
    const q = new MicroBatchExecution({ spec: { ...spec, source: { ...spec.source, options: { stream: `${id}-new` } } }, checkpoint: new InMemoryCheckpointFileManager() });
    await q.processAllAvailable();
    await q.stop();
    expect(MemorySinkTable.named(id).rows).toEqual([{ id: 2 }]);
  });
});

describe('static table names', () => {
  const spec = (staticTables: unknown[]) => ({ name: 'j', sources: [memory('a', 'a'), memory('b', 'b')], staticTables, sql: 'SELECT id FROM a', sink: { type: 'memory', options: { table: 't' } }, checkpointLocation: 'memory://j' });
  const table = (name: string) => ({ name, path: '/tmp/dim.json', schema });
  const nameErrors = (staticTables: unknown[]) => {
    const r = parseJobSpec(spec(staticTables));
    return r.ok ? [] : r.errors.filter((e) => /\.name$/.test(e.path)).map((e) => `${e.path}: ${e.message}`);
  };

  it('two static tables of one name, or one named as a source (in any case), are refused at the second name', () => {
    expect(nameErrors([table('dim'), table('other')])).toEqual([]);
    expect(nameErrors([table('dim'), table('DIM')])).toEqual(['staticTables.1.name: duplicate name "DIM": another static table has it, and FROM and JOIN name each source and static table by its name']);
    expect(nameErrors([table('other'), table('b')])).toEqual(['staticTables.1.name: duplicate name "b": a source has it, and FROM and JOIN name each source and static table by its name']);
  });
});

import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { CorruptCheckpointError, IncompatibleQueryChangeError } from '../errors';
import { schemaFilePath, StateSchemaCompatibilityChecker, type StatefulOperatorDescriptor } from './state-schema-compatibility-checker';

const agg: StatefulOperatorDescriptor = {
  operatorId: 0,
  operatorName: 'aggregate',
  parts: { 'grouping keys': 'region', aggregates: 'count(*), sum(amount)', window: '(none)', sources: 'FileSource[/in]' },
  keySchema: [{ name: 'region', type: 'string' }],
  valueSchema: [{ name: 'count', type: 'long' }, { name: 'sum', type: 'double' }],
};

async function refusal(p: Promise<unknown>): Promise<IncompatibleQueryChangeError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(IncompatibleQueryChangeError);
  return e as IncompatibleQueryChangeError;
}

describe('StateSchemaCompatibilityChecker', () => {
  it('records the descriptor on the first start and accepts the same plan on restart', async () => {
    const fm = new InMemoryCheckpointFileManager();
    expect(await new StateSchemaCompatibilityChecker(fm).check([agg], 'memory://cp', false)).toEqual({ created: [0], verified: [] });
    expect(JSON.parse((await fm.read(schemaFilePath(0))).toString()).parts['grouping keys']).toBe('region');
    expect(await new StateSchemaCompatibilityChecker(fm).check([agg], 'memory://cp', true)).toEqual({ created: [], verified: [0] });
  });

  it.each([
    ['grouping keys', 'country'],
    ['aggregates', 'count(*)'],
    ['window', 'window(ts, 10 minutes)'],
    ['sources', 'FileSource[/other]'],
  ])('refuses a changed %s, naming old, new and both ways out', async (part, changed) => {
    const fm = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm).check([agg], 'memory://cp', false);
    const e = await refusal(new StateSchemaCompatibilityChecker(fm).check([{ ...agg, parts: { ...agg.parts, [part]: changed } }], 'memory://cp', true));
    expect(e.code).toBe('INCOMPATIBLE_QUERY_CHANGE');
    expect(e.message).toContain(`the ${part} of stateful operator 0 (aggregate) changed from ${agg.parts[part]} to ${changed}`);
    expect(e.message).toMatch(/revert the change, or start the query on a new checkpoint location/);
    expect(e.details).toMatchObject({ part, previous: agg.parts[part], current: changed });
  });

  it('compares schemas by field types, ignoring names, as Spark does', async () => {
    const fm = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm).check([agg], 'memory://cp', false);
    const renamed = { ...agg, valueSchema: [{ name: 'n', type: 'long' as const }, { name: 's', type: 'double' as const }] };
    expect((await new StateSchemaCompatibilityChecker(fm).check([renamed], 'memory://cp', true)).verified).toEqual([0]);
    const retyped = { ...agg, keySchema: [{ name: 'region', type: 'long' as const }] };
    const e = await refusal(new StateSchemaCompatibilityChecker(fm).check([retyped], 'memory://cp', true));
    expect(e.message).toContain('Existing schema=[region: string]; provided schema=[region: long]');
    // Spark's class for the refusal, by the schema that changed.
    expect(e.errorClass).toBe('STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE');
    const revalued = { ...agg, valueSchema: [{ name: 'n', type: 'string' as const }, { name: 's', type: 'double' as const }] };
    expect((await refusal(new StateSchemaCompatibilityChecker(fm).check([revalued], 'memory://cp', true))).errorClass).toBe('STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE');
  });

  it('refuses a removed or an added stateful operator once the query has run', async () => {
    const fm = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm).check([agg], 'memory://cp', false);
    await fm.createAtomic('state/0/0/1.delta', 'x');
    expect((await refusal(new StateSchemaCompatibilityChecker(fm).check([], 'memory://cp', true))).message).toMatch(/holds state for stateful operator 0 \(aggregate/);
    const dedup = { ...agg, operatorId: 1, operatorName: 'deduplicate', parts: { keys: 'id' } };
    expect((await refusal(new StateSchemaCompatibilityChecker(fm).check([agg, dedup], 'memory://cp', true))).message).toMatch(/operator 1 \(deduplicate: keys id\) is new/);
  });

  it('a damaged schema file is reported as a corrupt checkpoint', async () => {
    const fm = new InMemoryCheckpointFileManager();
    await fm.createAtomic(schemaFilePath(0), '{not json');
    await expect(new StateSchemaCompatibilityChecker(fm).check([agg], 'memory://cp', true)).rejects.toBeInstanceOf(CorruptCheckpointError);
  });
});

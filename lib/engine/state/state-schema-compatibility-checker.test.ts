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
    expect(e.message).toContain('Provided key schema does not match existing state key schema of stateful operator 0 (aggregate). ' +
      'Please check number and type of fields. Existing key_schema=[region: STRING] and new key_schema=[region: BIGINT]');
    // Spark's class for the refusal, by the schema that changed.
    expect(e.errorClass).toBe('STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE');
    const revalued = { ...agg, valueSchema: [{ name: 'n', type: 'string' as const }, { name: 's', type: 'double' as const }] };
    expect((await refusal(new StateSchemaCompatibilityChecker(fm).check([revalued], 'memory://cp', true))).errorClass).toBe('STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE');
  });

  it('accepts a schema whose names differ at any depth; refuses another type, width, precision or field count', async () => {
    const nested: StatefulOperatorDescriptor = {
      ...agg,
      keySchema: [
        { name: 'x', type: 'long', integral: 32 },
        { name: 's', type: 'struct', fields: [{ name: 'a', type: 'decimal', precision: 10, scale: 2 }, { name: 'b', type: 'array', elementType: { name: 'element', type: 'timestamp', ntz: true } }] },
      ],
    };
    const fm = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm).check([nested], 'memory://cp', false);
    // An older Weir's generated names: `(+ x)` was `x`, a struct's fields named otherwise.
    const renamed = { ...nested, keySchema: [{ ...nested.keySchema[0], name: '(+ x)' }, { ...nested.keySchema[1], name: 'named_struct(a, a, b, b)', fields: nested.keySchema[1].fields!.map((f, i) => ({ ...f, name: `col${i + 1}` })) }] };
    expect((await new StateSchemaCompatibilityChecker(fm).check([renamed], 'memory://cp', true)).verified).toEqual([0]);
    const changes: [string, StatefulOperatorDescriptor['keySchema']][] = [
      ['INT to BIGINT', [{ name: 'x', type: 'long' }, nested.keySchema[1]]],
      ['DECIMAL(10,2) to DECIMAL(12,2)', [nested.keySchema[0], { ...nested.keySchema[1], fields: [{ name: 'a', type: 'decimal', precision: 12, scale: 2 }, nested.keySchema[1].fields![1]] }]],
      ['TIMESTAMP_NTZ to TIMESTAMP inside an array', [nested.keySchema[0], { ...nested.keySchema[1], fields: [nested.keySchema[1].fields![0], { name: 'b', type: 'array', elementType: { name: 'element', type: 'timestamp' } }] }]],
      ['a struct field more', [nested.keySchema[0], { ...nested.keySchema[1], fields: [...nested.keySchema[1].fields!, { name: 'c', type: 'string' }] }]],
      ['a key more', [...nested.keySchema, { name: 'y', type: 'string' }]],
    ];
    for (const [what, keySchema] of changes) {
      const e = await refusal(new StateSchemaCompatibilityChecker(fm).check([{ ...nested, keySchema }], 'memory://cp', true));
      expect(e.errorClass, what).toBe('STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE');
    }
  });

  it('a field may become non-nullable but not nullable (compatible nullability, as Spark)', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const strict = { ...agg, valueSchema: [{ name: 'count', type: 'long' as const, nullable: false }, { name: 'sum', type: 'double' as const }] };
    await new StateSchemaCompatibilityChecker(fm).check([strict], 'memory://cp', false);
    const e = await refusal(new StateSchemaCompatibilityChecker(fm).check([{ ...strict, valueSchema: [{ name: 'count', type: 'long' }, { name: 'sum', type: 'double' }] }], 'memory://cp', true));
    expect(e.errorClass).toBe('STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE');
    expect(e.message).toContain('Existing value_schema=[count: BIGINT NOT NULL, sum: DOUBLE] and new value_schema=[count: BIGINT, sum: DOUBLE]');
    const fm2 = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm2).check([agg], 'memory://cp', false);
    expect((await new StateSchemaCompatibilityChecker(fm2).check([strict], 'memory://cp', true)).verified).toEqual([0]);
  });

  it('a changed key type is refused with Spark\'s class even when the grouping expression changed with it', async () => {
    const fm = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm).check([agg], 'memory://cp', false);
    const e = await refusal(new StateSchemaCompatibilityChecker(fm).check([{ ...agg, parts: { ...agg.parts, 'grouping keys': 'length(region)' }, keySchema: [{ name: 'length(region)', type: 'long', integral: 32 }] }], 'memory://cp', true));
    expect(e.errorClass).toBe('STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE');
  });

  it('an expression an older Weir wrote otherwise is the same expression: a dropped unary +, ISO timestamp literals', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const old = { ...agg, parts: { ...agg.parts, 'grouping keys': "amount, (TIMESTAMP '2024-01-02T03:04:05.000Z' < ts), (TIMESTAMP '2024-01-02T03:04:05.120Z' = ts)", aggregates: "sum(amount), max(('(+ a)' || region))" } };
    await new StateSchemaCompatibilityChecker(fm).check([old], 'memory://cp', false);
    const now = { ...agg, parts: { ...agg.parts, 'grouping keys': "(+ amount), (TIMESTAMP '2024-01-02 03:04:05' < ts), (TIMESTAMP_NTZ '2024-01-02 03:04:05.12' = ts)", aggregates: "sum((+ (+ amount))), max(('(+ a)' || region))" } };
    expect((await new StateSchemaCompatibilityChecker(fm).check([now], 'memory://cp', true)).verified).toEqual([0]);
    // Another instant, or a quoted `(+ ` that is text, is another expression.
    for (const parts of [{ 'grouping keys': "amount, (TIMESTAMP '2024-01-02 03:04:06' < ts), (TIMESTAMP '2024-01-02 03:04:05.12' = ts)" }, { aggregates: "sum(amount), max(('a' || region))" }]) {
      const e = await refusal(new StateSchemaCompatibilityChecker(fm).check([{ ...now, parts: { ...now.parts, ...parts } }], 'memory://cp', true));
      expect(e.code).toBe('INCOMPATIBLE_QUERY_CHANGE');
      expect(e.errorClass).toBeUndefined();
    }
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

/**
 * The function registry: every name once, under a Spark group, and a second definition of a
 * name fails when the registry is built, that is when the compiler's module loads.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FunctionDef } from './function-types';
import { buildFunctionRegistry, FUNCTION_GROUPS, FUNCTION_REGISTRY } from './function-registry';

const upper: FunctionDef = { min: 1, max: 1, type: () => 'string', impl: ([s]) => (s as string).toUpperCase() };

describe('the function registry', () => {
  afterEach(() => {
    vi.doUnmock('./math-functions');
    vi.resetModules();
  });

  it('refuses a name registered twice', () => {
    expect(() => buildFunctionRegistry([
      { kind: 'scalar', group: 'string', defs: { upper } },
      { kind: 'scalar', group: 'math', defs: { upper } },
    ])).toThrow('SQL function upper() is registered twice (string, scalar and math, scalar)');
    expect(() => buildFunctionRegistry([
      { kind: 'scalar', group: 'string', defs: { upper } },
      { kind: 'aggregate', group: 'aggregate', defs: { upper: { min: 1, max: 1 } } },
    ])).toThrow('registered twice');
  });

  it('files every function of a file under the group it registers under', () => {
    const fileOf = new Map<string, string>();
    for (const f of FUNCTION_REGISTRY.values()) if (f.kind === 'scalar' || f.kind === 'collection') fileOf.set(f.name, f.group);
    // Names that were once filed by name from files holding several groups.
    expect(['nanvl', 'coalesce', 'if'].map((n) => fileOf.get(n))).toEqual(['conditional', 'conditional', 'conditional']);
    expect(['equal_null', 'rlike', 'isnull'].map((n) => fileOf.get(n))).toEqual(['predicate', 'predicate', 'predicate']);
    expect(['split', 'regexp_replace', 'lpad'].map((n) => fileOf.get(n))).toEqual(['string', 'string', 'string']);
    expect(['map_keys', 'str_to_map'].map((n) => fileOf.get(n))).toEqual(['map', 'map']);
    expect(['from_avro', 'get_json_object'].map((n) => fileOf.get(n))).toEqual(['misc', 'json']);
  });

  it('fails at module load when a function file defines a name another already has', async () => {
    vi.resetModules();
    vi.doMock('./math-functions', async (importOriginal) => {
      const original = await importOriginal<typeof import('./math-functions')>();
      return { ...original, MATH_FUNCTIONS: { ...original.MATH_FUNCTIONS, upper } };
    });
    await expect(import('./function-registry')).rejects.toThrow('SQL function upper() is registered twice');
  });

  it('files every name under one of Spark\'s groups, the aliases included', () => {
    for (const f of FUNCTION_REGISTRY.values()) expect(FUNCTION_GROUPS, f.name).toContain(f.group);
    expect(FUNCTION_REGISTRY.get('substr')).toMatchObject({ group: 'string', kind: 'scalar' });
    expect(FUNCTION_REGISTRY.get('date_diff')).toMatchObject({ group: 'datetime', kind: 'scalar' });
    expect(FUNCTION_REGISTRY.get('cardinality')).toMatchObject({ group: 'array', kind: 'collection' });
    expect(FUNCTION_REGISTRY.get('transform')).toMatchObject({ group: 'lambda', kind: 'higherOrder', min: 2, max: 2 });
    expect(FUNCTION_REGISTRY.get('percentile_approx')).toMatchObject({ group: 'aggregate', kind: 'aggregate' });
    expect(FUNCTION_REGISTRY.get('explode')).toMatchObject({ group: 'generator', kind: 'generator' });
    expect(FUNCTION_REGISTRY.get('timestamp')).toMatchObject({ group: 'conversion', kind: 'special' });
    expect(FUNCTION_REGISTRY.get('json_tuple_item')).toMatchObject({ internal: true });
    // Spark's ltrim(str[, trimStr]) is the one left, not a second, one-argument ltrim.
    expect(FUNCTION_REGISTRY.get('ltrim')).toMatchObject({ min: 1, max: 2 });
  });

  it('keeps each rewrite beside its function: the compiler names none of the functions that have one', () => {
    const compiler = readFileSync(new URL('./expression-compiler.ts', import.meta.url), 'utf8');
    const rewritten = [...FUNCTION_REGISTRY.values()].filter((f) => 'def' in f && ('replacement' in f.def || 'compile' in f.def || 'typed' in f.def) && f.kind !== 'higherOrder').map((f) => f.name);
    // The ones Spark makes RuntimeReplaceable or types from a literal, found by name in the compiler before.
    expect(rewritten).toEqual(expect.arrayContaining(['to_timestamp', 'to_timestamp_ntz', 'from_json', 'to_json', 'from_avro', 'to_avro', 'typeof', 'int', 'string', 'like', 'mod', 'extract', 'date_trunc', 'try_add', 'abs', 'round', 'floor', 'pmod', 'shiftleft']));
    const compared = [...compiler.matchAll(/name [!=]== '(\w+)'/g)].map((m) => m[1]);
    expect(compared).toContain('div');
    expect(rewritten.filter((n) => compared.includes(n))).toEqual([]);
  });
});

/**
 * Every SQL function Weir knows, each name registered once under its Spark group (the groups of
 * Spark's `@ExpressionDescription`: string, datetime, math, …), as Spark's FunctionRegistry
 * holds them. The compiler resolves calls here, the editor's completion and docs/sql.md's list
 * are made from here, and a name registered twice fails at module load: two definitions of one
 * name would leave which one runs to the order of a merge.
 *
 * The definitions live in their group's file (string-functions.ts, datetime-functions.ts,
 * array-functions.ts, …; the string group is split by what the functions do, into regexp-,
 * string-encoding- and format-functions.ts too), and each file registers under one group. The
 * function files share helpers and types through leaf modules (function-args.ts,
 * function-types.ts), never by importing one another in a cycle (function-imports.test.ts).
 */
import { AES_FUNCTIONS } from './aes-functions';
import { AGGREGATE_FUNCTIONS } from './aggregate-functions';
import { ARRAY_FUNCTIONS } from './array-functions';
import { BITMAP_FUNCTIONS } from './bitmap-functions';
import { CAST_FUNCTIONS } from './cast-functions';
import { CONDITIONAL_FUNCTIONS } from './conditional-functions';
import { DATASKETCHES_FUNCTIONS } from './datasketches-functions';
import { DATETIME_FUNCTIONS } from './datetime-functions';
import { FORMAT_FUNCTIONS } from './format-functions';
import type { CollectionFunctionDef, FunctionDef, SpecialFormDef } from './function-types';
import { GENERATORS } from './generators';
import { METADATA_COLUMN } from './expression';
import { HASH_FUNCTIONS } from './hash-functions';
import { HIGHER_ORDER_FUNCTIONS, type HigherOrderFunctionDef } from './higher-order-functions';
import { JSON_ARRAY_FUNCTIONS, JSON_SHAPE_FUNCTIONS } from './json-shape-functions';
import { CSV_FUNCTIONS } from './csv-functions';
import { MAP_FUNCTIONS } from './map-functions';
import { WINDOW_TIME_FUNCTIONS } from './time-windowing';
import { MATH_FUNCTIONS } from './math-functions';
import { MISC_FUNCTIONS, MISC_SPECIAL_FORMS } from './misc-functions';
import { RANDOM_ARRAY_FORMS, RANDOM_MATH_FORMS, RANDOM_MISC_FORMS } from './random-functions';
import { PREDICATE_FUNCTIONS, PREDICATE_SPECIAL_FORMS } from './predicate-functions';
import { REGEXP_ARRAY_FUNCTIONS, REGEXP_FUNCTIONS } from './regexp-functions';
import { STRING_ENCODING_FUNCTIONS } from './string-encoding-functions';
import { STRING_ARRAY_FUNCTIONS, STRING_FUNCTIONS } from './string-functions';
import { URL_FUNCTIONS } from './url-functions';
import { VARIANT_FUNCTIONS } from './variant-functions';
import { XML_DATA_SOURCE_FUNCTIONS } from './xml-data-functions';
import { XML_FUNCTIONS } from './xml-functions';

/** Spark's function groups (`group = "string_funcs"` …), as docs/sql.md lists them. */
export const FUNCTION_GROUPS = [
  'string', 'datetime', 'math', 'array', 'map', 'struct', 'json', 'csv', 'xml', 'url', 'hash', 'conditional', 'predicate', 'conversion', 'aggregate', 'lambda', 'generator', 'misc',
] as const;
export type FunctionGroup = (typeof FUNCTION_GROUPS)[number];

interface Registered<K extends string> {
  readonly name: string;
  readonly group: FunctionGroup;
  readonly kind: K;
  readonly min: number;
  readonly max: number;
  /** Built by the planner for itself, never written by a user (not offered, not documented). */
  readonly internal?: boolean;
}

/**
 * One registered function: a scalar (`FunctionDef`), a scalar over nested types
 * (`CollectionFunctionDef`), a higher-order function, an aggregate, a generator, or a call the
 * compiler builds itself (`special`: array(), struct(), the cast functions, like(), …).
 */
export type RegisteredFunction =
  | (Registered<'scalar'> & { readonly def: FunctionDef })
  | (Registered<'collection'> & { readonly def: CollectionFunctionDef })
  | (Registered<'higherOrder'> & { readonly def: HigherOrderFunctionDef })
  | Registered<'aggregate'>
  | Registered<'generator'>
  | (Registered<'special'> & { readonly def: SpecialFormDef });

/** Definitions of one kind, from one file, filed under one group. */
export type FunctionSource = { group: FunctionGroup } & (
  | { kind: 'scalar'; defs: Record<string, FunctionDef> }
  | { kind: 'collection'; defs: Record<string, CollectionFunctionDef> }
  | { kind: 'higherOrder'; defs: Record<string, HigherOrderFunctionDef> }
  | { kind: 'special'; defs: Record<string, SpecialFormDef> }
  | { kind: 'aggregate' | 'generator'; defs: Record<string, { min: number; max: number }> }
);

/** Builds the registry; throws on a name registered twice. */
export function buildFunctionRegistry(sources: readonly FunctionSource[], internal: ReadonlySet<string> = new Set()): ReadonlyMap<string, RegisteredFunction> {
  const registry = new Map<string, RegisteredFunction>();
  for (const source of sources) {
    for (const [name, def] of Object.entries(source.defs)) {
      const group = source.group;
      const earlier = registry.get(name);
      if (earlier) throw new Error(`SQL function ${name}() is registered twice (${earlier.group}, ${earlier.kind} and ${group}, ${source.kind}): keep one definition`);
      const min = 'params' in def ? def.min : (def as { min: number }).min;
      const max = 'params' in def ? def.params.length : (def as { max: number }).max;
      const entry = { name, group, kind: source.kind, min, max, ...(internal.has(name) ? { internal: true } : {}) };
      registry.set(name, (source.kind === 'aggregate' || source.kind === 'generator' ? entry : { ...entry, def }) as RegisteredFunction);
    }
  }
  return registry;
}

/**
 * Calls the compiler or the planner builds itself, with their arities, by group; those a
 * function file rewrites (like(), typeof(), the cast functions) are registered from their file.
 */
const SPECIAL_FORMS: Partial<Record<FunctionGroup, Record<string, SpecialFormDef>>> = {
  array: { array: { min: 0, max: Infinity }, ...RANDOM_ARRAY_FORMS },
  math: RANDOM_MATH_FORMS,
  map: { map: { min: 0, max: Infinity } },
  struct: { struct: { min: 1, max: Infinity }, named_struct: { min: 2, max: Infinity } },
  predicate: PREDICATE_SPECIAL_FORMS,
  datetime: { window: { min: 2, max: 4 }, session_window: { min: 2, max: 2 } },
  misc: { ...MISC_SPECIAL_FORMS, ...RANDOM_MISC_FORMS },
};

const arities = <T>(names: Iterable<string>, arity: T): Record<string, T> => Object.fromEntries([...names].map((n) => [n, arity]));

export const FUNCTION_REGISTRY: ReadonlyMap<string, RegisteredFunction> = buildFunctionRegistry(
  [
    { kind: 'scalar', group: 'string', defs: STRING_FUNCTIONS },
    { kind: 'scalar', group: 'string', defs: STRING_ENCODING_FUNCTIONS },
    { kind: 'scalar', group: 'string', defs: REGEXP_FUNCTIONS },
    { kind: 'scalar', group: 'string', defs: FORMAT_FUNCTIONS },
    { kind: 'scalar', group: 'math', defs: MATH_FUNCTIONS },
    { kind: 'scalar', group: 'predicate', defs: PREDICATE_FUNCTIONS },
    { kind: 'scalar', group: 'conditional', defs: CONDITIONAL_FUNCTIONS },
    { kind: 'scalar', group: 'misc', defs: MISC_FUNCTIONS },
    { kind: 'scalar', group: 'misc', defs: BITMAP_FUNCTIONS },
    { kind: 'scalar', group: 'misc', defs: AES_FUNCTIONS },
    { kind: 'scalar', group: 'misc', defs: DATASKETCHES_FUNCTIONS },
    { kind: 'scalar', group: 'datetime', defs: DATETIME_FUNCTIONS },
    { kind: 'scalar', group: 'json', defs: JSON_SHAPE_FUNCTIONS },
    { kind: 'scalar', group: 'json', defs: VARIANT_FUNCTIONS },
    { kind: 'scalar', group: 'csv', defs: CSV_FUNCTIONS },
    { kind: 'scalar', group: 'xml', defs: XML_FUNCTIONS },
    { kind: 'scalar', group: 'xml', defs: XML_DATA_SOURCE_FUNCTIONS },
    { kind: 'scalar', group: 'url', defs: URL_FUNCTIONS },
    { kind: 'scalar', group: 'hash', defs: HASH_FUNCTIONS },
    { kind: 'collection', group: 'string', defs: STRING_ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'string', defs: REGEXP_ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'json', defs: JSON_ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'array', defs: ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'map', defs: MAP_FUNCTIONS },
    { kind: 'collection', group: 'datetime', defs: WINDOW_TIME_FUNCTIONS },
    { kind: 'higherOrder', group: 'lambda', defs: HIGHER_ORDER_FUNCTIONS },
    { kind: 'aggregate', group: 'aggregate', defs: AGGREGATE_FUNCTIONS },
    { kind: 'generator', group: 'generator', defs: { ...arities(GENERATORS, { min: 1, max: 1 }), json_tuple: { min: 2, max: Infinity }, stack: { min: 2, max: Infinity } } },
    { kind: 'special', group: 'conversion', defs: CAST_FUNCTIONS },
    ...Object.entries(SPECIAL_FORMS).map(([group, defs]) => ({ kind: 'special' as const, group: group as FunctionGroup, defs })),
  ],
  // _metadata: Spark's hidden file metadata column, which the builder reads as a call (misc-functions.ts).
  new Set(['json_tuple_item', METADATA_COLUMN]),
);

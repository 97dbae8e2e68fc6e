/**
 * Every SQL function Weir knows, each name registered once under its Spark group (the groups of
 * Spark's `@ExpressionDescription`: string, datetime, math, …), as Spark's FunctionRegistry
 * holds them. The compiler resolves calls here, the editor's completion and docs/sql.md's list
 * are made from here, and a name registered twice fails at module load: two definitions of one
 * name would leave which one runs to the order of a merge.
 *
 * The definitions live in one file per group or shape (string-functions.ts, array-functions.ts,
 * …); the few files that hold several groups (functions.ts, spark-functions.ts,
 * collection-functions.ts) have their names filed under a group by MIXED_GROUPS below.
 */
import { AGGREGATE_FUNCTIONS } from './aggregate-functions';
import { ARRAY_FUNCTIONS } from './array-functions';
import { CAST_FUNCTIONS } from './cast-functions';
import { COLLECTION_FUNCTIONS } from './collection-functions';
import { CONDITIONAL_FUNCTIONS } from './conditional-functions';
import { DATETIME_FUNCTIONS } from './datetime-functions';
import { FORMAT_FUNCTIONS } from './format-functions';
import type { CollectionFunctionDef, FunctionDef } from './function-types';
import { GENERATORS } from './generators';
import { HIGHER_ORDER_FUNCTIONS, type HigherOrderFunctionDef } from './higher-order-functions';
import { JSON_ARRAY_FUNCTIONS, JSON_SHAPE_FUNCTIONS } from './json-shape-functions';
import { MAP_FUNCTIONS } from './map-functions';
import { MATH_FUNCTIONS } from './math-functions';
import { MISC_FUNCTIONS } from './misc-functions';
import { PREDICATE_FUNCTIONS } from './predicate-functions';
import { REGEXP_ARRAY_FUNCTIONS, REGEXP_FUNCTIONS } from './regexp-functions';
import { STRING_ENCODING_FUNCTIONS } from './string-encoding-functions';
import { STRING_ARRAY_FUNCTIONS, STRING_FUNCTIONS } from './string-functions';

/** Spark's function groups (`group = "string_funcs"` …), as docs/sql.md lists them. */
export const FUNCTION_GROUPS = [
  'string', 'datetime', 'math', 'array', 'map', 'struct', 'json', 'conditional', 'predicate', 'conversion', 'aggregate', 'lambda', 'generator', 'misc',
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
  | Registered<'special'>;

/**
 * Definitions of one kind, filed under one group (but for the names in `except`), or per name
 * for a file that holds several groups.
 */
export type FunctionSource = { group: FunctionGroup | Partial<Record<string, FunctionGroup>>; except?: Partial<Record<string, FunctionGroup>> } & (
  | { kind: 'scalar'; defs: Record<string, FunctionDef> }
  | { kind: 'collection'; defs: Record<string, CollectionFunctionDef> }
  | { kind: 'higherOrder'; defs: Record<string, HigherOrderFunctionDef> }
  | { kind: 'aggregate' | 'generator' | 'special'; defs: Record<string, { min: number; max: number }> }
);

/** Builds the registry; throws on a name registered twice, or a name of a mixed file with no group. */
export function buildFunctionRegistry(sources: readonly FunctionSource[], internal: ReadonlySet<string> = new Set()): ReadonlyMap<string, RegisteredFunction> {
  const registry = new Map<string, RegisteredFunction>();
  for (const source of sources) {
    for (const [name, def] of Object.entries(source.defs)) {
      const group = source.except?.[name] ?? (typeof source.group === 'string' ? source.group : source.group[name]);
      if (group === undefined) throw new Error(`SQL function ${name}() has no Spark group: file it under one in function-registry.ts`);
      const earlier = registry.get(name);
      if (earlier) throw new Error(`SQL function ${name}() is registered twice (${earlier.group}, ${earlier.kind} and ${group}, ${source.kind}): keep one definition`);
      const min = 'params' in def ? def.min : (def as { min: number }).min;
      const max = 'params' in def ? def.params.length : (def as { max: number }).max;
      const entry = { name, group, kind: source.kind, min, max, ...(internal.has(name) ? { internal: true } : {}) };
      registry.set(name, (source.kind === 'scalar' || source.kind === 'collection' || source.kind === 'higherOrder' ? { ...entry, def } : entry) as RegisteredFunction);
    }
  }
  return registry;
}

const byGroup = (groups: Partial<Record<FunctionGroup, readonly string[]>>): Partial<Record<string, FunctionGroup>> =>
  Object.fromEntries(Object.entries(groups).flatMap(([g, names]) => names.map((n) => [n, g as FunctionGroup])));

/** The Spark group of each name in the files that hold several groups. */
const MIXED_GROUPS = byGroup({
  string: [
    'upper', 'lower', 'trim', 'reverse', 'concat', 'concat_ws', 'substring', 'substr', 'replace', 'lpad', 'rpad', 'regexp_extract',
    'btrim', 'ltrim', 'rtrim', 'instr', 'locate', 'position', 'initcap', 'translate', 'left', 'right', 'repeat', 'ascii', 'chr', 'char',
    'startswith', 'endswith', 'contains', 'regexp_replace', 'split',
  ],
  predicate: ['rlike', 'regexp', 'regexp_like', 'isnull', 'isnotnull'],
  math: [
    'abs', 'round', 'pow', 'power', 'sqrt', 'cbrt', 'exp', 'ln', 'log', 'log10', 'log2', 'sign', 'signum', 'mod', 'div', 'pmod', 'shiftleft', 'shiftright', 'shiftrightunsigned', 'greatest', 'least',
    'bround', 'ceil', 'ceiling', 'floor', 'pi', 'degrees', 'radians',
  ],
  conditional: ['coalesce', 'nullif', 'if', 'nvl', 'ifnull', 'nvl2'],
  datetime: [
    'year', 'month', 'day', 'dayofmonth', 'hour', 'minute', 'second', 'dayofweek', 'quarter', 'date_trunc', 'to_timestamp', 'unix_timestamp',
    'unix_millis', 'timestamp_millis', 'current_timestamp', 'now', 'date_format', 'to_date', 'date_add', 'dateadd', 'date_sub', 'datediff',
    'date_diff', 'add_months', 'last_day', 'dayofyear', 'weekofyear', 'from_unixtime', 'current_date', 'timestamp_seconds', 'make_timestamp',
    'to_timestamp_ntz', 'make_timestamp_ntz',
  ],
  json: ['from_json', 'to_json', 'get_json_object', 'json_tuple_item'],
  misc: ['from_avro', 'to_avro'],
  array: ['size', 'cardinality', 'element_at', 'get', 'array_contains', 'array_join', 'sort_array', 'array_distinct', 'array_max', 'array_min', 'slice', 'flatten'],
  map: ['map_keys', 'map_values', 'str_to_map'],
});

/** Calls the compiler or the planner builds itself, with their arities. */
const SPECIAL_FORMS: Record<string, { min: number; max: number }> = {
  array: { min: 0, max: Infinity }, map: { min: 0, max: Infinity }, struct: { min: 1, max: Infinity }, named_struct: { min: 2, max: Infinity },
  like: { min: 2, max: 3 }, ilike: { min: 2, max: 3 }, window: { min: 2, max: 3 }, typeof: { min: 1, max: 1 },
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
    { kind: 'scalar', group: 'datetime', defs: DATETIME_FUNCTIONS },
    { kind: 'scalar', group: 'json', defs: JSON_SHAPE_FUNCTIONS },
    { kind: 'collection', group: MIXED_GROUPS, defs: COLLECTION_FUNCTIONS },
    { kind: 'collection', group: 'string', defs: STRING_ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'string', defs: REGEXP_ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'json', defs: JSON_ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'array', defs: ARRAY_FUNCTIONS },
    { kind: 'collection', group: 'map', defs: MAP_FUNCTIONS },
    { kind: 'higherOrder', group: 'lambda', defs: HIGHER_ORDER_FUNCTIONS },
    { kind: 'aggregate', group: 'aggregate', defs: AGGREGATE_FUNCTIONS },
    { kind: 'generator', group: 'generator', defs: { ...arities(GENERATORS, { min: 1, max: 1 }), json_tuple: { min: 2, max: Infinity } } },
    { kind: 'special', group: 'conversion', defs: arities(Object.keys(CAST_FUNCTIONS), { min: 1, max: 1 }) },
    {
      kind: 'special',
      group: { array: 'array', map: 'map', struct: 'struct', named_struct: 'struct', like: 'predicate', ilike: 'predicate', window: 'datetime', typeof: 'misc' },
      defs: SPECIAL_FORMS,
    },
  ],
  new Set(['json_tuple_item']),
);

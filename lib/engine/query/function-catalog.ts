/**
 * The SQL functions a query may call, with their signatures, for the editor's completion: the
 * same registries the compiler resolves calls against (scalar, collection, higher-order and
 * aggregate functions, generators), so that what is offered is what runs.
 */
import { AGGREGATE_FUNCTIONS } from './aggregate-functions';
import { CAST_FUNCTIONS } from './cast-functions';
import { COLLECTION_FUNCTIONS } from './collection-functions';
import { FUNCTIONS } from './functions';
import { GENERATORS } from './generators';
import { HIGHER_ORDER_FUNCTIONS, higherOrderSignature } from './higher-order-functions';

export interface SqlFunctionInfo {
  name: string;
  /** `substr(expr1, expr2[, expr3])`: the arguments it takes, by position. */
  signature: string;
  kind: 'scalar' | 'aggregate' | 'generator';
}

/** Functions the planner builds for itself, never written by a user. */
const INTERNAL = new Set(['json_tuple_item']);

/** Calls the compiler or the planner handles outside the registries, with their arities. */
const SPECIAL: { name: string; min: number; max: number; kind: SqlFunctionInfo['kind'] }[] = [
  { name: 'array', min: 0, max: Infinity, kind: 'scalar' },
  { name: 'map', min: 0, max: Infinity, kind: 'scalar' },
  { name: 'struct', min: 1, max: Infinity, kind: 'scalar' },
  { name: 'named_struct', min: 2, max: Infinity, kind: 'scalar' },
  { name: 'like', min: 2, max: 3, kind: 'scalar' },
  { name: 'ilike', min: 2, max: 3, kind: 'scalar' },
  ...Object.keys(CAST_FUNCTIONS).map((name) => ({ name, min: 1, max: 1, kind: 'scalar' as const })),
  { name: 'window', min: 2, max: 3, kind: 'scalar' },
  { name: 'typeof', min: 1, max: 1, kind: 'scalar' },
  { name: 'json_tuple', min: 2, max: Infinity, kind: 'generator' },
];

/** More optional arguments than this read as `…` (concat takes up to 64). */
const VARIADIC = 8;

function signature(name: string, min: number, max: number): string {
  if (max > VARIADIC) return `${name}(${min === 0 ? 'expr, …' : [...Array.from({ length: min }, (_, i) => `expr${i + 1}`), '…'].join(', ')})`;
  const args = Array.from({ length: max }, (_, i) => `expr${max === 1 ? '' : i + 1}`);
  const required = args.slice(0, min).join(', ');
  const optional = args.slice(min).map((a, i) => (i === 0 && min > 0 ? `[, ${a}` : i === 0 ? `[${a}` : `, ${a}`)).join('');
  return `${name}(${required}${optional ? `${optional}]` : ''})`;
}

let catalog: SqlFunctionInfo[] | undefined;

export function sqlFunctionCatalog(): readonly SqlFunctionInfo[] {
  if (catalog) return catalog;
  const byName = new Map<string, SqlFunctionInfo>();
  const add = (name: string, min: number, max: number, kind: SqlFunctionInfo['kind']) => {
    if (!INTERNAL.has(name) && !byName.has(name)) byName.set(name, { name, signature: signature(name, min, max), kind });
  };
  for (const [name, def] of Object.entries(FUNCTIONS)) add(name, def.min, def.max, 'scalar');
  for (const [name, def] of Object.entries(COLLECTION_FUNCTIONS)) add(name, def.min, def.max, 'scalar');
  // Their arguments as Spark's reference names them: `aggregate(expr, start, merge[, finish])`.
  for (const [name, def] of Object.entries(HIGHER_ORDER_FUNCTIONS)) byName.set(name, { name, signature: higherOrderSignature(name, def), kind: 'scalar' });
  for (const [name, def] of Object.entries(AGGREGATE_FUNCTIONS)) add(name, def.min, def.max, 'aggregate');
  for (const name of GENERATORS) add(name, 1, 1, 'generator');
  for (const s of SPECIAL) add(s.name, s.min, s.max, s.kind);
  catalog = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return catalog;
}

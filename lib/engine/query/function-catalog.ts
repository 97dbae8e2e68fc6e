/**
 * The SQL functions a query may call, with their signatures, for the editor's completion: the
 * registry the compiler resolves calls against (function-registry.ts), so that what is offered is
 * what runs.
 */
import { PERCENTILE_WITHIN_GROUP } from './aggregate-functions';
import { FUNCTION_REGISTRY } from './function-registry';
import { higherOrderSignature } from './higher-order-functions';
import { LIST_AGG_NAMES } from './within-group';

export interface SqlFunctionInfo {
  name: string;
  /** `substr(expr1, expr2[, expr3])`: the arguments it takes, by position. */
  signature: string;
  kind: 'scalar' | 'aggregate' | 'generator';
}

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
  for (const f of FUNCTION_REGISTRY.values()) {
    if (f.internal) continue;
    const kind = f.kind === 'aggregate' || f.kind === 'generator' ? f.kind : 'scalar';
    // Higher-order functions' arguments as Spark's reference names them: `aggregate(expr, start, merge[, finish])`;
    // the inverse distribution functions with their ordering: `percentile_cont(percentage) WITHIN GROUP (ORDER BY col)`;
    // listagg with its optional one.
    const sig = f.kind === 'higherOrder' ? higherOrderSignature(f.name, f.def)
      : PERCENTILE_WITHIN_GROUP.includes(f.name) ? `${f.name}(percentage) WITHIN GROUP (ORDER BY col)`
      : LIST_AGG_NAMES.includes(f.name) ? `${f.name}(expr[, delimiter]) [WITHIN GROUP (ORDER BY col, …)]`
      : signature(f.name, f.min, f.max);
    byName.set(f.name, { name: f.name, signature: sig, kind });
  }
  catalog = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return catalog;
}

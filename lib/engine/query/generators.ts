/**
 * Spark's generators in a SELECT list: explode, posexplode, inline and their _outer forms, and
 * stack, each planned as a Generate node (logical-plan.ts, operators/generate-exec.ts), never
 * called as a function. Their output columns are Spark's: `col` for an array's element, `key`
 * and `value` for a map's entry, `pos` (0-based) first for posexplode, an array of structs'
 * fields for inline, `col0`, `col1`, … for stack; a one-column generator may be aliased (the
 * planner renames it).
 */
import type { Field } from '../types';
import { fieldOfType, sameType, typeText, type TypeInfo } from './data-types';
import { exprChildren, type Expr } from './expression';

export const GENERATORS: ReadonlySet<string> = new Set(['explode', 'explode_outer', 'posexplode', 'posexplode_outer', 'inline', 'inline_outer', 'stack']);

/** Why a generator's arguments are refused, with Spark's error class. */
export interface GeneratorRefusal {
  message: string;
  errorClass?: string;
}

const refusal = (message: string, errorClass: string): GeneratorRefusal => ({ message: `${message} (${errorClass})`, errorClass });

/**
 * stack(n, …)'s row count n: Spark requires a foldable INT, which Weir reads when it is a literal
 * (or a negated one, to refuse it as Spark does); a message otherwise.
 */
export function stackRows(n: Expr, type: TypeInfo): number | GeneratorRefusal {
  if (type.type !== 'long' || type.integral !== 32) return refusal(`stack()'s first argument must be an INT, got ${typeText(type)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  const reads = (e: Expr): boolean => e.kind === 'column' || e.kind === 'lambdaVariable' || exprChildren(e).some(reads);
  if (reads(n)) return refusal("stack()'s first argument (the number of rows) must be a constant", 'DATATYPE_MISMATCH.NON_FOLDABLE_INPUT');
  const value = n.kind === 'literal' ? n.value : n.kind === 'unary' && n.op === '-' && n.arg.kind === 'literal' ? -(n.arg.value as number) : undefined;
  if (typeof value !== 'number') return { message: "stack()'s number of rows must be an integer literal" };
  if (value < 1) return refusal(`stack()'s number of rows must be in (0, 2147483647], got ${value}`, 'DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE');
  return value;
}

/**
 * Spark's Stack: n rows of ceil(k / n) columns from k values, row by row, the last padded with
 * NULLs. Each column's type is its first value's that is not NULL (STRING when all are), and its
 * other values must have it too (a NULL may stand anywhere).
 */
function stackOutput(args: readonly Expr[], types: readonly TypeInfo[]): Field[] | GeneratorRefusal {
  if (args.length < 2) return refusal(`stack() takes (n, expr1, …), got ${args.length} argument${args.length === 1 ? '' : 's'}`, 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
  const rows = stackRows(args[0], types[0]);
  if (typeof rows !== 'number') return rows;
  const values = types.slice(1);
  const width = Math.ceil(values.length / rows);
  const fields: Field[] = [];
  for (let c = 0; c < width; c++) {
    let first: number | undefined;
    for (let i = c; i < values.length; i += width) {
      if (values[i].type === 'null') continue;
      if (first === undefined) first = i;
      else if (!sameType(values[first], values[i])) {
        return refusal(`The data type of the column (${c}) do not have the same type: ${typeText(values[first])} (${first + 1}) <> ${typeText(values[i])} (${i + 1})`, 'DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES');
      }
    }
    fields.push(fieldOfType(`col${c}`, first === undefined ? { type: 'string' } : values[first]));
  }
  return fields.map((f) => ({ ...f, nullable: true }));
}

/**
 * The generated columns of `name(args)` over arguments of types `types` (stack reads its first
 * argument's value), or a message.
 */
export function generatorOutput(name: string, args: readonly Expr[], types: readonly TypeInfo[]): Field[] | GeneratorRefusal {
  if (name === 'stack') return stackOutput(args, types);
  if (args.length !== 1) return { message: `${name}() takes one argument (an array or a map), got ${args.length}` };
  const arg = types[0];
  if (name.startsWith('inline')) {
    // Spark's Inline: each element of an array of structs is a row of the struct's fields.
    if (arg.type !== 'array' || arg.elementType?.type !== 'struct') return refusal(`${name}() takes an array of structs, got ${typeText(arg)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    return (arg.elementType.fields ?? []).map((f) => ({ ...f, nullable: true }));
  }
  const position = name.startsWith('pos');
  let fields: Field[];
  if (arg.type === 'array') fields = [{ ...arg.elementType!, name: 'col', nullable: true }];
  else if (arg.type === 'map') fields = [{ ...arg.keyType!, name: 'key' }, { ...arg.valueType!, name: 'value', nullable: true }];
  else if (arg.type === 'null') fields = [{ name: 'col', type: 'string', nullable: true }];
  else return refusal(`${name}() takes an array or a map, got ${typeText(arg)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  if (position) fields = [{ name: 'pos', type: 'long', nullable: name.endsWith('_outer') }, ...fields];
  return fields;
}

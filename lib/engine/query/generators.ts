/**
 * Spark's generators in a SELECT list: explode, posexplode, inline and their _outer forms, each
 * planned as a Generate node (logical-plan.ts, operators/generate-exec.ts), never called as a
 * function. Their output columns are Spark's: `col` for an array's element, `key` and `value` for
 * a map's entry, `pos` (0-based) first for posexplode, an array of structs' fields for inline;
 * a one-column generator may be aliased (the planner renames it).
 */
import type { Field } from '../types';
import { typeText, type TypeInfo } from './data-types';

export const GENERATORS: ReadonlySet<string> = new Set(['explode', 'explode_outer', 'posexplode', 'posexplode_outer', 'inline', 'inline_outer']);

/** The generated columns of `name(arg)` over an argument of type `arg`, or a message. */
export function generatorOutput(name: string, arg: TypeInfo): Field[] | string {
  if (name.startsWith('inline')) {
    // Spark's Inline: each element of an array of structs is a row of the struct's fields.
    if (arg.type !== 'array' || arg.elementType?.type !== 'struct') return `${name}() takes an array of structs, got ${typeText(arg)} (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)`;
    return (arg.elementType.fields ?? []).map((f) => ({ ...f, nullable: true }));
  }
  const position = name.startsWith('pos');
  let fields: Field[];
  if (arg.type === 'array') fields = [{ ...arg.elementType!, name: 'col', nullable: true }];
  else if (arg.type === 'map') fields = [{ ...arg.keyType!, name: 'key' }, { ...arg.valueType!, name: 'value', nullable: true }];
  else if (arg.type === 'null') fields = [{ name: 'col', type: 'string', nullable: true }];
  else return `${name}() takes an array or a map, got ${typeText(arg)} (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)`;
  if (position) fields = [{ name: 'pos', type: 'long', nullable: name.endsWith('_outer') }, ...fields];
  return fields;
}

/**
 * Generate (Spark's GenerateExec): each input row becomes one output row per element of its
 * array (explode: `col`; posexplode: `pos`, `col`; inline and stack: the element struct's
 * fields, a NULL element a row of NULLs) or per entry of its map (`key`, `value`), the input's
 * columns first. A NULL or empty collection gives no row, or with the _outer forms one row whose
 * generated columns are NULL. Stateless: a re-run batch generates the same rows.
 */
import type { Row, Schema } from '../types';
import type { Evaluator } from '../query/expression-compiler';
import { divertBadRow, type OperatorContext, type PhysicalOperator } from './physical-operator';

export interface GenerateSpec {
  /** The collection each row generates from. */
  collection: Evaluator;
  /** For a map: its key text (how a map value holds it) back to the key's type. */
  mapKey?: (text: string) => unknown;
  /** inline, stack: the fields of each element (a struct) are the generated values, in this order. */
  structFields?: string[];
  position: boolean;
  outer: boolean;
  /** The generated columns' names, in order (pos, then col or key and value). */
  output: string[];
  /** The input columns carried into each output row. */
  carried: string[];
}

export class GenerateExec implements PhysicalOperator {
  readonly stateful = false;

  constructor(
    private readonly spec: GenerateSpec,
    readonly outputSchema: Schema,
    readonly name: string,
  ) {}

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const { collection, mapKey, structFields, position, outer, output, carried } = this.spec;
    const nulls = mapKey ? [null, null] : structFields ? structFields.map(() => null) : [null];
    const entryOf = mapKey
      ? ([k, x]: [string, unknown]) => [mapKey(k), x]
      : structFields
        ? (x: unknown) => (x === null || x === undefined ? nulls : structFields.map((f) => (x as Row)[f]))
        : (x: unknown) => [x];
    const out: Row[] = [];
    const emit = (r: Row, pos: number | null, values: unknown[]) => {
      const o: Row = {};
      for (const c of carried) o[c] = r[c] ?? null;
      let j = 0;
      if (position) o[output[j++]] = pos;
      for (const v of values) o[output[j++]] = v ?? null;
      out.push(o);
    };
    for (const r of rows) {
      let v: unknown;
      try {
        v = collection(r, ctx);
      } catch (e) {
        if (divertBadRow(e, r, ctx)) continue;
        throw e;
      }
      const entries: unknown[][] = v === null || v === undefined ? [] : mapKey ? Object.entries(v as object).map(entryOf as (e: [string, unknown]) => unknown[]) : (v as unknown[]).map(entryOf as (x: unknown) => unknown[]);
      if (entries.length === 0) {
        if (outer) emit(r, null, nulls);
        continue;
      }
      entries.forEach((e, i) => emit(r, i, e));
    }
    return out;
  }
}

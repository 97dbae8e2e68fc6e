/**
 * Expand (Spark's ExpandExec): each input row becomes one output row per projection, the input's
 * columns first, then the projection's values. GROUP BY CUBE, ROLLUP and GROUPING SETS put one
 * below their aggregation: a row per grouping set, its grouping columns NULL where the set leaves
 * them out, and the set's spark_grouping_id. Stateless: a re-run batch expands the same rows.
 */
import type { Row, Schema } from '../types';
import type { Evaluator } from '../query/expression-compiler';
import { divertBadRow, type OperatorContext, type PhysicalOperator } from './physical-operator';

export class ExpandExec implements PhysicalOperator {
  readonly stateful = false;
  readonly name: string;

  /**
   * `projections[p][j]` computes column `output[j]` of projection p's rows, or is a constant
   * (NULL, the grouping id) given as its value.
   */
  constructor(
    private readonly projections: readonly (readonly (Evaluator | { value: unknown })[])[],
    private readonly carried: readonly string[],
    private readonly output: readonly string[],
    readonly outputSchema: Schema,
  ) {
    this.name = `Expand (${projections.length} projections)`;
  }

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const { projections, carried, output } = this;
    const out: Row[] = [];
    for (const r of rows) {
      let expanded: Row[];
      try {
        expanded = projections.map((p) => {
          const o: Row = {};
          for (const c of carried) o[c] = r[c] ?? null;
          for (let j = 0; j < p.length; j++) {
            const x = p[j];
            o[output[j]] = typeof x === 'function' ? (x(r, ctx) ?? null) : x.value;
          }
          return o;
        });
      } catch (e) {
        if (divertBadRow(e, r, ctx)) continue;
        throw e;
      }
      for (const o of expanded) out.push(o);
    }
    return out;
  }
}

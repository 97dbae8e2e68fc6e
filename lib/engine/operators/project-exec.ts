/**
 * Project: computes the select list into new rows with the output column names. Given the
 * predicate of the Filter below it (a fused Filter + Project, as Spark's whole-stage codegen
 * runs them), it keeps only rows whose predicate is TRUE in the same pass, with no array
 * of filtered rows in between. With `carriesFile` (an operator above reads the row's file:
 * input_file_name(), `_metadata`), each new row keeps its input row's hidden file column.
 */
import { FILE_METADATA_COLUMN, type Row, type Schema } from '../types';
import type { Evaluator } from '../query/expression-compiler';
import { divertBadRow, type OperatorContext, type PhysicalOperator } from './physical-operator';

export class ProjectExec implements PhysicalOperator {
  readonly stateful = false;
  readonly name: string;
  private readonly names: string[];
  constructor(
    private readonly evaluators: Evaluator[],
    readonly outputSchema: Schema,
    private readonly predicate?: Evaluator,
    private readonly carriesFile = false,
  ) {
    this.names = outputSchema.map((f) => f.name);
    this.name = predicate ? 'Filter+Project' : 'Project';
  }

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const { names, evaluators, predicate, carriesFile } = this;
    const n = names.length;
    const out = new Array<Row>(rows.length);
    let k = 0;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      let o: Row;
      try {
        if (predicate !== undefined && predicate(r, ctx) !== true) continue;
        o = {};
        for (let j = 0; j < n; j++) o[names[j]] = evaluators[j](r, ctx);
        if (carriesFile && r[FILE_METADATA_COLUMN] !== undefined) o[FILE_METADATA_COLUMN] = r[FILE_METADATA_COLUMN];
      } catch (e) {
        if (divertBadRow(e, r, ctx)) continue;
        throw e;
      }
      out[k++] = o;
    }
    out.length = k;
    return out;
  }
}

/**
 * FROM <stream> [INNER | LEFT] JOIN <static table> ON <equalities> → a Join node whose right
 * side is a StaticRelation (a table declared in the job's `staticTables`).
 *
 * The ON clause must be a conjunction of `stream column = static column` (qualified with the
 * table name or alias when a name is in both). The joined rows carry the stream's columns and
 * then the static table's; a static column named like a stream column is only allowed for a
 * same-named join key (the values are equal, or NULL on the static side of a LEFT join), so an
 * unqualified name in the rest of the query never means two things.
 * Which join types are legal with a stream is the analyzer's call (Spark's rules).
 */
import type { StaticTableSpec } from '../operators/stream-static-join';
import type { Schema } from '../types';
import { columnName, posOf, type ExpressionBuilder, type SqlNode } from './expression-builder';
import type { SqlPosition } from './expression';
import type { LogicalPlan, StreamingRelation } from './logical-plan';
import { notSupportedYet, SqlValidationError } from './sql-error';

export interface PlannedJoin {
  plan: LogicalPlan;
  /** Columns the rest of the query reads: stream columns, then the static table's. */
  schema: Schema;
  /** Names and aliases that may qualify a column. */
  qualifiers: string[];
}

const JOIN_TYPES: Record<string, string> = {
  JOIN: 'Inner', 'INNER JOIN': 'Inner', 'LEFT JOIN': 'LeftOuter', 'LEFT OUTER JOIN': 'LeftOuter',
  'RIGHT JOIN': 'RightOuter', 'RIGHT OUTER JOIN': 'RightOuter', 'FULL JOIN': 'FullOuter', 'FULL OUTER JOIN': 'FullOuter',
};

export function buildStreamStaticJoin(
  from: SqlNode[],
  relation: StreamingRelation,
  statics: StaticTableSpec[],
  builder: (qualifiers: Set<string>) => ExpressionBuilder,
  at: (re: RegExp) => SqlPosition | undefined,
): PlannedJoin {
  const pos = at(/\bJOIN\b/i);
  if (from.length !== 2 || !from[1].join) throw notSupportedYet('A join of more than two tables, or a comma join', pos ?? at(/\bFROM\b/i));
  const names = from.map((f) => String(f.table));
  const streamIdx = names.indexOf(relation.sourceName);
  const staticIdx = 1 - streamIdx;
  const staticNode = from[staticIdx];
  const table = statics.find((t) => t.name === String(staticNode?.table));
  if (streamIdx < 0 || !table) {
    const known = statics.map((t) => t.name).join(', ') || 'none declared';
    throw new SqlValidationError(
      `A join needs the stream "${relation.sourceName}" and a static table from the job's staticTables (${known}); got ${names.join(' JOIN ')}`,
      pos, 'JOIN');
  }
  const joinText = String(from[1].join).toUpperCase();
  const joinType = JOIN_TYPES[joinText];
  if (!joinType) throw notSupportedYet(joinText, pos);

  const streamNames = new Set([relation.sourceName, ...(from[streamIdx].as ? [String(from[streamIdx].as)] : [])]);
  const staticNames = new Set([table.name, ...(staticNode.as ? [String(staticNode.as)] : [])]);
  const inStream = (c: string) => relation.schema.some((f) => f.name === c);
  const inStatic = (c: string) => table.schema.some((f) => f.name === c);
  const sideOf = (n: SqlNode): 'stream' | 'static' | null => {
    if (n?.type !== 'column_ref') return null;
    const c = columnName(n.column);
    if (n.table) return streamNames.has(String(n.table)) ? (inStream(c) ? 'stream' : null) : staticNames.has(String(n.table)) ? (inStatic(c) ? 'static' : null) : null;
    return inStream(c) && !inStatic(c) ? 'stream' : inStatic(c) && !inStream(c) ? 'static' : null;
  };
  const keys: { stream: string; static: string }[] = [];
  const walk = (n: SqlNode) => {
    if (n?.type === 'binary_expr' && String(n.operator).toUpperCase() === 'AND') {
      walk(n.left);
      walk(n.right);
      return;
    }
    const l = sideOf(n?.left), r = sideOf(n?.right);
    if (n?.type !== 'binary_expr' || n.operator !== '=' || !l || !r || l === r) {
      throw new SqlValidationError(
        `A stream-static join needs ON <stream column> = <static column> [AND …]; qualify a column that both tables have (${relation.sourceName}.x = ${table.name}.x)`,
        posOf(n) ?? pos, 'ON');
    }
    const streamCol = columnName((l === 'stream' ? n.left : n.right).column);
    const staticCol = columnName((l === 'static' ? n.left : n.right).column);
    keys.push({ stream: streamCol, static: staticCol });
  };
  if (!from[1].on) throw new SqlValidationError('A stream-static join needs an ON clause (ON <stream column> = <static column>)', pos, 'ON');
  walk(from[1].on);

  const sameNamedKeys = new Set(keys.filter((k) => k.stream === k.static).map((k) => k.static));
  const columns: string[] = [];
  for (const f of table.schema) {
    if (sameNamedKeys.has(f.name)) continue;
    if (inStream(f.name)) {
      throw new SqlValidationError(
        `Column "${f.name}" is in both the stream ${relation.sourceName} and the static table ${table.name}; ` +
          `leave it out of the static table's schema (unlisted fields are ignored), or make it a join key`,
        pos, 'JOIN');
    }
    columns.push(f.name);
  }
  const schema: Schema = [...relation.schema, ...table.schema.filter((f) => columns.includes(f.name)).map((f) => ({ ...f, nullable: true }))];
  const qualifiers = [...streamNames, ...staticNames];
  const condition = builder(new Set(qualifiers)).build(from[1].on, pos);
  const staticRel: LogicalPlan = { kind: 'StaticRelation', table, keys, columns };
  const streamRel: LogicalPlan = relation;
  const plan: LogicalPlan = {
    kind: 'Join',
    joinType,
    left: streamIdx === 0 ? streamRel : staticRel,
    right: streamIdx === 0 ? staticRel : streamRel,
    condition,
    pos,
  };
  return { plan, schema, qualifiers };
}

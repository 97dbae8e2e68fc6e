/**
 * FROM <stream> [INNER | LEFT | RIGHT | FULL] JOIN <static table> ON <equalities> | USING (…) →
 * a Join node whose other side is a StaticRelation (a table declared in the job's `staticTables`).
 *
 * The ON clause must be a conjunction of `stream column = static column` (qualified with the
 * table name or alias when a name is in both); USING (k) is `stream.k = static.k`. The joined
 * rows carry the left side's columns and then the right's, a USING join's keys first, as Spark's
 * output is (the key columns are the stream's); a static column named like a
 * stream column is only allowed for a same-named join key (the values are equal, or NULL on the
 * static side of a LEFT join), so an unqualified name in the rest of the query never means two
 * things. Which join types are legal with a stream is the analyzer's call (Spark's rules).
 */
import { unsupportedOperation } from '../errors';
import { VALUES_TABLE, type StaticTableSpec } from '../operators/stream-static-join';
import type { Schema } from '../types';
import { exprToString, referencedColumns, type Expr, type SqlPosition } from './expression';
import { ambiguousReference, lineColumn, type ExpressionBuilder, type Scope } from './expression-builder';
import { DUPLICATE_COLUMN_MARK, sideColumnName, sidesByQualifier } from './column-names';
import { children, relationOutput, type LogicalPlan, type StaticView, type StreamingRelation } from './logical-plan';
import { typeOfField } from './data-types';
import { implicitCastExpr } from './expression-compiler';
import { someExpression } from './parser/expression-tree';
import { conjunctionOf, splitConjunctivePredicates, type Expression, type LogicalPlan as UnresolvedPlan } from './parser/unresolved-plan';
import { notSupportedYet, SqlValidationError } from './sql-error';

export interface PlannedJoin {
  plan: LogicalPlan;
  /** Columns the rest of the query reads, in Spark's order: the left side's, then the right's (a USING join's keys first). */
  schema: Schema;
  /** Names and aliases that may qualify a column. */
  qualifiers: string[];
  /** How a join of sides that share column names resolves them (see Scope). */
  scope?: Pick<Scope, 'sides' | 'merged'>;
}

type Join = Extract<UnresolvedPlan, { kind: 'Join' }>;

const JOIN_TYPES: Partial<Record<Join['joinType'], string>> = { Inner: 'Inner', LeftOuter: 'LeftOuter', RightOuter: 'RightOuter', FullOuter: 'FullOuter' };
const JOIN_SQL: Record<Join['joinType'], string> = {
  Inner: 'JOIN', Cross: 'CROSS JOIN', LeftOuter: 'LEFT JOIN', RightOuter: 'RIGHT JOIN', FullOuter: 'FULL JOIN', LeftSemi: 'LEFT SEMI JOIN', LeftAnti: 'LEFT ANTI JOIN',
};

/** A table in FROM: its name and alias, or undefined when it is not a plain name. */
function tableOf(p: UnresolvedPlan): { name: string; alias?: string } | undefined {
  if (p.kind === 'UnresolvedRelation') return { name: p.multipartIdentifier.join('.') };
  if (p.kind === 'SubqueryAlias' && p.child.kind === 'UnresolvedRelation') return { name: p.child.multipartIdentifier.join('.'), alias: p.alias };
  return undefined;
}

/**
 * The stream side of a stream-static join: the stream itself, a join over it, or a subquery or
 * CTE over it; its plan, its columns, the names that qualify them, and the scope a join of
 * streams below made for columns several streams share.
 */
interface StreamSide { plan: LogicalPlan; schema: Schema; names: string[]; label: string; scope?: PlannedJoin['scope'] }

/** A side of a stream-static join: a table (a stream or a static table) by name, or a subquery over a static table. */
interface JoinSide {
  name: string;
  alias?: string;
  view?: StaticView;
  /** A subquery's table. */
  table?: StaticTableSpec;
  /**
   * A join of static tables: the names of its tables, each naming its own columns (lower-cased
   * qualifier → lower-cased name → the view's column), as they do in the join itself.
   */
  joined?: { qualifiers: string[]; sides?: ReadonlyMap<string, ReadonlyMap<string, string>> };
}

/**
 * A join's side that is a subquery or CTE over static tables and no stream (`JOIN (SELECT region,
 * max(weight) AS w FROM regions GROUP BY region) r`): Spark's batch plan on the static side, any
 * plan over the tables (an aggregation, DISTINCT, ORDER BY and LIMIT, a UNION or a join of static
 * tables, a generator), which the join runs once when it loads its table (streaming-query.ts).
 */
function staticViewOf(p: UnresolvedPlan, planLeaf: JoinLeafPlanner | undefined): JoinSide | undefined {
  if (p.kind === 'Join') return undefined;
  const planned = planLeaf?.(p);
  if (!planned || isStreaming(planned.plan)) return undefined;
  const alias = p.kind === 'SubqueryAlias' ? p.alias : undefined;
  const table = firstStaticTable(planned.plan);
  if (!table) return undefined;
  // Relations with a generator's rows beside them: each of their names reads its own columns, as a join of tables'.
  if (planned.qualifiers) return staticJoinSide(p, { plan: planned.plan, schema: planned.schema, qualifiers: planned.qualifiers, ...(planned.scope ? { scope: planned.scope } : {}) });
  const name = alias ?? planned.name ?? '__auto_generated_subquery_name';
  return { name, alias, view: { name, plan: planned.plan, schema: planned.schema }, table };
}

/**
 * A join of static tables alone (`FROM dim1 JOIN dim2 ON … JOIN events e ON …`) as a side of a
 * join with a stream: Spark's batch relation there, a batch plan on the static side, whose columns
 * keep the names of the tables they come from (`dim2.name`).
 */
function staticJoinSide(join: UnresolvedPlan, planned: PlannedJoin): JoinSide | undefined {
  const table = firstStaticTable(planned.plan);
  if (!table) return undefined;
  const name = writtenJoin(join);
  return { name, view: { name, plan: planned.plan, schema: planned.schema }, table, joined: { qualifiers: planned.qualifiers, ...(planned.scope ? { sides: planned.scope.sides } : {}) } };
}

/** A join's tables as written, each with its alias (`dim d1 JOIN dim2 d2`), which names it in the explain and in messages. */
function writtenJoin(p: UnresolvedPlan): string {
  if (p.kind === 'Join') return `${writtenJoin(p.left)} ${JOIN_SQL[p.joinType]} ${writtenJoin(p.right)}`;
  if (p.kind === 'Generate' && !p.tableFunction) return `${writtenJoin(p.child)}, LATERAL ${p.qualifier ?? '(…)'}`;
  const t = tableOf(p);
  if (t) return t.alias ? `${t.name} ${t.alias}` : t.name;
  return p.kind === 'SubqueryAlias' ? `(…) ${p.alias}` : '(…)';
}

/** The first static table a static plan reads (left before right), which names the join's side where it reads several. */
export function firstStaticTable(plan: LogicalPlan): StaticTableSpec | undefined {
  if (plan.kind === 'StaticRelation') return plan.table;
  for (const c of children(plan)) {
    const t = firstStaticTable(c);
    if (t) return t;
  }
  return undefined;
}

/**
 * A side of a join of streams as written: a stream, or a subquery or CTE over the streams (an
 * aggregation of one stream, say, as Spark 3.5+ chains them).
 */
interface JoinLeaf {
  /** The stream's name, or the CTE's; unset: a subquery (named by its alias only). */
  name?: string;
  alias?: string;
  /** Set for a stream read as is. */
  relation?: StreamingRelation;
  plan: LogicalPlan;
  schema: Schema;
  /**
   * A join of a stream with static tables as a side (`i JOIN campaigns c ON … JOIN clicks k ON
   * …`): the names that qualify its columns, and each one's columns by lower-cased name → the
   * side's row column.
   */
  joined?: { node: UnresolvedPlan; qualifiers: string[]; sides: ReadonlyMap<string, ReadonlyMap<string, string>> };
}

/**
 * A planned subquery or CTE reference of a join, or a LATERAL VIEW, generator or subquery over
 * relations: its plan and columns, the CTE's name, and for the last the names that qualify its
 * columns (its relations' and its own alias) with the scope telling each one's columns.
 */
export interface JoinLeafPlan { plan: LogicalPlan; schema: Schema; name?: string; qualifiers?: string[]; scope?: PlannedJoin['scope'] }

/** Plans a subquery or CTE reference of a join (undefined: it is neither, e.g. a static table). */
export type JoinLeafPlanner = (u: UnresolvedPlan) => JoinLeafPlan | undefined;

/** The sides of a join (of joins) of streams, left to right; undefined when one is not a stream or a plan over them. */
function leavesOf(p: UnresolvedPlan, relations: readonly StreamingRelation[], planLeaf: JoinLeafPlanner | undefined, planJoin?: (j: Join) => PlannedJoin): JoinLeaf[] | undefined {
  if (p.kind === 'Join') {
    const l = leavesOf(p.left, relations, planLeaf, planJoin), r = leavesOf(p.right, relations, planLeaf, planJoin);
    if (l && r) return [...l, ...r];
    // A join below that reads a static table: one side, planned as the join it is.
    const planned = planJoin?.(p);
    if (!planned || !isStreaming(planned.plan)) return undefined;
    return [{ plan: planned.plan, schema: planned.schema, joined: { node: p, qualifiers: planned.qualifiers, sides: planned.scope?.sides ?? new Map() } }];
  }
  const t = tableOf(p);
  const relation = t && relations.find((r) => r.sourceName.toLowerCase() === t.name.toLowerCase());
  if (t && relation) return [{ name: relation.sourceName, alias: t.alias, relation, plan: relation, schema: relationOutput(relation) }];
  const planned = planLeaf?.(p);
  if (!planned || !isStreaming(planned.plan)) return undefined;
  if (planned.qualifiers) return [{ plan: planned.plan, schema: planned.schema, joined: { node: p, qualifiers: planned.qualifiers, sides: planned.scope?.sides ?? new Map() } }];
  return [{ name: planned.name, alias: p.kind === 'SubqueryAlias' ? p.alias : undefined, plan: planned.plan, schema: planned.schema }];
}

/** The names of the job's static tables, as an error lists them: the row inline tables select from is none a query names. */
function jobTableNames(statics: readonly StaticTableSpec[]): string[] {
  return statics.filter((t) => t !== VALUES_TABLE).map((t) => t.name);
}

/**
 * A relation that no stream, static table or CTE in scope names: Spark's TABLE_OR_VIEW_NOT_FOUND
 * (CheckAnalysis on an unresolved relation), with the job's sources and the CTEs in scope.
 */
export function tableOrViewNotFound(name: string, relations: readonly StreamingRelation[], statics: readonly StaticTableSpec[], pos: SqlPosition | undefined, ctes: readonly string[] = []): SqlValidationError {
  const sources = relations.length > 1 ? `sources are named ${relations.map((r) => `"${r.sourceName}"`).join(', ')}` : `source is named "${relations[0].sourceName}"`;
  const tables = jobTableNames(statics);
  return new SqlValidationError(
    `[TABLE_OR_VIEW_NOT_FOUND] The table or view \`${name}\` cannot be found. FROM ${name}: unknown source; this job's ${sources}${ctes.length ? ` (CTEs in scope: ${ctes.join(', ')})` : ''}` +
      (tables.length ? `; name it, or a static table from the job's staticTables (${tables.join(', ')})` : ''),
    pos, 'FROM', 'TABLE_OR_VIEW_NOT_FOUND');
}

function isStreaming(plan: LogicalPlan): boolean {
  return plan.kind === 'StreamingRelation' || children(plan).some(isStreaming);
}

export function buildStreamStaticJoin(
  join: Join,
  relations: readonly StreamingRelation[],
  statics: StaticTableSpec[],
  builder: (scope: Scope) => ExpressionBuilder,
  planLeaf?: JoinLeafPlanner,
  /** Planning a static side (a subquery or CTE over static tables), where two static tables may be joined. */
  staticJoins = false,
  /**
   * The left side of a join of static tables standing in the stream's place (leftStaticJoin):
   * the name that reads its columns (its alias, or its name), or a join's names.
   */
  standIn?: { relation: StreamingRelation; name: string; joined?: JoinSide['joined'] },
): PlannedJoin {
  const pos = lineColumn(join.pos);
  const streamOf = (t: { name: string }) => relations.find((r) => r.sourceName.toLowerCase() === t.name.toLowerCase());
  // Each join below is planned once, whether it becomes a side of a join of streams or the
  // stream side of this one.
  const nested = new Map<Join, PlannedJoin>();
  const planJoin = (j: Join): PlannedJoin => {
    // A join that reads no stream is one of static tables, a batch join wherever it is.
    if (!nested.has(j)) nested.set(j, buildStreamStaticJoin(j, relations, statics, builder, planLeaf, staticJoins || !readsStream(j)));
    return nested.get(j)!;
  };
  // Whether a part of FROM reads a stream: a stream by name, or a CTE or subquery over one.
  const readsStream = (p: UnresolvedPlan): boolean => {
    if (p.kind === 'Join') return readsStream(p.left) || readsStream(p.right);
    const t = tableOf(p);
    const planned = planLeaf?.(p);
    if (planned) return isStreaming(planned.plan);
    // A name that is neither a stream nor a static table: the join below says so.
    return !t || streamOf(t) !== undefined || !statics.some((s) => s.name.toLowerCase() === t.name.toLowerCase());
  };
  const sideLeaves = [join.left, join.right].map((p) => leavesOf(p, relations, planLeaf, planJoin));
  if (sideLeaves[0] && sideLeaves[1]) return buildStreamStreamJoin(join, [...sideLeaves[0], ...sideLeaves[1]], builder);
  // A side that is itself a join over a stream (`events e JOIN users u ON … JOIN regions r ON …`,
  // a star of dimension tables around the stream) or a subquery or CTE over one: the stream side
  // of this join, as Spark's stream-static join takes any streaming plan on that side.
  const streamingOf = (p: UnresolvedPlan): StreamSide | undefined => {
    const t = tableOf(p);
    if (t && streamOf(t)) return undefined;
    const planned: JoinLeafPlan | undefined = p.kind === 'Join' ? planJoin(p) : planLeaf?.(p);
    if (!planned || !isStreaming(planned.plan)) return undefined;
    if (planned.qualifiers) {
      return { plan: planned.plan, schema: planned.schema, names: planned.qualifiers, label: `join of ${planned.qualifiers.join(', ')}`, ...(planned.scope ? { scope: planned.scope } : {}) };
    }
    const alias = p.kind === 'SubqueryAlias' ? p.alias : undefined;
    const names = [...(planned.name ? [planned.name] : []), ...(alias ? [alias] : [])];
    if (names.length === 0) {
      throw new SqlValidationError('A subquery joined with a static table needs an alias, to name its columns: FROM (SELECT …) e JOIN regions r ON e.k = r.k', lineColumn(join.pos), 'JOIN');
    }
    return { plan: planned.plan, schema: planned.schema, names, label: alias ?? names[0] };
  };
  const streaming = [join.left, join.right].map(streamingOf);
  const staticJoinOf = (p: UnresolvedPlan) => (p.kind === 'Join' && !readsStream(p) ? staticJoinSide(p, planJoin(p)) : undefined);
  // A stream by name is the stream, also where a CTE has its name (the side of a static join that
  // stands in the stream's place, leftStaticJoin, may be a CTE's).
  const byName = (p: UnresolvedPlan) => {
    const t = tableOf(p);
    return t && streamOf(t) ? t : undefined;
  };
  const sides = [join.left, join.right].map((p, i): JoinSide | undefined => (streaming[i] ? { name: streaming[i]!.label } : byName(p) ?? staticViewOf(p, planLeaf) ?? staticJoinOf(p) ?? tableOf(p)));
  if (!sides[0] || !sides[1] || (streaming[0] && streaming[1])) {
    const nested = join.left.kind === 'Join' || join.right.kind === 'Join';
    throw notSupportedYet(nested ? 'A join of joins that each read a stream and a static table' : 'A join with a subquery', pos);
  }
  const [a, b] = sides as JoinSide[];
  const stream = (s: JoinSide, i: number): StreamSide | undefined => {
    if (streaming[i]) return streaming[i];
    const r = s.view ? undefined : streamOf(s);
    if (!r) return undefined;
    if (standIn?.relation === r) {
      const { joined } = standIn;
      return { plan: r, schema: relationOutput(r), names: joined?.qualifiers ?? [standIn.name], label: standIn.name, ...(joined?.sides ? { scope: { sides: joined.sides } } : {}) };
    }
    return { plan: r, schema: relationOutput(r), names: [r.sourceName, ...(s.alias ? [s.alias] : [])], label: r.sourceName };
  };
  const streamIdx = stream(a, 0) ? 0 : stream(b, 1) ? 1 : -1;
  const streamSide = streamIdx < 0 ? undefined : stream([a, b][streamIdx], streamIdx)!;
  const staticSide = streamIdx < 0 ? undefined : [a, b][1 - streamIdx];
  const view = staticSide?.view;
  const table = staticSide && (staticSide.table ?? statics.find((t) => t.name.toLowerCase() === staticSide.name.toLowerCase()));
  const staticOf = (s: JoinSide) => s.table ?? statics.find((t) => t.name.toLowerCase() === s.name.toLowerCase());
  if (streamIdx < 0 && staticJoins && staticOf(a) && staticOf(b)) return buildStaticJoin(join, [{ side: a, table: staticOf(a)! }, { side: b, table: staticOf(b)! }], statics, builder, planLeaf);
  if (streamIdx < 0 || !table || !staticSide || !streamSide) {
    for (const p of [join.left, join.right]) {
      const t = tableOf(p);
      if (t && !streamOf(t) && !statics.some((s) => s.name.toLowerCase() === t.name.toLowerCase()) && !planLeaf?.(p)) {
        throw tableOrViewNotFound(t.name, relations, statics, lineColumn(p.kind === 'SubqueryAlias' ? p.child.pos : p.pos));
      }
    }
    const known = jobTableNames(statics).join(', ') || 'none declared';
    throw new SqlValidationError(
      `A join needs the stream "${streamSide?.label ?? relations[0].sourceName}" and a static table from the job's staticTables (${known}); got ${a.name} JOIN ${b.name}`,
      pos, 'JOIN');
  }
  const joinType = STATIC_JOIN_TYPES[join.joinType];
  if (joinType && join.natural) {
    const staticSchema = view?.schema ?? table.schema;
    const [left, right] = streamIdx === 0 ? [streamSide.schema, staticSchema] : [staticSchema, streamSide.schema];
    return buildStreamStaticJoin(naturalAsUsing(join, left, right), relations, statics, builder, planLeaf, staticJoins, standIn);
  }
  if (!joinType) throw notSupportedYet(JOIN_SQL[join.joinType], pos);
  // A semi or anti join outputs the left side's columns alone: the static table's are only read.
  // With the static table on the left, Spark's UnsupportedOperationChecker refuses it.
  const filtering = joinType === 'LeftSemi' || joinType === 'LeftAnti';
  if (filtering && streamIdx === 1) {
    throw unsupportedOperation(joinType === 'LeftSemi'
      ? 'LeftSemi join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported'
      : 'LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported', { position: pos });
  }

  const lower = (s: string) => s.toLowerCase();
  const streamNames = new Set(streamSide.names.map(lower));
  // A subquery is named by its alias (a CTE by its name); its columns are its output, not the table's.
  const joined = staticSide.joined;
  // An aliased table whose name the stream side has (`t JOIN t t2`, a relation joined with
  // itself) is read by its alias alone, as Spark reads any aliased relation.
  const tableNames = staticSide.alias ? [...(streamNames.has(lower(table.name)) ? [] : [table.name]), staticSide.alias] : [table.name];
  const staticNames = new Set((joined?.qualifiers ?? (view ? [view.name] : tableNames)).map(lower));
  const staticLabel = view?.name ?? table.name;
  const inStream = (c: string) => streamSide.schema.some((f) => f.name === c);
  // A static column named like a column of the stream side (`name` of a second dimension table
  // where the first has one too) is kept as the row's `<alias>.<name>`, as a join of streams keeps
  // a shared name, so that `r.name` and `p.name` both read; unqualified it is ambiguous, as in
  // Spark. A USING key is not: the join keeps the stream's (an ON equality `e.k = r.k` keeps
  // both, as Spark's join outputs both sides' attributes).
  const keyNames = new Set(join.usingColumns?.map(lower) ?? []);
  const tableColumns = view?.schema ?? table.schema;
  // The static side of an outer join is NULL where no row matched, its same-named key too
  // (`r.region` of a stream row with no match): there the key is the static side's own column,
  // out of `*` as Spark's USING join keeps it, while the unqualified name reads the stream's.
  const padded = (joinType === 'LeftOuter' && streamIdx === 0) || (joinType === 'RightOuter' && streamIdx === 1);
  const hiddenKeys = new Set(padded ? tableColumns.filter((f) => inStream(f.name) && keyNames.has(lower(f.name))).map((f) => f.name) : []);
  // A semi or anti join's condition reads the pair too (`ON a.c1 = a.c2` beside a static c1), though
  // its output keeps the stream's columns alone.
  const shared = new Set(tableColumns.filter((f) => inStream(f.name) && (!keyNames.has(lower(f.name)) || hiddenKeys.has(f.name))).map((f) => f.name));
  // A join of static tables qualifies a column by the table it comes from (the last of its names).
  const staticQualifier = (c: string) => (joined?.sides ? [...joined.sides].filter(([, m]) => [...m.values()].includes(c)).pop()?.[0] : undefined) ?? staticSide.alias ?? staticLabel;
  const staticColumns = shared.size === 0 ? tableColumns : tableColumns.map((f) => (shared.has(f.name) ? { ...f, name: `${staticQualifier(f.name)}.${f.name}` } : f));
  /** The static side's column a name of its table reads (its kept name where the stream side shares it). */
  const staticColumn = (c: string): string | undefined => (tableColumns.some((f) => f.name === c) ? (shared.has(c) ? `${staticQualifier(c)}.${c}` : c) : undefined);
  /** The static side's column `q.c` reads: of a join of static tables, the column of q's table. */
  const qualifiedStatic = (q: string, c: string): string | undefined => {
    const own = joined?.sides ? joined.sides.get(q)?.get(lower(c)) : c;
    return own === undefined ? undefined : staticColumn(own);
  };
  const inStatic = (c: string) => staticColumn(c) !== undefined;
  // The stream side's row column a name reads: below a join of streams that share column names,
  // the side's own (`a.value` is the row's `a.value`), by the scope that join made.
  const sharedNames = streamSide.scope?.sides;
  const streamColumn = (q: string | undefined, c: string): string | undefined => {
    const named = q === undefined ? undefined : sharedNames?.get(q)?.get(lower(c));
    if (named) return named;
    if (q !== undefined && !streamNames.has(q)) return undefined;
    if (q === undefined && sharedNames) {
      const merged = streamSide.scope?.merged?.get(lower(c));
      if (merged) return merged;
      const found = new Set([...sharedNames.values()].flatMap((m) => m.get(lower(c)) ?? []));
      if (found.size > 0) return found.size === 1 ? [...found][0] : undefined;
    }
    return inStream(c) ? c : undefined;
  };
  const sideOf = (n: Expression): { side: 'stream' | 'static'; column: string } | null => {
    if (n.kind !== 'UnresolvedAttribute' || n.nameParts.length > 2) return null;
    const c = n.nameParts[n.nameParts.length - 1];
    if (n.nameParts.length === 2) {
      const q = lower(n.nameParts[0]);
      const s = streamColumn(q, c);
      if (s) return { side: 'stream', column: s };
      const own = staticNames.has(q) ? qualifiedStatic(q, c) : undefined;
      if (own) return { side: 'static', column: own };
      return null;
    }
    const s = streamColumn(undefined, c);
    if (s && !inStatic(c)) return { side: 'stream', column: s };
    if (inStatic(c) && !s) return { side: 'static', column: staticColumn(c)! };
    return null;
  };
  /** The side an operand of an ON equality reads: every column it reads is of that side (at least one). */
  const operandSide = (n: Expression): 'stream' | 'static' | null => {
    const sides = new Set<'stream' | 'static' | null>();
    someExpression(n, (x) => {
      if (x.kind === 'UnresolvedAttribute') sides.add(sideOf(x)?.side ?? null);
      return false;
    });
    return sides.size === 1 ? [...sides][0] : null;
  };
  const qualifiers = [...streamNames, ...staticNames];
  // Below a join of streams that share column names, the static table's qualifiers name its
  // columns beside the streams' (Scope.sides), each column by its own name.
  const streamSides = streamSide.scope?.sides ?? new Map([...streamNames].map((q) => [q, new Map(streamSide.schema.map((f) => [lower(f.name), f.name]))] as const));
  // Each qualifier names its side's columns (`e.*` is the stream's, `r.*` the table's, as in
  // Spark); a semi or anti join's table is read by its ON only.
  const staticSides = joined?.sides
    ? [...joined.sides].map(([q, m]) => [q, new Map([...m].map(([k, c]) => [k, staticColumn(c) ?? c]))] as const)
    : [...staticNames].map((q) => [q, new Map(tableColumns.map((f) => [lower(f.name), staticColumn(f.name)!]))] as const);
  const merged = streamSide.scope?.merged || hiddenKeys.size > 0 ? new Map([...streamSide.scope?.merged ?? [], ...[...hiddenKeys].map((k) => [lower(k), k] as const)]) : undefined;
  const scope: NonNullable<PlannedJoin['scope']> = { sides: sidesByQualifier([...streamSides, ...(filtering ? [] : staticSides)]), ...(merged ? { merged } : {}) };
  // The ON reads both sides' columns: a column named like a niladic function (`user`) is the column.
  const onBuilder = () => builder({
    qualifiers: new Set(qualifiers), columns: new Set([...streamSide.schema, ...staticColumns].map((f) => f.name.toLowerCase())),
    sides: sidesByQualifier([...streamSides, ...staticSides]), ...(merged ? { merged } : {}),
  });
  const keys: { stream: string; static: string; streamExpr?: Expr; staticExpr?: Expr; nullSafe?: true }[] = [];
  // ON's other conjuncts: Spark's hash join checks them on each pair its keys match.
  const others: Expression[] = [];
  const keyOf = (n: Expression) => {
    // `=`, or `<=>`, a key whose NULLs match (Spark's ExtractEquiJoinKeys takes both).
    const equality = n.kind === 'BinaryOperator' && (n.op === 'EqualTo' || n.op === 'EqualNullSafe');
    const nullSafe = equality && n.op === 'EqualNullSafe' ? { nullSafe: true as const } : {};
    const l = equality ? sideOf(n.left) : null;
    const r = equality ? sideOf(n.right) : null;
    if (l && r && l.side !== r.side) {
      keys.push(l.side === 'stream' ? { stream: l.column, static: r.column, ...nullSafe } : { stream: r.column, static: l.column, ...nullSafe });
      return;
    }
    // An equality of an expression over one side's columns and one over the other's is a key too,
    // each side's value computed before the table is hashed and looked up.
    const ls = equality ? operandSide(n.left) : null;
    const rs = equality ? operandSide(n.right) : null;
    if (n.kind !== 'BinaryOperator' || !ls || !rs || ls === rs) {
      others.push(n);
      return;
    }
    const build = (x: Expression) => onBuilder().build(x);
    const [s, t] = ls === 'stream' ? [n.left, n.right] : [n.right, n.left];
    const [streamExpr, staticExpr] = [build(s), build(t)];
    keys.push({
      stream: streamExpr.kind === 'column' ? streamExpr.name : exprToString(streamExpr),
      static: staticExpr.kind === 'column' ? staticExpr.name : exprToString(staticExpr),
      ...(streamExpr.kind === 'column' ? {} : { streamExpr }),
      ...(staticExpr.kind === 'column' ? {} : { staticExpr }),
      ...nullSafe,
    });
  };
  let condition: Expr;
  // A USING name reads a column of another case (Spark's resolver ignores case): each side's own
  // name, where both sides write it alike.
  const usingColumns = join.usingColumns?.map((k) => {
    const own = streamSide.schema.find((f) => lower(f.name) === lower(k))?.name;
    return own !== undefined && tableColumns.some((f) => f.name === own) ? own : k;
  });
  if (usingColumns) {
    for (const k of usingColumns) {
      if (!inStream(k) || !inStatic(k)) {
        throw new SqlValidationError(`USING column \`${k}\` cannot be resolved on both sides of the join: ${inStream(k) ? staticLabel : streamSide.label} has no column ${k}`, pos, 'USING', 'UNRESOLVED_USING_COLUMN_FOR_JOIN');
      }
      keys.push({ stream: k, static: staticColumn(k)! });
    }
    const eq = (k: string): Expr => ({ kind: 'binary', op: '=', left: { kind: 'column', name: k, pos }, right: { kind: 'column', name: staticColumn(k)!, pos }, pos });
    condition = usingColumns.map(eq).reduce((x, y) => ({ kind: 'binary', op: 'AND', left: x, right: y, pos }));
  } else if (!join.condition) {
    // CROSS JOIN, or a join without ON: every static row with every stream row (Spark's
    // BroadcastNestedLoopJoin of the stream with the broadcast table).
    condition = { kind: 'literal', value: true, type: 'boolean', pos };
  } else {
    // Without an equality of the two sides (`ON e.amount BETWEEN t.lo AND t.hi`), every static
    // row is a candidate the condition decides, as Spark's nested loop join: fine for the small
    // tables a stream is joined with, a full pass over the table per stream row otherwise.
    splitConjunctivePredicates(join.condition).forEach(keyOf);
    condition = onBuilder().build(join.condition);
  }
  const otherCondition = others.length ? onBuilder().build(conjunctionOf(others)) : undefined;

  const sameNamedKeys = new Set(keys.filter((k) => k.stream === k.static && !k.streamExpr && !k.staticExpr && !k.nullSafe).map((k) => k.static));
  const columns: string[] = [];
  for (const f of filtering ? [] : staticColumns) {
    if (sameNamedKeys.has(f.name)) continue;
    if (inStream(f.name)) {
      throw new SqlValidationError(
        `Column "${f.name}" is in both the stream ${streamSide.label} and the static table ${staticLabel}; ` +
          (view ? `rename it in the subquery (${f.name} AS another name), or make it a join key` : `leave it out of the static table's schema (unlisted fields are ignored), or make it a join key`),
        pos, 'JOIN');
    }
    columns.push(f.name);
  }
  const hidden = new Set([...hiddenKeys].map(staticColumn));
  const staticOutput = staticColumns.filter((f) => columns.includes(f.name) && !hidden.has(f.name)).map((f) => ({ ...f, nullable: true }));
  // Spark's output (ResolveNaturalAndUsingJoin's Project over a USING join): the USING keys
  // first, one for each time USING names one (`USING (k, k)` is k twice), then the left side's
  // other columns, then the right's; of any other join, the left's columns, then the right's.
  const keyFields = (usingColumns ?? []).map((k) => streamSide.schema.find((f) => f.name === k)!);
  const streamOutput = streamSide.schema.filter((f) => !keyFields.includes(f));
  const schema: Schema = [...keyFields, ...(streamIdx === 0 ? [...streamOutput, ...staticOutput] : [...staticOutput, ...streamOutput])];
  // Shared names are kept by a Project over the static side, its batch plan.
  const kept: StaticView | undefined = shared.size === 0 ? view : {
    name: staticLabel,
    plan: { kind: 'Project', list: tableColumns.map((f) => ({ expr: { kind: 'column', name: f.name }, name: staticColumn(f.name)! })), child: view?.plan ?? { kind: 'StaticRelation', table, keys: [], columns: table.schema.map((f) => f.name) } },
    schema: staticColumns,
  };
  const staticRel: LogicalPlan = { kind: 'StaticRelation', table, keys, columns, ...(kept ? { view: kept } : {}) };
  if (otherCondition) {
    // The pair's row holds one column of a name: one both sides have is read as neither's.
    const both = [...referencedColumns(otherCondition)].find((c) => inStream(c) && staticColumns.some((f) => f.name === c) && !sameNamedKeys.has(c));
    if (both) {
      throw new SqlValidationError(
        `Column "${both}" is in both the stream ${streamSide.label} and the static table ${staticLabel}, and the ON condition reads it: rename one of them in a subquery (${both} AS another name)`,
        pos, 'ON');
    }
  }
  const plan: LogicalPlan = {
    kind: 'Join',
    joinType,
    left: streamIdx === 0 ? streamSide.plan : staticRel,
    right: streamIdx === 0 ? staticRel : streamSide.plan,
    condition,
    ...(otherCondition ? { otherCondition } : {}),
    ...(join.nullAware ? { nullAware: true } : {}),
    ...(join.inSubquery ? { inSubquery: true } : {}),
    pos,
  };
  return { plan, schema, qualifiers, scope };
}

/** A side of a join of two static tables: as written, and the table it reads (its first, for a subquery). */
interface StaticJoinSide { side: JoinSide; table: StaticTableSpec }

/**
 * A join of two static tables (or subqueries over them) on a static side: Spark's batch join,
 * which Weir runs as its stream-static join with the left side's rows in the stream's place (its
 * plan run over its table, then each row looking up the right side, loaded and hashed on the
 * keys). Its keys, ON and output are the stream-static join's. That join preserves the rows of
 * its input only, so a RIGHT join is the LEFT join of the sides swapped, its columns put back in
 * order, and a FULL join that LEFT join's rows and the right side's rows that match no left row
 * (a LEFT ANTI join of the sides swapped), padded with NULLs for the left's columns, in one UNION
 * ALL: the rows of Spark's full outer join.
 */
/**
 * NATURAL JOIN as Spark's ResolveNaturalAndUsingJoin reads it: a USING join on the column names
 * both sides have, in the left side's order; of none, a join without a condition.
 */
function naturalAsUsing(join: Join, left: Schema, right: Schema): Join {
  const rightNames = new Set(right.map((f) => f.name.toLowerCase()));
  const { natural: _natural, ...rest } = join;
  const common = left.filter((f) => rightNames.has(f.name.toLowerCase())).map((f) => f.name);
  return common.length ? { ...rest, usingColumns: common } : rest;
}

function buildStaticJoin(join: Join, [l, r]: [StaticJoinSide, StaticJoinSide], statics: StaticTableSpec[], builder: (scope: Scope) => ExpressionBuilder, planLeaf: JoinLeafPlanner | undefined): PlannedJoin {
  const schemaOf = (s: StaticJoinSide) => s.side.view?.schema ?? s.table.schema;
  if (join.natural) return buildStaticJoin(naturalAsUsing(join, schemaOf(l), schemaOf(r)), [l, r], statics, builder, planLeaf);
  if (join.joinType !== 'RightOuter' && join.joinType !== 'FullOuter') return leftStaticJoin(join, l, statics, builder, planLeaf);
  const swapped: Join = { ...join, left: join.right, right: join.left };
  const preserving = join.joinType === 'RightOuter' ? leftStaticJoin({ ...swapped, joinType: 'LeftOuter' }, r, statics, builder, planLeaf) : leftStaticJoin({ ...join, joinType: 'LeftOuter' }, l, statics, builder, planLeaf);
  // Spark's columns: a USING key once (a right join's the right's, a full join's coalesce of the
  // two, which is what the rows of either branch hold), then the left's columns, then the right's.
  const using = new Set((join.usingColumns ?? []).map((k) => k.toLowerCase()));
  const columnsOf = (s: StaticJoinSide) => (s.side.view?.schema ?? s.table.schema).filter((f) => !using.has(f.name.toLowerCase()));
  const byName = (schema: Schema, name: string) => schema.find((f) => f.name.toLowerCase() === name.toLowerCase())!;
  // Each time USING names a key (`USING (k, k)` is k twice, as Spark's leftKeys are).
  const keys = (join.usingColumns ?? []).map((k) => byName(preserving.schema, k));
  const leftColumns = columnsOf(l), rightColumns = columnsOf(r);
  const pos = lineColumn(join.pos);
  const lower = (n: string) => n.toLowerCase();
  // A name both sides have (`ON r.region = b.region`) is two columns, as in Spark: the left's
  // keeps it, the right's is the row's `<right>.<name>`, each NULL where its side is padded;
  // qualified each reads its own, unqualified it is ambiguous (Scope.sides).
  const shared = new Set(leftColumns.filter((f) => rightColumns.some((g) => lower(g.name) === lower(f.name))).map((f) => lower(f.name)));
  const qualifier = (s: StaticJoinSide) => s.side.alias ?? s.side.name;
  const rowName = (s: StaticJoinSide, f: Schema[number]) => (s === r && shared.has(lower(f.name)) ? `${qualifier(r)}.${f.name}` : f.name);
  // Where the preserving join holds a side's column: under the name its scope gives the side's.
  // The side that stood in the stream's place there keeps its columns' names; a qualifier would
  // not tell it apart where both sides have one name (`t RIGHT JOIN t`).
  const stood = join.joinType === 'RightOuter' ? r : l;
  const inPreserving = (s: StaticJoinSide, f: Schema[number]) => {
    if (s === stood && !s.side.joined) return f.name;
    const sides = preserving.scope?.sides;
    // A join of static tables on the side (`a JOIN b ON … RIGHT JOIN c ON …`): the column under
    // the name of the table it comes from, which its written join is not.
    for (const q of (s.side.joined?.qualifiers ?? []).map(lower)) {
      const own = s.side.joined?.sides ? [...s.side.joined.sides.get(q) ?? []].find(([, c]) => c === f.name)?.[0] : lower(f.name);
      const column = own === undefined ? undefined : sides?.get(q)?.get(own);
      if (column) return column;
    }
    // Of a name both sides have under one qualifier (`t RIGHT JOIN t`), the static side's is the later (sidesByQualifier).
    return [...sides?.get(lower(qualifier(s))) ?? []].filter(([k, c]) => sideColumnName(k, c) === lower(f.name)).pop()?.[1] ?? f.name;
  };
  const padded = (f: Schema[number]) => ({ ...f, nullable: true });
  // Each side's own USING key, `l.k` and `r.k` (NULL where the side is padded), as Spark's hidden
  // columns of the join: readable qualified, out of `*` (of a side that is no join of its own).
  const sideKeys = [l, r].some((s) => s.side.joined) ? [] : [l, r].flatMap((s) => [...using].map((k) => ({ side: s, field: padded(byName(schemaOf(s), k)), name: `${qualifier(s)}.${byName(schemaOf(s), k).name}`, key: true })));
  const columns = [
    ...keys.map((f) => ({ side: undefined, field: f, name: f.name, key: false })),
    ...leftColumns.map((f) => ({ side: l, field: padded(f), name: rowName(l, f), key: false })),
    ...rightColumns.map((f) => ({ side: r, field: join.joinType === 'FullOuter' ? padded(f) : f, name: rowName(r, f), key: false })),
    ...sideKeys,
  ];
  const out: Schema = columns.filter((c) => !c.key).map((c) => ({ ...c.field, name: c.name }));
  const project = (child: LogicalPlan, value: (c: (typeof columns)[number]) => Expr): LogicalPlan => ({ kind: 'Project', list: columns.map((c) => ({ expr: value(c), name: c.name })), child });
  const column = (name: string): Expr => ({ kind: 'column', name, pos });
  const fromPreserving = (c: (typeof columns)[number]) => column(c.side ? inPreserving(c.side, c.field) : c.name);
  const scope: PlannedJoin['scope'] = shared.size === 0 && sideKeys.length === 0 ? undefined : {
    ...(sideKeys.length ? { merged: new Map(keys.map((f) => [lower(f.name), f.name] as const)) } : {}),
    sides: sidesByQualifier([l, r].flatMap((s) => {
      // In the side's own order, its USING keys where they stand (`nt1.*` of a RIGHT join is k, v1).
      const own = new Map(sideKeys.filter((c) => c.side === s).map((c) => [lower(c.field.name), c.name] as const));
      const names = new Map(schemaOf(s).flatMap((f) => (own.has(lower(f.name)) ? [[lower(f.name), own.get(lower(f.name))!] as const] : using.has(lower(f.name)) ? [] : [[lower(f.name), rowName(s, f)] as const])));
      // A join of static tables on a side: each of its tables' names reads that table's columns.
      const joined = s.side.joined;
      if (joined?.sides) return [...joined.sides].map(([q, m]) => [q, new Map([...m].map(([k, c]) => [k, names.get(lower(c)) ?? c]))] as const);
      return [...new Set((joined?.qualifiers ?? [s.side.name, ...(s.side.alias ? [s.side.alias] : [])]).map(lower))].map((q) => [q, names] as const);
    })),
  };
  const planned = { qualifiers: preserving.qualifiers, ...(scope ? { scope } : {}) };
  if (join.joinType === 'RightOuter') return { ...planned, plan: project(preserving.plan, fromPreserving), schema: out };
  const unmatched = leftStaticJoin({ ...swapped, joinType: 'LeftAnti' }, r, statics, builder, planLeaf);
  const nullOf = (f: Schema[number]): Expr => implicitCastExpr({ kind: 'literal', value: null, type: 'null', pos }, typeOfField(f));
  const plan: LogicalPlan = {
    kind: 'Union', pos,
    // The unmatched right rows hold the right side's columns under their own names.
    branches: [project(preserving.plan, fromPreserving), project(unmatched.plan, (c) => (c.side === l ? nullOf(c.field) : column(c.side ? c.field.name : c.name)))],
  };
  return { ...planned, plan, schema: out };
}

/** A join of two static tables that preserves its left side's rows (INNER, LEFT, LEFT SEMI, LEFT ANTI), `left` that side. */
function leftStaticJoin(join: Join, { side: left, table }: StaticJoinSide, statics: StaticTableSpec[], builder: (scope: Scope) => ExpressionBuilder, planLeaf: JoinLeafPlanner | undefined): PlannedJoin {
  const schema = left.view?.schema ?? table.schema;
  // The left side stands where the join planner expects the stream, read by its alias (or name).
  // The stand-in's own name is one no SQL writes, so that the right side, which may be the same
  // relation (`t JOIN t`, `cte1 JOIN cte1 cte2`), is still the static side and not the stand-in.
  const name = left.alias ?? left.name;
  const stand: StreamingRelation = { kind: 'StreamingRelation', sourceName: `${DUPLICATE_COLUMN_MARK}${name}`, schema };
  const planned = buildStreamStaticJoin({ ...join, left: { kind: 'UnresolvedRelation', multipartIdentifier: [stand.sourceName], pos: join.left.pos } }, [stand], statics, builder, planLeaf, false,
    { relation: stand, name, ...(left.joined ? { joined: left.joined } : {}) });
  // A bare table is read through a Project, so that the join's left is no StaticRelation (which marks the side a join looks up).
  const relation: LogicalPlan = { kind: 'StaticRelation', table, keys: [], columns: table.schema.map((f) => f.name) };
  const read = left.view?.plan ?? relation;
  const leftPlan: LogicalPlan = read.kind !== 'StaticRelation' ? read : { kind: 'Project', list: schema.map((f) => ({ expr: { kind: 'column', name: f.name }, name: f.name })), child: read };
  const j = planned.plan as Extract<LogicalPlan, { kind: 'Join' }>;
  return { ...planned, plan: { ...j, left: leftPlan } };
}

const STREAM_JOIN_TYPES: Partial<Record<Join['joinType'], string>> = { ...JOIN_TYPES, LeftSemi: 'LeftSemi' };
/** A static table's: the analyzer then refuses those Spark refuses by the stream's side (a semi or anti join with the stream on the right). */
const STATIC_JOIN_TYPES: Partial<Record<Join['joinType'], string>> = { ...STREAM_JOIN_TYPES, LeftAnti: 'LeftAnti', Cross: 'Inner' };

/**
 * FROM <stream> [INNER | LEFT | RIGHT | FULL | LEFT SEMI] JOIN <stream> ON <condition> [JOIN …]: a
 * Join of streams (Spark's StreamingSymmetricHashJoinExec, planned by the stateful planner); a
 * join of three or more streams is a join whose side is a join, as written. The joined rows carry
 * the left side's columns and then the right's (a left semi join: the left's); the side that an
 * outer join pads with NULLs is nullable. A column name that several of the streams have (two
 * Kafka topics share all theirs; a self-join every one) is kept once per stream, read as
 * `a.value` and `b.value`, and is ambiguous unqualified, as in Spark. USING (k, …) is ON a.k = b.k
 * AND …, and a Project above the Join gives Spark's output of a USING join: each USING column once
 * (the left's, a right join's the right's, a full join's coalesce(a.k, b.k)), then the left's other
 * columns, then the right's; `a.k` and `b.k` stay readable qualified (Spark's hidden columns of
 * the join, out of `*`). Which joins Spark allows (output mode, watermarks, time ranges) is the
 * analyzer's call.
 */
function buildStreamStreamJoin(join: Join, sides: JoinLeaf[], builder: (scope: Scope) => ExpressionBuilder): PlannedJoin {
  const lower = (n: string) => n.toLowerCase();
  // A stream read twice (a self-join) is told apart by its aliases only: its name would mean either.
  const repeated = (leaf: JoinLeaf) => leaf.relation !== undefined && sides.filter((l) => l.relation === leaf.relation).length > 1;
  const names = sides.map((l) => (l.joined ? l.joined.qualifiers : [...(l.name === undefined || repeated(l) ? [] : [l.name]), ...(l.alias ? [l.alias] : [])]).map(lower));
  // How a message names a side: its stream, its CTE, its subquery's alias, or its join's tables.
  const shown = (l: JoinLeaf) => l.name ?? l.alias ?? (l.joined ? l.joined.qualifiers.join(', ') : 'a subquery');
  // A name two sides have qualifies neither: a static table joined on each side under aliases
  // of its own (`(o JOIN dims d) JOIN (c JOIN dims e)`) is read by those, as Spark reads an
  // aliased table by its alias only. A side left with no name cannot be read.
  const shared = new Set(names.flatMap((n, i) => n.filter((q) => names.some((m, j) => j !== i && m.includes(q)))));
  names.forEach((n, i) => {
    const own = n.filter((q) => !shared.has(q));
    if (own.length === 0) {
      const name = shown(sides[i]);
      throw new SqlValidationError(
        repeated(sides[i])
          ? `A self-join of the stream ${name} needs an alias for each side, to tell their columns apart: FROM ${name} a JOIN ${name} b ON a.k = b.k`
          : n.length === 0
            ? 'A subquery joined with a stream needs an alias, to name its columns: FROM (SELECT …) a JOIN clicks c ON a.k = c.k'
            : `Two tables of the join are named ${n[0]}: give each an alias of its own`,
        lineColumn(join.pos), 'JOIN');
    }
    names[i] = own;
  });
  // Columns several sides have are told apart by their side (Spark's attributes of one name from
  // several relations): each one's copy is the joined row's column `<alias>.<name>`, which
  // `a.name` reads.
  const count = new Map<string, number>();
  for (const leaf of sides) for (const f of leaf.schema) count.set(lower(f.name), (count.get(lower(f.name)) ?? 0) + 1);
  const leaves = sides.map((leaf, i): Side => {
    // A joined side's column is named by the table it came from (the last of its names: an alias).
    const owner = (name: string) => (leaf.joined ? [...leaf.joined.sides].filter(([, m]) => [...m.values()].includes(name)).pop()?.[0] : undefined) ?? leaf.alias ?? leaf.name;
    const columnOf = (name: string) => ((count.get(lower(name)) ?? 0) > 1 ? `${owner(name)}.${name}` : name);
    const columns = new Map(leaf.schema.map((f) => [lower(f.name), columnOf(f.name)]));
    // Each name of a joined side reads its own table's columns, as renamed here.
    const byQualifier = leaf.joined && new Map([...leaf.joined.sides].map(([q, m]) => [q, new Map([...m].map(([k, c]) => [k, columnOf(c)]))] as const));
    const renamed = leaf.schema.some((f) => columnOf(f.name) !== f.name);
    const visible = [i];
    const merged = new Map<string, string>();
    const own = byQualifier ? { byQualifier } : {};
    if (!renamed) return { plan: leaf.plan, schema: leaf.schema, columns, visible, merged, ...own };
    const list = leaf.schema.map((f) => ({ expr: { kind: 'column' as const, name: f.name }, name: columnOf(f.name) }));
    return { plan: { kind: 'Project', list, child: leaf.plan }, schema: leaf.schema.map((f) => ({ ...f, name: columnOf(f.name) })), columns, visible, merged, ...own };
  });
  const scopeOf = (visible: number[]) => new Map(visible.flatMap((i) => names[i].map((q) => [q, leaves[i].byQualifier?.get(q) ?? leaves[i].columns] as const)));
  const collapsed = new Set(sides.flatMap((l) => (l.joined ? [l.joined.node] : [])));
  let next = 0;
  const build = (u: UnresolvedPlan): Side => {
    if (u.kind !== 'Join' || collapsed.has(u)) return leaves[next++];
    const l = build(u.left), r = build(u.right);
    const pos = lineColumn(u.pos);
    const describe = (s: Side) => s.visible.map((i) => shown(sides[i])).join(' JOIN ');
    const joinType = STREAM_JOIN_TYPES[u.joinType];
    if (joinType && u.natural) {
      // The names both sides show, in the left's order: a NATURAL join is USING them.
      const shown = (s: Side) => [...s.merged.values(), ...s.visible.flatMap((i) => sides[i].schema.map((f) => f.name))];
      const right = new Set(shown(r).map(lower));
      const common = [...new Map(shown(l).filter((n) => right.has(lower(n))).map((n) => [lower(n), n] as const)).values()];
      if (common.length) return usingJoin(common, joinType, l, r, pos);
    }
    if (!joinType || u.natural) {
      if (u.joinType === 'LeftAnti') throw unsupportedOperation('LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported', { position: pos });
      throw notSupportedYet(u.natural ? `NATURAL ${JOIN_SQL[u.joinType]}` : `${JOIN_SQL[u.joinType]} of two streams`, pos);
    }
    if (u.usingColumns) return usingJoin(u.usingColumns, joinType, l, r, pos);
    if (!u.condition) throw new SqlValidationError(`A join of two streams needs ON <condition> with an equality of a ${describe(l)} column and a ${describe(r)} column (Spark refuses a stream-stream join without one)`, pos, 'ON');
    const both = [...l.visible, ...r.visible];
    const condition = builder({ qualifiers: new Set(both.flatMap((i) => names[i])), sides: scopeOf(both), merged: new Map([...l.merged, ...r.merged]) }).build(u.condition);
    const nullable = (side: 'left' | 'right') => joinType === 'FullOuter' || (side === 'left' ? joinType === 'RightOuter' : joinType === 'LeftOuter');
    const pad = (schema: Schema, yes: boolean): Schema => (yes ? schema.map((f) => ({ ...f, nullable: true })) : schema);
    // Above a left semi join only the left side's columns exist.
    const semi = joinType === 'LeftSemi';
    return {
      plan: { kind: 'Join', joinType, left: l.plan, right: r.plan, condition, pos },
      schema: semi ? l.schema : [...pad(l.schema, nullable('left')), ...pad(r.schema, nullable('right'))],
      columns: new Map(),
      visible: semi ? l.visible : both,
      merged: semi ? l.merged : new Map([...l.merged, ...r.merged]),
    };
  };
  // A row's column → the name the user writes for it (`a.key` is `key`), as Spark's messages name it.
  const written = new Map(sides.flatMap((leaf, i) => leaf.schema.map((f) => [leaves[i].columns.get(lower(f.name))!, f.name] as const)));
  const usingJoin = (using: readonly string[], joinType: string, l: Side, r: Side, pos: ReturnType<typeof lineColumn>): Side => {
    // A USING column of a side: its merged column (of a USING join below), or its one stream's.
    const columnOf = (s: Side, which: 'left' | 'right', k: string): string => {
      const merged = s.merged.get(lower(k));
      if (merged) return merged;
      const found = s.visible.flatMap((i) => leaves[i].columns.get(lower(k)) ?? []);
      if (found.length > 1) throw ambiguousReference(k, found, pos);
      if (found.length === 0) {
        throw new SqlValidationError(
          `USING column \`${k}\` cannot be resolved on the ${which} side of the join. The ${which}-side columns: [${s.schema.map((f) => `\`${written.get(f.name) ?? f.name}\``).join(', ')}]`,
          pos, 'USING', 'UNRESOLVED_USING_COLUMN_FOR_JOIN');
      }
      return found[0];
    };
    const keys = using.map((k) => ({ name: k, left: columnOf(l, 'left', k), right: columnOf(r, 'right', k) }));
    const column = (name: string): Expr => ({ kind: 'column', name, pos });
    const condition = keys.map((k): Expr => ({ kind: 'binary', op: '=', left: column(k.left), right: column(k.right), pos }))
      .reduce((x, y) => ({ kind: 'binary', op: 'AND', left: x, right: y, pos }));
    const semi = joinType === 'LeftSemi';
    const padded = (schema: Schema, yes: boolean): Schema => (yes ? schema.map((f) => ({ ...f, nullable: true })) : schema);
    const left = padded(l.schema, joinType === 'RightOuter' || joinType === 'FullOuter');
    const right = semi ? [] : padded(r.schema, joinType === 'LeftOuter' || joinType === 'FullOuter');
    const field = (schema: Schema, name: string) => schema.find((f) => f.name === name)!;
    if (keys.some((k) => l.merged.has(lower(k.name)) && r.merged.has(lower(k.name)))) {
      throw notSupportedYet('USING (…) of a column that both sides merged in USING joins of their own', pos, 'write ON with qualified names');
    }
    const merged = keys.map((k) => {
      const name = k.name;
      if (joinType === 'FullOuter') return { name, expr: { kind: 'call', name: 'coalesce', args: [column(k.left), column(k.right)], pos } as Expr, field: { ...field(left, k.left), name, nullable: field(left, k.left).nullable && field(right, k.right).nullable } };
      const [schema, from] = joinType === 'RightOuter' ? [right, k.right] : [left, k.left];
      return { name, expr: column(from), field: { ...field(schema, from), name } };
    });
    const keyColumns = new Set(keys.flatMap((k) => [k.left, k.right]));
    const rest = [...left, ...right].filter((f) => !keyColumns.has(f.name));
    // The sides' own key columns after the rest, out of `*` (the schema), for `a.k` and `b.k`; a
    // column merged below is superseded by this one of its name.
    const hidden = [...left, ...right].filter((f) => keyColumns.has(f.name) && !keys.some((k) => k.name === f.name));
    const list = [...merged.map((m) => ({ expr: m.expr, name: m.name })), ...[...rest, ...hidden].map((f) => ({ expr: column(f.name), name: f.name }))];
    const visible = semi ? l.visible : [...l.visible, ...r.visible];
    return {
      plan: { kind: 'Project', list, child: { kind: 'Join', joinType, left: l.plan, right: r.plan, condition, pos } },
      schema: [...merged.map((m) => m.field), ...rest],
      columns: new Map(),
      visible,
      merged: new Map([...l.merged, ...(semi ? [] : r.merged), ...merged.map((m) => [lower(m.name), m.name] as const)]),
    };
  };
  const top = build(join);
  return { plan: top.plan, schema: top.schema, qualifiers: top.visible.flatMap((i) => names[i]), scope: { sides: scopeOf(top.visible), merged: top.merged } };
}

/** A stream of a join, or a join of streams: its plan, its columns, and the streams whose columns it shows. */
interface Side {
  plan: LogicalPlan;
  schema: Schema;
  /** A stream's columns by lower-cased name → the joined row's column (a join's are its streams'). */
  columns: Map<string, string>;
  /** The indexes of the streams whose columns the side's rows carry. */
  visible: number[];
  /** The columns of USING joins (lower-cased name → the row's column): what an unqualified name reads. */
  merged: Map<string, string>;
  /** A joined side's: each of its names' own columns (lower-cased name → the row's column). */
  byQualifier?: Map<string, Map<string, string>>;
}

/**
 * A Join of two streams, read as Spark reads one (StreamingSymmetricHashJoinHelper): the equality
 * conjuncts of a left and a right expression are the join keys, the rest is the condition applied
 * to each candidate pair, and a time range in that rest gives each side's state watermark
 * (join-time-range.ts). The analyzer judges legality from the same reading the planner builds
 * the operator from.
 */
import { StreamingSymmetricHashJoinExec, type StreamingJoinType } from '../operators/symmetric-hash-join';
import type { PhysicalOperator } from '../operators/physical-operator';
import type { StatefulOperatorDescriptor } from '../state/state-schema-compatibility-checker';
import type { Row, Schema } from '../types';
import { aggregateKeyNames } from './aggregate-planner';
import { fieldOfType } from './data-types';
import { conjunction, conjuncts, exprToString, referencedColumns, type Expr } from './expression';
import { compileExpression, resolveColumn, type EvalContext, type Evaluator } from './expression-compiler';
import { joinStateWatermarkOffsets, timeDifferenceRange, timeRangeBounds, type JoinSideName, type TimeBound } from './join-time-range';
import { children, type LogicalPlan } from './logical-plan';

type JoinNode = Extract<LogicalPlan, { kind: 'Join' }>;

export interface StreamJoinReading {
  /** Each side's (first) event-time column as the joined row names it (none: the side has no watermark). */
  eventTimes: Record<JoinSideName, string | undefined>;
  /** Each side whose buffered rows the watermark can evict: the event-time column the time range bounds. */
  stateColumns: Partial<Record<JoinSideName, string>>;
  /** The equi-join keys; `nullSafe` for `<=>`, whose NULLs match each other. */
  keys: { left: Expr; right: Expr; nullSafe?: boolean }[];
  /** The conjuncts that are not join keys, applied to each pair. */
  condition?: Expr;
  /**
   * The conjuncts of `condition` that read one side's columns only (Spark's
   * JoinConditionSplitPredicates leftSideOnly / rightSideOnly): a row failing its side's can match
   * no row of the other side, whatever it is.
   */
  sideConditions: Partial<Record<JoinSideName, Expr>>;
  /** Each side whose buffered rows the watermark can evict, with its offset (ms). */
  stateWatermarks: Partial<Record<JoinSideName, number>>;
  /**
   * Each side Spark's checker finds a state value watermark for (StreamingJoinHelper's
   * getStateValueWatermark, over any column of the side against the other side's watermarked
   * event time): what makes an outer or semi join legal. A side without a watermark of its own
   * is still never evicted (Spark's getStateWatermarkPredicates evicts only a side whose input
   * has one), so it is missing from `stateWatermarks`: its state grows, as in Spark.
   */
  rangeStateWatermarks: Partial<Record<JoinSideName, number>>;
  /**
   * The join key that is an event time (a window, say, of aggregations joined on it): both
   * sides' buffered rows go once the watermark passes their key (Spark's
   * JoinStateKeyWatermarkPredicate, which wins over a time range).
   */
  stateKeyIndex?: number;
  /** The condition read as a time range and nothing else (join-time-range.ts's timeRangeBounds). */
  timeBounds?: TimeBound[];
  /**
   * What the condition bounds the difference of the two sides' state columns to (left − right, in
   * ms), when both sides have one: every joined pair's times are in it.
   */
  timeDifference?: { minMs: number; maxMs: number };
}

const JOIN_TYPES: Record<string, StreamingJoinType> = { Inner: 'inner', LeftOuter: 'leftOuter', RightOuter: 'rightOuter', FullOuter: 'fullOuter', LeftSemi: 'leftSemi' };

/**
 * A join side's columns as the joined row names them, and which are watermarked event times: a
 * source's eventTime, also when the join planner's Project renames it (`timestamp` as
 * `c.timestamp`), and every one of a side that is itself a join of streams.
 */
function sideColumns(side: LogicalPlan): { name: string; eventTime: boolean }[] {
  const lower = (n: string) => n.toLowerCase();
  switch (side.kind) {
    case 'StreamingRelation': {
      const et = side.eventTime === undefined ? undefined : lower(side.eventTime);
      return side.schema.map((f) => ({ name: f.name, eventTime: lower(f.name) === et }));
    }
    case 'Project': {
      const isTime = eventTimeOf(sideColumns(side.child));
      return side.list.map((n) => ({ name: n.name, eventTime: isTime(n.expr) }));
    }
    case 'Join':
      return side.joinType === 'LeftSemi' ? sideColumns(side.left) : [...sideColumns(side.left), ...sideColumns(side.right)];
    case 'Aggregate': {
      // An aggregation's event time is its watermarked grouping key: the event-time column, or a
      // window over it (Spark keeps the watermark metadata on the window column it outputs).
      const below = sideColumns(side.child);
      const isTime = eventTimeOf(below);
      const keyNames = aggregateKeyNames(side.groupBy, below);
      return [...side.groupBy.map((e, i) => ({ name: keyNames[i], eventTime: isTime(e) })), ...side.aggregates.map((n) => ({ name: n.name, eventTime: false }))];
    }
    case 'Expand': {
      // A grouping column is the event time its expression is (Spark's Expand keeps the metadata).
      const below = sideColumns(side.child);
      const isTime = eventTimeOf(below);
      return [...below, ...side.output.map((name, i) => ({ name, eventTime: i < side.groupBy.length && isTime(side.groupBy[i]) }))];
    }
    case 'Generate': {
      // window(ts, …) outside GROUP BY: the window column is an event time when ts is one.
      const below = sideColumns(side.child);
      const time = side.generator.name === 'window' && eventTimeOf(below)(side.generator);
      return [...below, ...side.output.map((name) => ({ name, eventTime: time }))];
    }
    case 'Window':
      return [...sideColumns(side.child), ...side.functions.map((f) => ({ name: f.name, eventTime: false }))];
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Deduplicate': case 'Filter': case 'Limit': case 'Offset': case 'Sort': case 'StaticRelation': case 'Union':
    default: {
      const [child] = children(side);
      return child ? sideColumns(child) : [];
    }
  }
}

/**
 * Whether an expression over `below` is a watermarked event time: an event-time column, or a
 * window over one (Spark puts the watermark metadata on the window column too).
 */
function eventTimeOf(below: { name: string; eventTime: boolean }[]): (e: Expr) => boolean {
  const isTime = (e: Expr): boolean =>
    e.kind === 'column' ? below.some((c) => c.eventTime && c.name.toLowerCase() === e.name.toLowerCase())
      : e.kind === 'call' && e.name === 'window' && e.args.length > 0 && isTime(e.args[0]);
  return isTime;
}

/**
 * The operands of an equality that can be a join key: `a = b`, or `a <=> b` (equal_null, Spark's
 * EqualNullSafe, which ExtractEquiJoinKeys takes as a key where NULL matches NULL).
 */
export function equalityOperands(c: Expr): [Expr, Expr] | undefined {
  if (c.kind === 'binary' && c.op === '=') return [c.left, c.right];
  if (c.kind === 'call' && c.name === 'equal_null' && c.args.length === 2) return [c.args[0], c.args[1]];
  return undefined;
}

export function readStreamJoin(node: JoinNode): StreamJoinReading {
  const columns = { left: sideColumns(node.left), right: sideColumns(node.right) };
  const sideOf = (e: Expr): JoinSideName | undefined => {
    const cols = [...referencedColumns(e)].map((c) => c.toLowerCase());
    if (cols.length === 0) return undefined;
    const has = (side: JoinSideName) => (c: string) => columns[side].some((f) => f.name.toLowerCase() === c);
    if (cols.every(has('left'))) return 'left';
    if (cols.every(has('right'))) return 'right';
    return undefined;
  };
  const keys: StreamJoinReading['keys'] = [];
  const rest: Expr[] = [];
  for (const c of node.condition ? conjuncts(node.condition) : []) {
    const pair = equalityOperands(c);
    if (pair) {
      const [x, y] = pair;
      const nullSafe = c.kind === 'call' ? { nullSafe: true } : {};
      const a = sideOf(x), b = sideOf(y);
      if (a === 'left' && b === 'right') { keys.push({ left: x, right: y, ...nullSafe }); continue; }
      if (a === 'right' && b === 'left') { keys.push({ left: y, right: x, ...nullSafe }); continue; }
    }
    rest.push(c);
  }
  const condition = rest.length ? conjunction(rest) : undefined;
  const sideConditions: StreamJoinReading['sideConditions'] = {};
  for (const side of ['left', 'right'] as const) {
    const only = rest.filter((c) => sideOf(c) === side);
    if (only.length) sideConditions[side] = conjunction(only);
  }
  // A side's event-time columns, when the side has a watermark: rows of the other side after the
  // watermark are the only ones still to come, which is what bounds this side's buffered rows.
  const timeOf = (e: Expr): JoinSideName | undefined => {
    if (e.kind !== 'column') return undefined;
    const name = e.name.toLowerCase();
    return (['left', 'right'] as const).find((side) => columns[side].some((c) => c.eventTime && c.name.toLowerCase() === name));
  };
  const stateKeyIndex = keys.findIndex((k) => timeOf(k.left) === 'left' || timeOf(k.right) === 'right');
  const stateWatermarks = stateKeyIndex >= 0 ? { left: 0, right: 0 } : joinStateWatermarkOffsets(condition, timeOf);
  const anyColumnOf = (e: Expr): JoinSideName | undefined => (e.kind === 'column' ? sideOf(e) : undefined);
  const rangeStateWatermarks = stateKeyIndex >= 0 ? stateWatermarks : joinStateWatermarkOffsets(condition, timeOf, anyColumnOf);
  // Late input rows are judged by a side's first event time (Spark's watermark attribute of the
  // side's output); buffered rows by the one the time range bounds.
  const referenced = condition ? [...referencedColumns(condition)] : [];
  const eventTimes = {} as StreamJoinReading['eventTimes'];
  const stateColumns: StreamJoinReading['stateColumns'] = {};
  for (const side of ['left', 'right'] as const) {
    eventTimes[side] = columns[side].find((c) => c.eventTime)?.name;
    const bounded = referenced.find((c) => timeOf({ kind: 'column', name: c }) === side);
    if (stateWatermarks[side] !== undefined && bounded !== undefined) stateColumns[side] = columns[side].find((c) => c.name.toLowerCase() === bounded.toLowerCase())!.name;
  }
  const timeBounds = timeRangeBounds(condition, timeOf);
  const timeDifference = stateKeyIndex < 0 && stateColumns.left !== undefined && stateColumns.right !== undefined ? timeDifferenceRange(condition, timeOf, stateColumns.left, stateColumns.right) : undefined;
  return {
    eventTimes, stateColumns, keys, condition, sideConditions, stateWatermarks, rangeStateWatermarks,
    ...(stateKeyIndex >= 0 ? { stateKeyIndex } : {}), ...(timeBounds ? { timeBounds } : {}), ...(timeDifference ? { timeDifference } : {}),
  };
}

/**
 * A join of two streams' output (Spark's Join.output): a left semi join's left side; otherwise
 * both sides, the side an outer join may leave unmatched nullable.
 */
export function streamJoinOutput(node: JoinNode, left: Schema, right: Schema): Schema {
  const joinType = JOIN_TYPES[node.joinType];
  if (joinType === 'leftSemi') return left;
  const nullable = (side: JoinSideName) => joinType === 'fullOuter' || (side === 'left' ? joinType === 'rightOuter' : joinType === 'leftOuter');
  const pad = (s: Schema, yes: boolean) => (yes ? s.map((f) => ({ ...f, nullable: true })) : s);
  return [...pad(left, nullable('left')), ...pad(right, nullable('right'))];
}

/** The StreamingSymmetricHashJoinExec for a Join of two streams, over each side's planned operators. */
export function planStreamStreamJoin(
  node: JoinNode,
  sides: Record<JoinSideName, { operators: PhysicalOperator[]; schema: Schema }>,
  operatorId: number,
  /** How far the join's input watermark lags the global one (watermark-propagation.ts). */
  inputWatermarkDeltaMs = 0,
): { op: StreamingSymmetricHashJoinExec; schema: Schema; descriptor: StatefulOperatorDescriptor } {
  // The analysis (resolved-plan.ts) has checked the keys: at least one, each pair cast to one type.
  const r = readStreamJoin(node);
  const joinType = JOIN_TYPES[node.joinType];
  const compiled = (['left', 'right'] as const).map((side) => r.keys.map((k) => compileExpression(k[side], sides[side].schema)));
  const [lk, rk] = compiled;
  const joined: Schema = [...sides.left.schema, ...sides.right.schema];
  const cond = r.condition && compileExpression(r.condition, joined).eval;
  const schema = streamJoinOutput(node, sides.left.schema, sides.right.schema);
  const input = (side: JoinSideName, keys: typeof lk) => {
    const eventTime = r.eventTimes[side];
    const offset = r.stateWatermarks[side];
    const only = r.sideConditions[side];
    return {
      operators: sides[side].operators,
      schema: sides[side].schema,
      // A loop, not a map with a closure: this runs for every input row.
      keys: (row: Row, ctx: EvalContext) => {
        const out = new Array<unknown>(keys.length);
        for (let i = 0; i < keys.length; i++) out[i] = keys[i].eval(row, ctx);
        return out;
      },
      ...(eventTime !== undefined ? { eventTime } : {}),
      ...(only ? { preJoinFilter: compileExpression(only, sides[side].schema).eval } : {}),
      ...(r.stateKeyIndex !== undefined
        ? { stateWatermark: { kind: 'key' as const, keyIndex: r.stateKeyIndex } }
        : offset !== undefined && r.stateColumns[side] !== undefined ? { stateWatermark: { kind: 'value' as const, column: r.stateColumns[side], offsetMs: offset } } : {}),
    };
  };
  // The state columns as the sides' rows hold them: TIMESTAMPs (both in epoch milliseconds).
  const instant = (side: JoinSideName) => isInstant(resolveColumn(sides[side].schema, r.stateColumns[side]!));
  const timeRange = r.timeDifference && instant('left') && instant('right') ? r.timeDifference : undefined;
  const op = new StreamingSymmetricHashJoinExec(
    {
      operatorId,
      joinType,
      left: input('left', lk),
      right: input('right', rk),
      ...(cond ? { condition: timeRangeCondition(r.timeBounds, sides.left.schema, sides.right.schema, pairCondition(cond, r.condition!, sides.left.schema, sides.right.schema)) } : {}),
      ...(inputWatermarkDeltaMs < 0 ? { inputWatermarkDeltaMs } : {}),
      ...(timeRange ? { timeRange } : {}),
      ...(r.keys.some((k) => k.nullSafe) ? { nullSafeKeys: r.keys.map((k) => k.nullSafe === true) } : {}),
    },
    schema,
  );
  // The state is named by the condition before PushPredicateThroughJoin moved any of it below a
  // side: the same rows are kept either way (a side's rows that fail their side's conjuncts never
  // were), and a checkpoint written before the move restarts.
  const named = node.stateCondition ? readStreamJoin({ ...node, condition: node.stateCondition }).condition : r.condition;
  const descriptor: StatefulOperatorDescriptor = {
    operatorId,
    operatorName: 'symmetricHashJoin',
    parts: { 'join type': node.joinType, 'join keys': r.keys.map((k) => `${exprToString(k.left)} ${k.nullSafe ? '<=>' : '='} ${exprToString(k.right)}`).join(', '), ...(named ? { condition: exprToString(named) } : {}) },
    keySchema: lk.map((c, i) => fieldOfType(`key${i}`, c)),
    valueSchema: joined,
  };
  return { op, schema, descriptor };
}

/**
 * The join's other conditions over a candidate pair, read from one row object reused for every
 * pair (the sides' column names are distinct): a new merged row per candidate was the join's
 * largest cost after the state store. Only the columns the condition reads are copied (each copy
 * is a store by a name that varies, the slow kind).
 */
function pairCondition(cond: Evaluator, expr: Expr, left: Schema, right: Schema): (l: Row, r: Row, ctx: EvalContext) => unknown {
  const read = new Set([...referencedColumns(expr)].map((c) => c.toLowerCase()));
  const leftNames = left.map((f) => f.name).filter((n) => read.has(n.toLowerCase()));
  const rightNames = right.map((f) => f.name).filter((n) => read.has(n.toLowerCase()));
  const pair: Row = {};
  return (l, r, ctx) => {
    for (let i = 0; i < leftNames.length; i++) pair[leftNames[i]] = l[leftNames[i]];
    for (let i = 0; i < rightNames.length; i++) pair[rightNames[i]] = r[rightNames[i]];
    return cond(pair, ctx);
  };
}

type PairCondition = (l: Row, r: Row, ctx: EvalContext) => unknown;

/**
 * A join condition that is only a time range (`r.t BETWEEN l.t - INTERVAL … AND l.t + …`) tested
 * by integer arithmetic on the two times in microseconds, where both are whole milliseconds (most
 * event times; the difference and the bounds then exact, as the SQL's are): the compiled
 * expression ran closures per operator, a timestamp's microseconds split and rejoined per side,
 * for every candidate pair. A pair with a NULL, a fraction of a millisecond or a time past
 * ±2^53 µs goes to `generic`, the compiled condition. `generic` alone when `bounds` is undefined
 * or a column is not a TIMESTAMP.
 */
/** A TIMESTAMP column (epoch milliseconds, as the engine's times are), not a TIMESTAMP_NTZ. */
const isInstant = (f: ReturnType<typeof resolveColumn>): boolean => f?.type === 'timestamp' && !f.ntz;

export function timeRangeCondition(bounds: TimeBound[] | undefined, left: Schema, right: Schema, generic: PairCondition): PairCondition {
  if (!bounds) return generic;
  const fields = bounds.map((b) => [resolveColumn(left, b.left), resolveColumn(right, b.right)] as const);
  if (fields.some(([l, r]) => !isInstant(l) || !isInstant(r))) return generic;
  const n = bounds.length;
  const signs = bounds.map((b) => b.sign);
  const consts = bounds.map((b) => b.constUs);
  // Each bound as `d op 0` with the comparison a number: 0 <, 1 <=, 2 >, 3 >=.
  const ops = bounds.map((b) => ['<', '<=', '>', '>='].indexOf(b.op));
  const micros = (v: unknown): number | undefined => {
    if (typeof v !== 'number' || !Number.isInteger(v)) return undefined;
    const us = v * 1000;
    return Number.isSafeInteger(us) ? us : undefined;
  };
  // The distinct (left, right) column pairs the bounds compare (a BETWEEN's two bounds share
  // one), each read once a candidate pair: the read of the buffered row is the probe's costliest.
  const pairs: [string, string][] = [];
  const pairOf = fields.map(([l, r]) => {
    const j = pairs.findIndex(([a, b]) => a === l!.name && b === r!.name);
    return j >= 0 ? j : pairs.push([l!.name, r!.name]) - 1;
  });
  const np = pairs.length;
  const leftNames = pairs.map(([l]) => l);
  const rightNames = pairs.map(([, r]) => r);
  // Each pair's left time less its right time, in microseconds (reused across candidate pairs).
  const diffs = new Array<number>(np).fill(0);
  return (l, r, ctx) => {
    // Every time read first: a pair the arithmetic cannot take goes whole to the expression.
    for (let j = 0; j < np; j++) {
      const a = micros(l[leftNames[j]]);
      const b = micros(r[rightNames[j]]);
      if (a === undefined || b === undefined) return generic(l, r, ctx);
      diffs[j] = a - b;
    }
    for (let i = 0; i < n; i++) {
      const d = signs[i] * diffs[pairOf[i]] + consts[i];
      if (!Number.isSafeInteger(d)) return generic(l, r, ctx);
      const op = ops[i];
      if (!(op === 0 ? d < 0 : op === 1 ? d <= 0 : op === 2 ? d > 0 : d >= 0)) return false;
    }
    return true;
  };
}

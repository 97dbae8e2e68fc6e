/**
 * The analysis pass (resolved-plan.ts): every expression a node holds carries the type the
 * compiler gives it over the node's input, the input plan is left as it was, and the checks that
 * moved here from the physical planner refuse what it refused.
 */
import { typeText } from './data-types';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileExpression, typeOfCompiled } from './expression-compiler';
import { explainExprToString, exprChildren, exprToString, type Expr } from './expression';
import { children, type LogicalPlan, type StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';
import { outputSchema, resolvePlan } from './resolved-plan';
import { analyzeAggregate, StatefulPlanner, withDeduplication } from './stateful-planner';
import { compileStreamingQuery, planPhysical } from './streaming-query';
import type { PhysicalOperator } from '../operators/physical-operator';

const src: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'src',
  schema: [
    { name: 'id', type: 'long' }, { name: 's', type: 'string' }, { name: 'ts', type: 'timestamp' },
    { name: 'xs', type: 'array', elementType: { name: 'element', type: 'long', nullable: true } },
  ],
  eventTime: 'ts',
  watermarkDelayMs: 60_000,
};

const impressions: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'impressions', schema: [{ name: 'adId', type: 'long' }, { name: 'impressionTime', type: 'timestamp' }], eventTime: 'impressionTime', watermarkDelayMs: 3_600_000 };
const clicks: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'clicks', schema: [{ name: 'clickAdId', type: 'string' }, { name: 'clickTime', type: 'timestamp' }], eventTime: 'clickTime', watermarkDelayMs: 3_600_000 };

/** `e` and every subexpression below it. */
const subtree = (e: Expr): Expr[] => [e, ...exprChildren(e).flatMap(subtree)];
const readsLambdaVariable = (e: Expr): boolean => subtree(e).some((x) => x.kind === 'lambdaVariable');

const snapshot = (p: LogicalPlan) => JSON.stringify(p, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Each expression a node holds, with the columns it reads (the node's input). */
function expressions(plan: LogicalPlan): { expr: Expr; input: Schema }[] {
  const input = (p: LogicalPlan) => outputSchema(p);
  const own = ((): { expr: Expr; input: Schema }[] => {
    switch (plan.kind) {
      case 'Filter': return [{ expr: plan.condition, input: input(plan.child) }];
      case 'Project': return plan.list.map((n) => ({ expr: n.expr, input: input(plan.child) }));
      case 'Generate': return [{ expr: plan.generator.args[0], input: input(plan.child) }];
      case 'Expand': return plan.groupBy.map((expr) => ({ expr, input: input(plan.child) }));
      case 'Join': return plan.condition ? [{ expr: plan.condition, input: [...input(plan.left), ...input(plan.right)] }] : [];
      case 'Window': return [...plan.partitionSpec, ...plan.orderSpec.map((o) => o.expr)].map((expr) => ({ expr, input: input(plan.child) }));
      case 'Aggregate': case 'Deduplicate': case 'Limit': case 'Offset': case 'Sort': case 'StaticRelation': case 'StreamingRelation': case 'Union':
      default: return [];
    }
  })();
  return [...own, ...children(plan).flatMap(expressions)];
}

describe('resolvePlan', () => {
  it('types every expression of Filter, Project, Generate and a join as the compiler does, leaving its input as it was', () => {
    const queries: [string, StreamingRelation[]][] = [
      ['SELECT id + 1 AS n, upper(s) AS u, CAST(id AS INT) AS i, x FROM src LATERAL VIEW explode(xs) t AS x WHERE id > 0 AND s LIKE \'a%\'', [src]],
      ['SELECT * FROM (SELECT id * 2.5 AS d, named_struct(\'a\', s) AS st FROM src) WHERE d > 1', [src]],
      ['SELECT * FROM impressions JOIN clicks ON CAST(adId AS STRING) = clickAdId AND clickTime >= impressionTime AND clickTime <= impressionTime + INTERVAL 1 HOUR', [impressions, clicks]],
    ];
    let checked = 0, subexpressions = 0;
    for (const [sql, relations] of queries) {
      const plan = buildLogicalPlan(sql, relations);
      const before = snapshot(plan);
      const resolved = resolvePlan(plan).plan;
      expect(snapshot(plan)).toBe(before);
      // The builder resolves a subquery or LATERAL VIEW as the SELECT around it reads it; the outer SELECT is resolved here.
      if (plan.kind !== 'Project') throw new Error('no Project');
      expect(plan.list.every((n) => n.expr.dataType === undefined)).toBe(true);
      for (const { expr, input } of expressions(resolved)) {
        const compiled = typeOfCompiled(compileExpression(expr, input));
        expect(expr.dataType).toEqual(compiled);
        checked++;
        // Below it, each subexpression carries the type it has on its own over the same input.
        for (const sub of subtree(expr).slice(1)) {
          if (readsLambdaVariable(sub)) continue;
          const own = typeOfCompiled(compileExpression(sub, input));
          expect(sub.dataType, exprToString(sub)).toEqual(own);
          subexpressions++;
        }
      }
      expect(outputSchema(resolved)).toEqual(outputSchema(plan));
    }
    expect(checked).toBe(16);
    // 29 written, 4 implicit casts: `id + cast(1 as bigint)`, `cast(id as decimal(20,0)) * 2.5`, `d > cast(1 as decimal(…))`, `id > cast(0 as bigint)`.
    expect(subexpressions).toBe(33);
  });

  it('types an Aggregate\'s keys and aggregates as the columns it outputs', () => {
    const resolved = resolvePlan(buildLogicalPlan("SELECT window(ts, '1 minute') AS w, s, count(*) AS n, avg(id) AS a FROM src GROUP BY window(ts, '1 minute'), s", src)).plan;
    const agg = [resolved, ...children(resolved)].find((n) => n.kind === 'Aggregate')!;
    if (agg.kind !== 'Aggregate') throw new Error('no Aggregate');
    expect(agg.groupBy.map((e) => e.dataType?.type)).toEqual(['struct', 'string']);
    expect(agg.aggregates.map((a) => a.expr.dataType?.type)).toEqual(['long', 'double']);
    // avg's argument is typed over the aggregation's input; count(*)'s star is no expression.
    expect(agg.aggregates.map((a) => (a.expr.kind === 'call' ? a.expr.args.map((x) => x.dataType?.type) : []))).toEqual([[undefined], ['long']]);
    expect(agg.groupBy[1].dataType?.type).toBe('string');
    const w = agg.groupBy[0];
    expect(w.kind === 'call' && w.args.map((x) => x.dataType?.type)).toEqual(['timestamp', 'string']);
  });

  it('is what the streaming checker reads: an aggregation\'s window and watermark come from the types it carries, not a compilation', () => {
    const resolved = resolvePlan(buildLogicalPlan("SELECT window(ts, '1 minute') AS w, count(*) AS n FROM src GROUP BY window(ts, '1 minute')", src)).plan;
    const agg = [resolved, ...children(resolved)].find((n) => n.kind === 'Aggregate')!;
    if (agg.kind !== 'Aggregate') throw new Error('no Aggregate');
    const w = agg.groupBy[0];
    if (w.kind !== 'call') throw new Error('no window()');
    const input = outputSchema(agg.child);
    const wm = { eventTime: 'ts', delayMs: 60_000 };
    expect(analyzeAggregate(agg, input, wm).watermarkDelayMs).toBe(60_000);
    // The same node with its time column's carried type altered: the checker answers by that type,
    // so it compiled nothing to find it (a compilation over the input would give the first answers).
    const retyped = (dataType: NonNullable<Expr['dataType']>) => ({ ...agg, groupBy: [{ ...w, args: [{ ...w.args[0], dataType }, ...w.args.slice(1)] }] });
    expect(analyzeAggregate(retyped({ ...w.args[0].dataType!, watermarkDelayMs: 7 }), input, wm).watermarkDelayMs).toBe(7);
    expect(() => analyzeAggregate(retyped({ type: 'string' }), input, wm)).toThrow("window() needs a timestamp, got string");
  });

  it('refuses a WHERE that is not boolean, where the condition is', () => {
    expect(() => resolvePlan(buildLogicalPlan('SELECT id FROM src\nWHERE   s', src))).toThrow(expect.objectContaining({
      message: expect.stringContaining('Cannot resolve "s" due to data type mismatch: Filter expression "s" of type "STRING" is not a boolean.'),
      errorClass: 'DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN', line: 2, column: 9,
    }));
  });

  it('casts join keys of two types to their common type, refuses keys that do not compare, and a dedup key that is no column', () => {
    const keyed = (l: Omit<Schema[number], 'name'>, r: Omit<Schema[number], 'name'>) => {
      const a: StreamingRelation = { ...impressions, schema: [{ name: 'adId', ...l }, impressions.schema[1]] };
      const b: StreamingRelation = { ...clicks, schema: [{ name: 'clickAdId', ...r }, clicks.schema[1]] };
      const join = resolvePlan(buildLogicalPlan('SELECT * FROM impressions JOIN clicks ON adId = clickAdId', [a, b])).plan;
      const j = join.kind === 'Project' ? join.child : join;
      return explainExprToString((j as Extract<LogicalPlan, { kind: 'Join' }>).condition!);
    };
    // PromoteStrings: the string key is read as the BIGINT.
    expect(keyed({ type: 'long' }, { type: 'string' })).toBe('(adId = cast(clickAdId as bigint))');
    // Spark's analyzed plan widens an INT key beside a BIGINT one.
    expect(keyed({ type: 'long', integral: 32 }, { type: 'long' })).toBe('(cast(adId as bigint) = clickAdId)');
    expect(keyed({ type: 'decimal', precision: 10, scale: 2 }, { type: 'decimal', precision: 12, scale: 4 })).toBe('(cast(adId as decimal(12,4)) = clickAdId)');
    expect(keyed({ type: 'date' }, { type: 'timestamp' })).toBe('(cast(adId as timestamp) = clickAdId)');
    expect(keyed({ type: 'long' }, { type: 'long' })).toBe('(adId = clickAdId)');
    // The join's state key (its state-schema descriptor) is the common type.
    const a: StreamingRelation = { ...impressions, schema: [{ name: 'adId', type: 'decimal', precision: 10, scale: 2 }, impressions.schema[1]] };
    const b: StreamingRelation = { ...clicks, schema: [{ name: 'clickAdId', type: 'decimal', precision: 12, scale: 4 }, clicks.schema[1]] };
    const q = compileStreamingQuery('SELECT * FROM impressions JOIN clicks ON adId = clickAdId AND clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR', [a, b]);
    expect(q.statefulOperators[0].keySchema).toEqual([expect.objectContaining({ type: 'decimal', precision: 12, scale: 4 })]);
    // A key pair an inner join takes from the WHERE (PushPredicateThroughJoin) carries the cast its comparison wrote, as an ON key.
    const withUser = (r: StreamingRelation, user: Schema[number]): StreamingRelation => ({ ...r, schema: [...r.schema, user] });
    const pushed = compileStreamingQuery(
      'SELECT * FROM impressions JOIN clicks ON adId = clickAdId AND clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR WHERE uid = cuid',
      [withUser(impressions, { name: 'uid', type: 'long', integral: 32 }), withUser({ ...clicks, schema: [{ name: 'clickAdId', type: 'long' }, clicks.schema[1]] }, { name: 'cuid', type: 'long' })],
    );
    expect(pushed.optimizations.map((o) => o.rule)).toContain('PushPredicateThroughJoin');
    expect(pushed.explain).toContain('AND (cast(uid as bigint) = cuid))');
    expect(pushed.statefulOperators[0].keySchema).toEqual([expect.objectContaining({ type: 'long' }), { name: 'key1', type: 'long', nullable: true }]);
    expect(() => keyed({ type: 'binary' }, { type: 'long' })).toThrow(expect.objectContaining({ errorClass: 'DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES' }));
    expect(() => keyed({ type: 'array', elementType: { name: 'element', type: 'string' } }, { type: 'string' })).toThrow(expect.objectContaining({ errorClass: 'DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES' }));
    const map = { type: 'map', keyType: { name: 'key', type: 'string' }, valueType: { name: 'value', type: 'string' } } as const;
    expect(() => keyed(map, map)).toThrow(expect.objectContaining({ errorClass: 'DATATYPE_MISMATCH.INVALID_ORDERING_TYPE' }));
    expect(() => resolvePlan(withDeduplication(buildLogicalPlan('SELECT id FROM src', src), { keys: ['nope'] }))).toThrow('dedup key "nope" is not a column of the source; columns: id, s, ts, xs');
  });

  it('refuses a derived event time that no Project defines, where compileStreamingQuery did', () => {
    const derived: StreamingRelation = { ...src, eventTime: 'et' };
    expect(() => resolvePlan(buildLogicalPlan('SELECT id FROM src', derived))).toThrow('source.eventTime "et" is neither a column of source.schema nor a column the SQL\'s projection defines');
    expect(() => compileStreamingQuery('SELECT id FROM src', derived)).toThrow('source.eventTime "et" is neither a column of source.schema');
  });

  it('is what compileStreamingQuery optimizes and plans: its plan carries the types', () => {
    const q = compileStreamingQuery('SELECT id + 1 AS n FROM src WHERE id > 0', src, { optimize: false });
    const project = q.plan;
    if (project.kind !== 'Project') throw new Error('no Project');
    expect(project.list[0].expr.dataType?.type).toBe('long');
    if (project.child.kind !== 'Filter') throw new Error('no Filter');
    expect(project.child.condition.dataType?.type).toBe('boolean');
  });

  it('keeps its types through the optimizer: a folded NULL keeps the type of what it replaced', () => {
    const q = compileStreamingQuery('SELECT array_max(array(CAST(NULL AS BIGINT))) AS v FROM src', src);
    expect(q.optimizations.map((o) => o.rule)).toContain('ConstantFolding');
    expect(q.outputSchema[0].type).toBe('long');
    expect(q.operators.at(-1)!.outputSchema[0].type).toBe('long');
  });

  describe('writes Spark\'s implicit casts (TypeCoercion) as Cast nodes', () => {
    const typedSrc: StreamingRelation = {
      kind: 'StreamingRelation',
      sourceName: 'src',
      schema: [
        { name: 'id', type: 'long' }, { name: 'i', type: 'long', integral: 32 }, { name: 'sm', type: 'long', integral: 16 },
        { name: 'f', type: 'double', float32: true }, { name: 'x', type: 'double' }, { name: 's', type: 'string' },
        { name: 'ts', type: 'timestamp' }, { name: 'd', type: 'date' },
        { name: 'dec', type: 'decimal', precision: 10, scale: 2 }, { name: 'big', type: 'decimal', precision: 38, scale: 0 },
        { name: 'arr', type: 'array', elementType: { name: 'element', type: 'long' } }, { name: 'iarr', type: 'array', elementType: { name: 'element', type: 'long', integral: 32 } },
        { name: 'farr', type: 'array', elementType: { name: 'element', type: 'double' } }, { name: 'darr', type: 'array', elementType: { name: 'element', type: 'decimal', precision: 12, scale: 3 } },
      ],
    };
    /** The explain text of each select item of the resolved plan. */
    const resolvedItems = (sql: string): string[] => {
      const p = resolvePlan(buildLogicalPlan(sql, typedSrc)).plan;
      if (p.kind !== 'Project') throw new Error('no Project');
      return p.list.map((n) => explainExprToString(n.expr));
    };

    it('on arrays, maps and structs a function, CASE or constructor widens, as Spark\'s analyzed plan shows them', () => {
      expect(resolvedItems(
        "SELECT coalesce(array(i), array(id)) AS a, CASE WHEN i > 0 THEN named_struct('x', i) ELSE named_struct('x', x) END AS b, " +
        "if(i > 0, map('k', i), map('k', s)) AS c, array(array(i), array(id)) AS d, nvl(NULL, array(i)) AS e FROM src",
      )).toEqual([
        'coalesce(cast(array(i) as array<bigint>), array(id))',
        "CASE WHEN (i > 0) THEN cast(named_struct('x', i) as struct<x:double>) ELSE named_struct('x', x) END",
        "if((i > 0), cast(map('k', i) as map<string,string>), map('k', s))",
        'array(cast(array(i) as array<bigint>), array(id))',
        'nvl(NULL, array(i))',
      ]);
    });

    it('on the operands of arithmetic and comparisons, as Spark\'s analyzed plan shows them', () => {
      expect(resolvedItems(
        'SELECT i + id AS a, sm * i AS b, f + i AS c, x + id AS e, dec + i AS g, id / i AS h, dec * x AS k, ' +
        "ts > '2020-01-01' AS l, d = '2020-01-02' AS m, d < ts AS n, dec > 1 AS o, x = id AS p FROM src",
      )).toEqual([
        '(cast(i as bigint) + id)', '(cast(sm as int) * i)', '(f + cast(i as float))', '(x + cast(id as double))',
        '(dec + cast(i as decimal(10,0)))', '(cast(id as double) / cast(i as double))', '(cast(dec as double) * x)',
        "(ts > cast('2020-01-01' as timestamp))", "(d = cast('2020-01-02' as date))", '(cast(d as timestamp) < ts)',
        '(dec > cast(1 as decimal(10,2)))', '(x = cast(id as double))',
      ]);
    });

    it('on integers of two widths compared, the values a BIGINT and a DOUBLE pass through, and BETWEEN\'s two comparisons', () => {
      expect(resolvedItems(
        'SELECT i = id AS a, sm < i AS b, id >= 1 AS c, i = 1 AS e, coalesce(id, x) AS g, if(id > i, x, id) AS h, nvl(id, x) AS k, greatest(id, x) AS m, ' +
        'id BETWEEN i AND 5 AS n, sm BETWEEN 1 AND i AS o, i BETWEEN id AND x AS p, s BETWEEN 1 AND 2.5 AS q, s BETWEEN 1 AND i AS r FROM src',
      )).toEqual([
        '(cast(i as bigint) = id)', '(cast(sm as int) < i)', '(id >= cast(1 as bigint))', '(i = 1)',
        'coalesce(cast(id as double), x)', 'if((id > cast(i as bigint)), x, cast(id as double))', 'nvl(cast(id as double), x)', 'greatest(cast(id as double), x)',
        '(id BETWEEN cast(i as bigint) AND cast(5 as bigint))', '(cast(sm as int) BETWEEN 1 AND i)',
        // Read as a BIGINT, then as a DOUBLE (Spark's `i >= id AND i <= x`, each coerced): no one cast of `i` says it.
        '(i BETWEEN id AND x)', '(s BETWEEN 1 AND cast(2.5 as double))', '(cast(s as int) BETWEEN 1 AND i)',
      ]);
      expect(resolvedItems("SELECT s = unhex('61') AS a, unhex('00') < s AS b, s - d AS c FROM src")).toEqual(["(cast(s as binary) = unhex('61'))", "(unhex('00') < cast(s as binary))", '(cast(s as date) - d)']);
    });

    it('reads a BIGINT beside a DOUBLE as a double, one past 2^53 its nearest', async () => {
      const { operators } = compileStreamingQuery("SELECT coalesce(id, x) AS a, if(s = 'a', id, x) AS b, nvl(id, x) AS c, CASE WHEN s = 'a' THEN id ELSE x END AS e FROM src", typedSrc);
      let out: Row[] = [{ id: 2n ** 53n + 1n, x: 0.5, s: 'a' }];
      for (const op of operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
      expect(out).toEqual([{ a: 2 ** 53, b: 2 ** 53, c: 2 ** 53, e: 2 ** 53 }]);
    });

    it('on the branches CASE, coalesce, IF and IN widen to one type, and the elements of array() and map()', () => {
      expect(resolvedItems(
        "SELECT CASE WHEN s = 'a' THEN 1 ELSE 2.0 END AS a, coalesce(i, id) AS b, if(s = 'b', i, id) AS c, " +
        "id IN (1, 2.5) AS e, ts IN ('2020-01-01', ts) AS g, CASE id WHEN 1.5 THEN s END AS h, coalesce(dec, 1) AS k, " +
        "array(i, id) AS m, array(i, id, 1.5) AS m2, map('a', f, 'b', i) AS n FROM src",
      )).toEqual([
        "CASE WHEN (s = 'a') THEN cast(1 as decimal(11,1)) ELSE cast(2.0 as decimal(11,1)) END",
        'coalesce(cast(i as bigint), id)',
        "if((s = 'b'), cast(i as bigint), id)",
        '(cast(id as decimal(21,1)) IN (cast(1 as decimal(21,1)), cast(2.5 as decimal(21,1))))',
        "(cast(ts as string) IN ('2020-01-01', cast(ts as string)))",
        "CASE WHEN (cast(id as decimal(21,1)) = cast(1.5 as decimal(21,1))) THEN s END",
        'coalesce(cast(dec as decimal(12,2)), cast(1 as decimal(12,2)))',
        'array(cast(i as bigint), id)',
        'array(cast(i as decimal(21,1)), cast(id as decimal(21,1)), cast(1.5 as decimal(21,1)))',
        "map('a', f, 'b', cast(i as float))",
      ]);
    });

    it('on a string beside another type, as Spark\'s PromoteStrings, InConversion and CaseWhenCoercion write them', () => {
      expect(resolvedItems(
        "SELECT id = '42' AS a, '1.5' < i AS b, dec = '1' AS c, f >= '2' AS e, (id > 0) = 'true' AS g, s = id AS h, " +
        "'1' + id AS k, '2' * dec AS m, -s AS n, id IN ('1', 2) AS o, CASE WHEN s = 'a' THEN i ELSE s END AS q, CASE id WHEN '7' THEN 1 END AS r FROM src",
      )).toEqual([
        "(id = cast('42' as bigint))", "(cast('1.5' as int) < i)", "(cast(dec as double) = cast('1' as double))", "(f >= cast('2' as float))",
        "((id > cast(0 as bigint)) = cast('true' as boolean))", '(cast(s as bigint) = id)',
        "(cast('1' as double) + cast(id as double))", "(cast('2' as double) * cast(dec as double))", '(- cast(s as double))',
        "(cast(id as string) IN ('1', cast(2 as string)))", "CASE WHEN (s = 'a') THEN cast(i as string) ELSE s END",
        "CASE WHEN (id = cast('7' as bigint)) THEN 1 END",
      ]);
      expect(resolvedItems("SELECT coalesce(i, s) AS a, if(s = 'a', dec, 'x') AS b, nvl(f, s) AS c, greatest(i, id) AS e, sqrt(s) AS g FROM src")).toEqual([
        'coalesce(cast(i as string), s)', "if((s = 'a'), cast(dec as string), 'x')", 'nvl(cast(f as string), s)', 'greatest(cast(i as bigint), id)',
        'sqrt(cast(s as double))',
      ]);
    });

    it('on div, the bitwise operators and the shifts, as Spark\'s IntegralDivision and ImplicitTypeCasts write them', () => {
      expect(resolvedItems(
        'SELECT i div id AS a, sm div i AS b, x div i AS c, dec div i AS e, dec div x AS g, NULL div i AS h, ' +
        'i & id AS k, sm | i AS m, i ^ NULL AS n, ~sm AS o, shiftleft(sm, 1) AS p, shiftright(i, id) AS q, shiftleft(id, 2) AS r FROM src',
      )).toEqual([
        '(cast(i as bigint) div id)', '(cast(sm as bigint) div cast(i as bigint))', '(cast(x as bigint) div cast(i as bigint))',
        '(dec div cast(i as decimal(10,0)))',
        // A decimal beside a DOUBLE is made a DOUBLE, then a BIGINT: no one cast says it.
        '(dec div x)', '(NULL div cast(i as bigint))',
        '(cast(i as bigint) & id)', '(cast(sm as int) | i)', '(i ^ cast(NULL as int))', '~sm',
        'shiftleft(cast(sm as int), 1)', 'shiftright(i, cast(id as int))', 'shiftleft(id, 2)',
      ]);
    });

    it('on the operands of ||, cast to STRING as Spark\'s Concat casts them, and shown as that Concat', () => {
      expect(resolvedItems("SELECT i || s AS a, s || 'x' AS b, f || x AS c, dec || d AS e, ts || NULL AS g, (id > 1) || unhex('61') AS h, s || i || d AS k FROM src")).toEqual([
        'concat(cast(i as string), s)', "concat(s, 'x')", 'concat(cast(f as string), cast(x as string))', 'concat(cast(dec as string), cast(d as string))',
        'concat(cast(ts as string), cast(NULL as string))', "concat(cast((id > cast(1 as bigint)) as string), cast(unhex('61') as string))",
        'concat(concat(s, cast(i as string)), cast(d as string))',
      ]);
      // Named as written (Spark names a column before its analysis rewrites it).
      expect(compileStreamingQuery('SELECT i || s FROM src', typedSrc).explain).toContain('Project [concat(cast(i as string), s) AS (i || s)]');
    });

    it('on a DATE subtracted beside a TIMESTAMP or plus a day-time interval with a time part, as Spark\'s SubtractTimestamps and TimeAdd', () => {
      expect(resolvedItems(
        "SELECT d - ts AS a, ts - d AS b, d + INTERVAL '1' HOUR AS c, INTERVAL '2 03' DAY TO HOUR + d AS e, d - CAST(ts AS TIMESTAMP_NTZ) AS g, " +
        "d - INTERVAL '1' DAY AS h, d - d AS k, ts - ts AS m, d + 1 AS n, d + INTERVAL '1' MONTH AS o FROM src",
      )).toEqual([
        '(cast(d as timestamp) - ts)', '(ts - cast(d as timestamp))', "(cast(d as timestamp) + INTERVAL '01' HOUR)", "(INTERVAL '2 03' DAY TO HOUR + cast(d as timestamp))",
        '(cast(d as timestamp_ntz) - CAST(ts AS TIMESTAMP_NTZ))',
        // A whole number of days, another date, a number of days, months: no cast (DateAdd, SubtractDates, DateAddYMInterval).
        "(d - INTERVAL '1' DAY)", '(d - d)', '(ts - ts)', '(d + 1)', "(d + INTERVAL '1' MONTH)",
      ]);
    });

    it('on a UNION branch whose column is narrower, in a Project, as Spark\'s WidenSetOperationTypes, with the values run-time widening gave', async () => {
      const sql = 'SELECT i AS a, s, d, dec AS e, f AS g FROM src UNION ALL SELECT id, id AS s2, ts, CAST(x AS DECIMAL(12,4)), x FROM src UNION ALL SELECT sm, s, d, sm AS e, i FROM src';
      const q = compileStreamingQuery(sql, typedSrc);
      expect(q.explain).toContain('+- Project [cast(a as bigint) AS a, s, cast(d as timestamp) AS d, cast(e as decimal(12,4)) AS e, cast(g as double) AS g]');
      expect(q.explain).toContain('+- Project [cast(a as bigint) AS a, s, cast(d as timestamp) AS d, cast(e as decimal(12,4)) AS e, cast(g as double) AS g]');
      // A branch already of the union's types in a column passes it through.
      expect(q.explain).toContain('+- Project [id, cast(s2 as string) AS s2, ts, CAST(x AS DECIMAL(12,4)), x]');
      expect(q.explain).toContain('+- Project [cast(sm as bigint) AS sm, s, cast(d as timestamp) AS d, cast(e as decimal(12,4)) AS e, cast(i as double) AS i]');
      // The plan without the analysis (no Projects: unionOutput widens each branch at run time) gives the same rows.
      const runtime: PhysicalOperator[] = [];
      planPhysical(buildLogicalPlan(sql, typedSrc), runtime, new StatefulPlanner('append', typedSrc, false));
      expect(runtime.length).toBeGreaterThan(0);
      const rows: Row[] = [
        { id: 2n ** 53n + 1n, i: -(2 ** 31), sm: 32767, f: Math.fround(1.1), x: 0.125, s: 'a', ts: 1_600_000_000_000, d: 18_000, dec: 12345n },
        { id: 7, i: 3, sm: -2, f: Math.fround(-3.5), x: -1e300, s: 'b', ts: 0, d: 0, dec: -1n },
        { id: null, i: null, sm: null, f: null, x: null, s: null, ts: null, d: null, dec: null },
      ];
      const run = async (ops: PhysicalOperator[]) => {
        let out = rows;
        for (const op of ops) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
        return out;
      };
      const [written, widened] = [await run(q.operators), await run(runtime)];
      expect(written).toHaveLength(9);
      expect(written).toEqual(widened);
    });

    it('on a UNION branch of arrays, maps or structs, by their parts as Spark\'s findWiderTypeForTwo', async () => {
      const sql = "SELECT array(i) AS a, named_struct('x', i) AS st, map('k', i) AS m FROM src UNION ALL SELECT array(id), named_struct('X', x), map('k', s) FROM src";
      const q = compileStreamingQuery(sql, typedSrc);
      expect(q.explain).toContain("+- Project [cast(a as array<bigint>) AS a, cast(st as struct<x:double>) AS st, cast(m as map<string,string>) AS m]");
      expect(q.outputSchema.map(typeText)).toEqual(['ARRAY<BIGINT>', 'STRUCT<x: DOUBLE>', 'MAP<STRING, STRING>']);
      let out: Row[] = [{ id: 2n ** 53n + 1n, i: 3, x: 0.5, s: 'b' }];
      for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
      expect(out).toEqual([{ a: [3], st: { x: 3 }, m: { k: '3' } }, { a: [2n ** 53n + 1n], st: { x: 0.5 }, m: { k: 'b' } }]);
      expect(() => compileStreamingQuery("SELECT named_struct('x', i) AS st FROM src UNION ALL SELECT named_struct('y', i) FROM src", typedSrc)).toThrow(
        '[INCOMPATIBLE_COLUMN_TYPE] UNION can only be performed on tables with compatible column types. The first column of the second table is "STRUCT<y: INT>" type which is not compatible with "STRUCT<x: INT>" at the same column of the first table..');
    });

    it('on a collection function\'s arguments: array_contains\'s value as the elements\' type, a decimal as a double, a date as its text', () => {
      expect(resolvedItems(
        'SELECT array_contains(arr, i) AS a, array_contains(arr, 1) AS b, array_contains(iarr, sm) AS c, array_contains(farr, f) AS e, array_contains(darr, dec) AS g, ' +
        "array_contains(darr, i) AS h, array_contains(arr, dec) AS k, array_contains(iarr, id) AS m, array_repeat(dec, 2) AS n, array_repeat(1.5, 2) AS o, split(d, '-') AS p FROM src",
      )).toEqual([
        'array_contains(arr, cast(i as bigint))', 'array_contains(arr, cast(1 as bigint))', 'array_contains(iarr, cast(sm as int))', 'array_contains(farr, cast(f as double))',
        'array_contains(darr, cast(dec as decimal(12,3)))', 'array_contains(darr, cast(i as decimal(12,3)))', 'array_contains(arr, cast(dec as double))',
        // Spark casts the array of INTs to one of BIGINTs: no cast of an element is written.
        'array_contains(iarr, id)',
        // A literal argument the function may read as written is converted, not cast in the plan.
        'array_repeat(cast(dec as double), 2)', 'array_repeat(1.5, 2)', "split(cast(d as string), '-')",
      ]);
    });

    it('where a function converts an argument, and not on a literal it may read as written', () => {
      expect(resolvedItems("SELECT concat(d, 'x') AS a, sqrt(dec) AS b, round(dec, 1) AS c, date_trunc('YEAR', s) AS e FROM src")).toEqual([
        "concat(cast(d as string), 'x')", 'sqrt(cast(dec as double))', 'round(dec, 1)', "date_trunc('YEAR', cast(s as timestamp))",
      ]);
    });

    it('names a column as written and explains it with its casts; each cast carries its type, the input unchanged', () => {
      const sql = "SELECT i + id, x FROM src WHERE ts > '2020-01-01' AND f + i > 0";
      const plan = buildLogicalPlan(sql, typedSrc);
      const before = snapshot(plan);
      const resolved = resolvePlan(plan).plan;
      expect(snapshot(plan)).toBe(before);
      const q = compileStreamingQuery(sql, typedSrc);
      expect(q.outputSchema.map((f) => f.name)).toEqual(['(i + id)', 'x']);
      expect(q.explain).toContain("Filter ((ts > cast('2020-01-01' as timestamp)) AND ((f + cast(i as float)) > 0))");
      // A select item as Spark's Project shows it: a column passed through by name, an expression AS its name.
      expect(q.explain).toContain('Project [(cast(i as bigint) + id) AS (i + id), x]');
      // Each cast is typed as the compiler types it (a Cast node compiled on its own).
      const casts = expressions(resolved).flatMap(({ expr, input }) => subtree(expr).filter((x) => x.kind === 'cast').map((x) => ({ x, input })));
      expect(casts.length).toBe(4);
      for (const { x, input } of casts) expect(x.dataType).toEqual(typeOfCompiled(compileExpression(x, input)));
    });

    it('gives the values the compiler\'s own conversions gave, a decimal widened past 38 digits included', () => {
      const sql = 'SELECT i + id AS a, sm * i AS b, f + i AS c, x + id AS e, dec + i AS g, id / i AS h, id % i AS h2, ' +
        "ts > '2020-01-01' AS l, d = '2020-01-02' AS m, d < ts AS n, dec > 1 AS o, x = id AS p, " +
        "CASE WHEN s = 'a' THEN 1 ELSE 2.0 END AS q, coalesce(i, id) AS r, id IN (1, 2.5) AS t, concat(d, 'x') AS u, date_trunc('MONTH', s) AS u2, " +
        "CASE WHEN s = 'a' THEN big ELSE CAST(0.5 AS DECIMAL(38,10)) END AS v, coalesce(dec, 1) AS w, f * 3 AS y, array(i, id, NULL) AS z, map('a', f, 'b', i) AS z2, " +
        "s = id AS s1, s < i AS s2, s = dec AS s3, s + 1 AS s4, -s AS s5, id IN (s, 2) AS s6, CASE WHEN id > 1 THEN x ELSE s END AS s7, s = sm AS s8, s = f AS s9, " +
        "s = d AS s10, s = ts AS s11, CASE sm WHEN s THEN 1 ELSE 0 END AS s12, coalesce(dec, s) AS s13, if(id > 1, f, s) AS s14, nvl2(s, d, s) AS s15, abs(s) AS s16, " +
        'i = id AS w1, sm < i AS w2, coalesce(id, x) AS w3, greatest(id, x) AS w4, if(id > i, x, id) AS w5, id BETWEEN i AND 5 AS w6, sm BETWEEN 1 AND i AS w7, ' +
        "s BETWEEN 1 AND 2.5 AS w8, s BETWEEN i AND dec AS w9, i BETWEEN id AND x AS w10, s = X'61' AS w11, s < X'3220' AS w12, s - d AS w13, " +
        'i div id AS v1, sm div i AS v2, x div i AS v3, dec div i AS v4, f div id AS v5, dec div 3 AS v6, dec div x AS v7, i & id AS v8, sm | i AS v9, i ^ sm AS v10, ' +
        'shiftleft(sm, i) AS v11, shiftright(i, id) AS v12, shiftrightunsigned(id, sm) AS v13, shiftleft(id, i) AS v14, ' +
        "i || s AS c1, f || x AS c2, dec || d AS c3, ts || NULL AS c4, (id > 1) || unhex('61') AS c5, id || 'x' AS c6, " +
        "d - ts AS t1, ts - d AS t2, d + INTERVAL '1' HOUR AS t3, INTERVAL '2 03' DAY TO HOUR + d AS t4, d - INTERVAL '90' MINUTE AS t5, d - CAST(ts AS TIMESTAMP_NTZ) AS t6, " +
        "array_contains(arr, i) AS a1, array_contains(iarr, sm) AS a2, array_contains(farr, f) AS a3, array_contains(darr, dec) AS a4, array_contains(darr, i) AS a5, " +
        "array_contains(arr, dec) AS a6, array_contains(darr, 1) AS a7, array_repeat(dec, 2) AS a8, split(d, '-') AS a9 FROM src";
      const plan = buildLogicalPlan(sql, typedSrc);
      if (plan.kind !== 'Project') throw new Error('no Project');
      const resolved = resolvePlan(plan).plan;
      if (resolved.kind !== 'Project') throw new Error('no Project');
      const input = outputSchema(plan.child);
      const day = 86_400_000;
      const rows = [
        { id: 7, i: 3, sm: -2, f: Math.fround(1.1), x: 0.25, s: 'a', ts: 1_600_000_000_000, d: 18_000, dec: 12345n, big: 10n ** 30n, arr: [3, 7, null], iarr: [-2], farr: [Math.fround(1.1)], darr: [123450n, 3000n] },
        { id: 7, i: 3, sm: -2, f: Math.fround(1.1), x: 0.25, s: 'a', ts: 0, d: 0, dec: 300n, big: 0n, arr: [123], iarr: [1, 2], farr: [1.1, 3], darr: [1000n] },
        { id: 2 ** 62, i: -(2 ** 31), sm: 32767, f: Math.fround(-3.5), x: -1e300, s: 'b', ts: 18_000 * day, d: 18_000, dec: -1n, big: -(10n ** 37n) },
        { id: 1, i: 0, sm: 0, f: 0, x: 1, s: '2015-03-05T09:32:05', ts: 0, d: 18_262, dec: 100n, big: 5n },
        // Text a string promotion casts: spaces, a fraction an integer truncates, out of range, not a number.
        { id: 3, i: 1, sm: 7, f: Math.fround(0.5), x: 2, s: ' 3 ', ts: 0, d: 0, dec: 300n, big: 0n },
        { id: 1, i: 1, sm: 1, f: 1, x: 1, s: '1.5', ts: 0, d: 0, dec: 150n, big: 0n },
        { id: 1, i: 1, sm: 1, f: 1, x: 1, s: '70000', ts: 0, d: 0, dec: 0n, big: 0n },
        { id: 1, i: 1, sm: 1, f: 1, x: 1, s: '1970-01-01', ts: 0, d: 0, dec: 0n, big: 0n },
        // A BIGINT past 2^53, held as a bigint.
        { id: 2n ** 53n + 1n, i: 5, sm: 5, f: 1, x: 2 ** 53, s: '2.7', ts: 0, d: 0, dec: 250n, big: 0n },
        { id: null, i: null, sm: null, f: null, x: null, s: null, ts: null, d: null, dec: null, big: null },
      ];
      const ctx = { batchTimestampMs: 0 };
      let casts = 0;
      plan.list.forEach((n, k) => {
        const written = compileExpression(n.expr, input);
        const withCasts = compileExpression(resolved.list[k].expr, input);
        casts += subtree(resolved.list[k].expr).filter((x) => x.kind === 'cast' && x.implicit).length;
        for (const row of rows) expect(withCasts.eval(row, ctx), `${n.name} of ${JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`).toEqual(written.eval(row, ctx));
      });
      expect(casts).toBeGreaterThan(20);
    });
  });
});

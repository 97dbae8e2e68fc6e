/**
 * Adding an aggregate (collect_list, stddev, percentile_approx, …) to a running aggregation
 * changes what its state holds: the restart-compatibility check, which the control plane runs
 * when an edit is saved (dryRun), refuses it, naming the old and new aggregate lists.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { IncompatibleQueryChangeError } from '../errors';
import { StateSchemaCompatibilityChecker } from '../state/state-schema-compatibility-checker';
import { compileStreamingQuery } from './streaming-query';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'k', type: 'string' as const }, { name: 'v', type: 'double' as const }] };
const operators = (sql: string) => compileStreamingQuery(sql, rel, { outputMode: 'complete' }).statefulOperators;

describe('state compatibility of the aggregate families', () => {
  for (const added of ['collect_list(v)', 'stddev(v)', 'percentile_approx(v, 0.5)', 'first(v, true)']) {
    it(`refuses adding ${added} to a running query, at edit time`, async () => {
      const fm = new InMemoryCheckpointFileManager();
      const checker = new StateSchemaCompatibilityChecker(fm);
      await checker.check(operators('SELECT k, sum(v) AS s FROM src GROUP BY k'), 'cp', false);
      const edited = operators(`SELECT k, sum(v) AS s, ${added} AS x FROM src GROUP BY k`);
      const err = await checker.check(edited, 'cp', true, true, true).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
      expect((err as Error).message).toContain(`the aggregates of stateful operator 0 (aggregate) changed from sum(v) to sum(v), ${added}`);
      // The same query again passes.
      await expect(checker.check(operators('SELECT k, sum(v) AS s FROM src GROUP BY k'), 'cp', true, true, true)).resolves.toBeDefined();
    });
  }
});

/**
 * docs/sql.md's list of every function, by Spark group, is the registry's: this fails when the
 * two drift apart (a function registered but not listed, or listed but gone, or a difference
 * from Spark's examples not in the table). `npx vitest run lib/engine/query/function-docs.test.ts -u`
 * rewrites the section (vitest's update mode, as for snapshots).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUNCTION_REGISTRY } from './function-registry';
import { END, functionList } from './testing/function-list-markdown';

const STALE = 'docs/sql.md\'s function list is stale: run npx vitest run lib/engine/query/function-docs.test.ts -u';

describe('docs/sql.md function list', () => {
  it('is the registry\'s, and lists every registered function', () => {
    const docsPath = path.join(import.meta.dirname, '../../../docs/sql.md');
    let docs = readFileSync(docsPath, 'utf8');
    const start = docs.indexOf('<!-- function-list:');
    expect(start, 'docs/sql.md needs the <!-- function-list: … --> and <!-- /function-list --> lines where the list goes').toBeGreaterThanOrEqual(0);
    // -u (update mode, as for snapshots) rewrites the section.
    if ((expect.getState().snapshotState as unknown as { _updateSnapshot?: string })._updateSnapshot === 'all') {
      docs = docs.slice(0, start) + functionList() + docs.slice(docs.indexOf(END) + END.length);
      writeFileSync(docsPath, docs);
    }
    const section = docs.slice(start, docs.indexOf(END) + END.length);
    for (const f of FUNCTION_REGISTRY.values()) {
      if (!f.internal) expect(section, `${f.name}() is registered but not in docs/sql.md's function list: ${STALE}`).toContain(`\`${f.name}(`);
    }
    expect(section, STALE).toBe(functionList());
  });
});

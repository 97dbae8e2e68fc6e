import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parseExplain } from '@/lib/server/presenters/job-draft-presenter';
import { ExplainPanel, joinInputs } from './explain-panel';
import { JOIN_EXPLAIN } from './testing/plan-fixtures';


describe('the explain of a join of two streams', () => {
  it("names each of the join's inputs as its reason names the sides, and nothing else", () => {
    expect(joinInputs(parseExplain(JOIN_EXPLAIN))).toEqual([undefined, undefined, 'left', undefined, 'right', undefined]);
    expect(joinInputs(parseExplain('Project [a] [stateless]\n+- StreamingRelation s [source]'))).toEqual([undefined, undefined]);
  });

  it('shows both inputs, each source under its side, and the join as stateful', () => {
    const html = renderToStaticMarkup(createElement(ExplainPanel, { operators: parseExplain(JOIN_EXPLAIN) }));
    expect(html).toContain('1 stateful operator');
    expect(html).toMatch(/left: <\/span>Project \[id AS i\.id, ts AS i\.ts\].*StreamingRelation impressions.*right: <\/span>Project \[id AS c\.id, ts AS c\.ts\].*StreamingRelation clicks/);
  });
});

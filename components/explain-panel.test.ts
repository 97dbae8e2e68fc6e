import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parseExplain } from '@/lib/server/presenters/job-draft-presenter';
import { ExplainPanel, joinInputs } from './explain-panel';

// The engine's explain of a stream-stream join (job-draft-presenter's parseExplain reads it).
const JOIN = [
  'Project [i.id AS id] [stateless]',
  '+- Join Inner ((i.id = c.id)) [stateful: buffers both streams by join key; left side evicted 60001 ms behind the watermark]',
  '   +- Project [id AS i.id, ts AS i.ts] [stateless]',
  '      +- StreamingRelation impressions watermark(ts, 10000 ms) [source]',
  '   +- Project [id AS c.id, ts AS c.ts] [stateless]',
  '      +- StreamingRelation clicks watermark(ts, 20000 ms) [source]',
].join('\n');

describe('the explain of a join of two streams', () => {
  it("names each of the join's inputs as its reason names the sides, and nothing else", () => {
    expect(joinInputs(parseExplain(JOIN))).toEqual([undefined, undefined, 'left', undefined, 'right', undefined]);
    expect(joinInputs(parseExplain('Project [a] [stateless]\n+- StreamingRelation s [source]'))).toEqual([undefined, undefined]);
  });

  it('shows both inputs, each source under its side, and the join as stateful', () => {
    const html = renderToStaticMarkup(createElement(ExplainPanel, { operators: parseExplain(JOIN) }));
    expect(html).toContain('1 stateful operator');
    expect(html).toMatch(/left: <\/span>Project \[id AS i\.id, ts AS i\.ts\].*StreamingRelation impressions.*right: <\/span>Project \[id AS c\.id, ts AS c\.ts\].*StreamingRelation clicks/);
  });
});

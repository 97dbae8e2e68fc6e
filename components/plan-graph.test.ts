/**
 * The plan graph as it renders: one box per operator and the sink, the join's inputs labelled,
 * the stateful box marked as such in words, a summary for screen readers and a list with every
 * operator's full text, and a batch's state figures in the join's box.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parseExplain } from '@/lib/server/presenters/job-draft-presenter';
import { PlanGraph } from './plan-graph';
import { JOIN_EXPLAIN } from './testing/plan-fixtures';

const JOIN = parseExplain(JOIN_EXPLAIN);

const render = (props: Parameters<typeof PlanGraph>[0]) => renderToStaticMarkup(createElement(PlanGraph, props));
const boxes = (html: string) => [...html.matchAll(/<g class="plan-node (\w+)" data-operator="(\w+)"/g)].map((m) => `${m[2]}:${m[1]}`);

describe('PlanGraph', () => {
  it('draws a box per operator, sources first and the sink last, the join stateful and its inputs labelled', () => {
    const html = render({ operators: JOIN, sink: 'console' });
    expect(boxes(html)).toEqual(['StreamingRelation:source', 'Project:stateless', 'StreamingRelation:source', 'Project:stateless', 'Join:stateful', 'Project:stateless', 'Sink:sink']);
    expect(html).toContain('role="img" aria-label="Plan graph of 6 operators: rows flow from 2 sources impressions, clicks through 1 stateful operator (Join) into the console sink."');
    expect(html).toMatch(/<text class="plan-edge-label"[^>]*>left<\/text>.*<text class="plan-edge-label"[^>]*>right<\/text>/);
    expect(html).toMatch(/class="plan-node-kind">stateful</);
    // A long argument is cut in its box and whole in its tooltip and in the list.
    expect(html).toContain('<title>Join Inner ((i.id = c.id))\nstateful: buffers both streams by join key; left side evicted 60001 ms behind the watermark</title>');
    expect(html).toContain('>impressions watermark(ts, 1000…</text>');
    expect(html).toContain('<li>StreamingRelation impressions watermark(ts, 10000 ms)</li>');
    expect(html).toMatch(/stateful: keeps state in the checkpoint between batches/);
  });

  it("writes a batch's figures in the boxes", () => {
    const progress = {
      batchId: 3,
      stateOperators: [{ numRowsTotal: 5, numRowsUpdated: 5, numRowsRemoved: 0, memoryUsedBytes: 1024, numRowsDroppedByWatermark: 0, customMetrics: { leftBufferedRows: 4, rightBufferedRows: 1 } }],
      sources: [{ numInputRows: 4 }, { numInputRows: 1 }],
      sink: { numOutputRows: 1 },
    };
    const html = render({ operators: JOIN, sink: 'console', progress, sourceNames: ['impressions', 'clicks'] });
    expect(html).toContain('class="plan-node-figure">state: 5 rows</text>');
    expect(html).toContain('class="plan-node-figure">left 4 · right 1 buffered</text>');
    expect(html).toContain('class="plan-node-figure">4 rows in</text>');
    expect(html).toContain('class="plan-node-figure">1 row out</text>');
    expect(html).toContain('Figures of batch 3.');
  });
});

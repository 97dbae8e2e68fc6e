import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BatchProgressView, partitionRows, taskSkew } from './batch-progress';

describe('partitionRows', () => {
  it('joins a source\'s per-partition offsets with its lag; absent or unreadable metrics give no rows', () => {
    const metrics = { offsetsByPartition: '{"orders":{"0":120,"1":98}}', lagByPartition: '{"orders-0":5,"orders-1":0}' };
    expect(partitionRows(metrics)).toEqual([
      { partition: 'orders-0', offset: 120, latest: 125, lag: 5 },
      { partition: 'orders-1', offset: 98, latest: 98, lag: 0 },
    ]);
    expect(partitionRows(undefined)).toEqual([]);
    expect(partitionRows({ offsetsByPartition: 'not json', lagByPartition: '{}' })).toEqual([]);
  });
});

describe('BatchProgressView', () => {
  it('says when a batch was rebuilt from the checkpoint, and only then', () => {
    const html = (progress: object) => renderToStaticMarkup(createElement(BatchProgressView, { progress }));
    expect(html({ batchId: 7, numInputRows: 0, reconstructed: true })).toContain('The row was rebuilt from the checkpoint (offsets/7)');
    expect(html({ batchId: 7, numInputRows: 12 })).not.toContain('rebuilt from the checkpoint');
  });
});

describe('BatchProgressView over several sources', () => {
  it('shows each source with its offsets, rows and lag; one source keeps its single section', () => {
    const html = (progress: object) => renderToStaticMarkup(createElement(BatchProgressView, { progress }));
    const two = html({
      batchId: 3,
      numInputRows: 5,
      sources: [
        { description: 'MemoryStream[a]', startOffset: 1, endOffset: 4, latestOffset: 4, numInputRows: 3, commitLag: 0 },
        { description: 'MemoryStream[b]', startOffset: null, endOffset: 2, latestOffset: 7, numInputRows: 2, commitLag: 5 },
      ],
    });
    expect(two).toContain('<h3>Source 1</h3>');
    expect(two).toContain('<h3>Source 2</h3>');
    expect(two).toContain('MemoryStream[b]');
    expect(two).toContain('<dt>Commit lag</dt><dd>5</dd>');
    const one = html({ batchId: 3, numInputRows: 3, sources: [{ description: 'MemoryStream[a]', startOffset: 1, endOffset: 4, latestOffset: 4, numInputRows: 3 }] });
    expect(one).toContain('<h3>Source</h3>');
    expect(one).not.toContain('<dt>Commit lag</dt>');
  });
});

describe('BatchProgressView over several watermarks and a join', () => {
  const html = (progress: object, sourceNames?: string[]) => renderToStaticMarkup(createElement(BatchProgressView, { progress, sourceNames }));
  const source = (description: string, watermark: string) => ({ description, startOffset: 0, endOffset: 1, latestOffset: 1, numInputRows: 1, commitLag: 0, watermark });

  it('heads each source with its name, gives its own watermark, and says how the next global one is picked', () => {
    const out = html(
      {
        batchId: 2,
        eventTime: { watermark: '2026-12-06T10:00:03.000Z' },
        sources: [source('FileSource[/a]', '2026-12-06T10:01:29.000Z'), source('FileSource[/b]', '2026-12-06T10:00:03.000Z')],
        multipleWatermarkPolicy: 'min',
      },
      ['impressions', 'clicks'],
    );
    expect(out).toContain('<h3>Source 1: impressions</h3>');
    expect(out).toContain('<h3>Source 2: clicks</h3>');
    expect(out).toMatch(/Own watermark<\/dt><dd>2026-12-06T10:01:29.000Z<\/dd>/);
    expect(out).toContain('<dt>Watermark used</dt><dd>2026-12-06T10:00:03.000Z</dd>');
    expect(out).toContain('the slowest of the sources&#x27; own (multipleWatermarkPolicy <code>min</code>), never back: impressions 2026-12-06T10:01:29.000Z, clicks 2026-12-06T10:00:03.000Z');
    // One watermark: Spark's progress, nothing of the kind.
    const one = html({ batchId: 2, eventTime: { watermark: '2026-12-06T10:00:03.000Z' }, sources: [{ description: 'x', numInputRows: 1 }] });
    expect(one).not.toContain('Own watermark');
    expect(one).not.toContain('Next watermark');
  });

  it("splits a stream-stream join's state by side: rows, rows evicted and memory", () => {
    const join = {
      operatorName: 'symmetricHashJoin', numRowsTotal: 50, numRowsUpdated: 25, numRowsRemoved: 7, memoryUsedBytes: 9000,
      customMetrics: { leftBufferedRows: 40, rightBufferedRows: 10, leftRowsRemoved: 5, rightRowsRemoved: 2, leftMemoryUsedBytes: 7168, rightMemoryUsedBytes: 1832 },
    };
    const out = html({ batchId: 2, stateOperators: [join, { operatorName: 'stateStoreSave', numRowsTotal: 3 }] });
    expect(out).toMatch(/left side<\/td><td class="num">40<\/td><td class="num"><\/td><td class="num">5<\/td><td class="num"><\/td><td class="num">7.0 KiB<\/td>/);
    expect(out).toMatch(/right side<\/td><td class="num">10<\/td><td class="num"><\/td><td class="num">2<\/td><td class="num"><\/td><td class="num">1.8 KiB<\/td>/);
    expect(out.match(/ side<\/td>/g)).toHaveLength(2);
  });
});

describe('the reduce tasks of a batch run on the workers', () => {
  const task = (partitionId: number, workerId: string, inputRows: number, durationMs: number, attempt = 1) => ({ stageId: 2, partitionId, workerId, inputRows, rows: inputRows, shuffleBytes: inputRows * 100, durationMs, attempt });

  it('skew: the slowest task over the median, the largest input over the median; none for one task', () => {
    expect(taskSkew([task(0, 'a', 100, 10), task(1, 'b', 100, 10), task(2, 'a', 400, 40)])).toEqual({ duration: 4, rows: 4 });
    expect(taskSkew([task(0, 'a', 100, 10), task(1, 'b', 300, 30)])).toEqual({ duration: 1.5, rows: 1.5 });
    expect(taskSkew([task(0, 'a', 0, 0), task(1, 'b', 0, 0)])).toEqual({ duration: 1, rows: 1 });
    expect(taskSkew([task(0, 'a', 5, 5)])).toBeUndefined();
  });

  it('shows each task with its worker, rows, duration and retries, and the skew', () => {
    const html = renderToStaticMarkup(createElement(BatchProgressView, { progress: { batchId: 4, tasks: [task(1, 'worker-b', 300, 30, 2), task(0, 'worker-a', 100, 10)] } }));
    expect(html).toContain('aria-label="Reduce tasks of stage 2"');
    expect(html.indexOf('worker-a')).toBeLessThan(html.indexOf('worker-b'));
    expect(html).toMatch(/worker-b<\/td><td class="num">300<\/td><td class="num">300<\/td>.*<td class="num">1<\/td><\/tr>/);
    expect(html).toContain('Skew: the slowest task took 1.5× the median');
    expect(renderToStaticMarkup(createElement(BatchProgressView, { progress: { batchId: 4 } }))).not.toContain('Reduce tasks');
  });

  it("lists a stage's map tasks apart from its reduce tasks, each with its own skew", () => {
    const map = (split: number, inputRows: number, durationMs: number) => ({ ...task(split, 'worker-m', inputRows, durationMs), kind: 'map' as const });
    const html = renderToStaticMarkup(createElement(BatchProgressView, { progress: { batchId: 4, tasks: [task(0, 'worker-a', 100, 10), map(0, 50, 5), map(1, 250, 25), task(1, 'worker-b', 100, 10)] } }));
    expect(html).toContain('<h3>Map tasks</h3>');
    expect(html).toContain('aria-label="Map tasks of stage 2"');
    expect(html).toContain('<th class="num">Split</th>');
    // Map first, as it runs first; the reduce tasks' equal durations give no skew above 1.
    expect(html.indexOf('Map tasks')).toBeLessThan(html.indexOf('Reduce tasks'));
    expect(html).toContain('Skew: the slowest task took 1.7× the median');
    expect(html).toContain('Skew: the slowest task took 1.0× the median');
  });
});

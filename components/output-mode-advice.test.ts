import { describe, expect, it } from 'vitest';
import { adviceFor } from './output-mode-advice';

describe('adviceFor: an output mode that is not allowed, fix first', () => {
  it('Append over an aggregation without a watermark: set the event-time column and the delay', () => {
    const a = adviceFor('[_LEGACY_ERROR_TEMP_3102] Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
    expect(a.fix).toMatch(/^Set an event-time column and a watermark delay/);
    expect(a.controls).toEqual(['sources.0.eventTime', 'sources.0.watermarkDelay']);
    expect(a.errorClass).toBe('_LEGACY_ERROR_TEMP_3102');
    expect(a.detail).toMatch(/^Append output mode not supported/);
  });

  it("a mode the sink does not take: the sink's modes, and the Sink type field", () => {
    const a = adviceFor(
      '[STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE] Invalid streaming output mode: update. This output mode is not supported in Data Source files. The files sink takes Append output mode: choose it, or a sink that takes Update.',
    );
    expect(a.fix).toBe('The files sink cannot write Update output: choose Append, or another sink type that takes Update.');
    expect(a.controls).toEqual(['sinkType']);
  });

  it('an aggregation feeding another stateful operator outside Append: choose Append', () => {
    const a = adviceFor("[_LEGACY_ERROR_TEMP_3102] Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, which are \"late rows\" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. (Update output mode)");
    expect(a.fix).toMatch(/^Choose Append for this query/);
    expect(a.controls).toEqual([]);
  });

  it('Complete without an aggregation points at the query', () => {
    expect(adviceFor('Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets').controls).toEqual(['sql']);
  });

  it('an unknown reason is its own message, in the form\'s words', () => {
    const a = adviceFor('[SOME_CLASS] Set source.eventTime first');
    expect(a).toMatchObject({ fix: 'Set “Event-time column” first', controls: [], errorClass: 'SOME_CLASS' });
  });
});

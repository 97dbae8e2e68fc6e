/** The Preview panel's sample text: JSON lines or a JSON array; a bad line is named. */
import { describe, expect, it } from 'vitest';
import { parseSample, sampleArrayText } from './preview-panel';

describe('parseSample', () => {
  it('reads JSON lines (blank lines skipped) and JSON arrays', () => {
    expect(parseSample('{"a":1}\n\n{"a":2}\n')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseSample(' [{"a":1},{"a":2}] ')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseSample('  ')).toEqual([]);
  });
  it('names the line that is not JSON', () => {
    expect(() => parseSample('{"a":1}\n{oops}')).toThrow(/Sample line 2 is not JSON/);
  });
});

describe('sampleArrayText', () => {
  it('keeps each record as pasted, so a 64-bit id keeps its digits', () => {
    const text = '{"id": 9223372036854775807}\n\n{"id": 1}\n';
    expect(sampleArrayText(text)).toBe('[{"id": 9223372036854775807},{"id": 1}]');
    expect(sampleArrayText(' [{"id": 9223372036854775807}] ')).toBe('[{"id": 9223372036854775807}]');
    expect(JSON.parse(sampleArrayText(text))).toHaveLength(2);
  });
});

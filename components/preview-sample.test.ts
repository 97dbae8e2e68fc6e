/** The Preview panel's sample text: JSON lines or a JSON array; a bad line is named. */
import { describe, expect, it } from 'vitest';
import { parseSample } from './preview-panel';

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

import { describe, expect, it } from 'vitest';
import { timestampJson } from './json-functions';
import { parseTimestampLiteral } from './expression-builder';

const ts = (text: string) => parseTimestampLiteral(text)!;

describe('timestampJson writes a timestamp by Spark\'s default timestampFormat', () => {
  it("writes the year as yyyy-MM-dd'T'HH:mm:ss.SSSXXX does: four digits, signed below 1 or past 9999", () => {
    expect(timestampJson(ts('2024-01-02 03:04:05.123456'))).toBe('2024-01-02T03:04:05.123Z');
    expect(timestampJson(ts('+12345-01-01 00:00:00'))).toBe('+12345-01-01T00:00:00.000Z');
    expect(timestampJson(ts('-0044-03-15 10:20:30'))).toBe('-0044-03-15T10:20:30.000Z');
    expect(timestampJson(ts('-0044-03-15 10:20:30'), true)).toBe('-0044-03-15T10:20:30.000');
  });
});

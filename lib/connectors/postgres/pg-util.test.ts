import { describe, expect, it } from 'vitest';
import { outputColumns } from './pg-util';

describe('PostgreSQL output columns', () => {
  it('writes a TIMESTAMP_NTZ as timestamp (without time zone), its wall-clock text, and a TIMESTAMP as timestamptz', () => {
    const ms = Date.parse('2020-01-02T03:04:05Z');
    const cols = outputColumns([{ name: 'n', type: 'timestamp', ntz: true }, { name: 't', type: 'timestamp' }], []);
    expect(cols.map((c) => c.createType)).toEqual(['timestamp', 'timestamptz']);
    expect(cols.map((c) => c.get({ n: ms, t: ms }))).toEqual(['2020-01-02T03:04:05.000', '2020-01-02T03:04:05.000Z']);
    expect(cols.map((c) => c.get({ n: null, t: null }))).toEqual([null, null]);
  });
});

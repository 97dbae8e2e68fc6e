/**
 * Functions over arrays of a million elements do not spread them into one call
 * (`push(...elements)` overflows the stack somewhere past 100,000 arguments): before, these
 * failed the record with "Maximum call stack size exceeded" (INTERNAL_ERROR, a 500 in preview).
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { compileStreamingQuery } from './streaming-query';

const relation = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 's', type: 'string' as const }] };

async function evaluate(sql: string, s: string): Promise<unknown> {
  const q = compileStreamingQuery(`SELECT ${sql} AS v FROM src`, relation);
  let out: Row[] = [{ s }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out[0].v;
}

const MILLION = 1_000_000;

describe('a million-element array', () => {
  it("concat_ws joins an array's elements", async () => {
    const s = 'x'.repeat(MILLION);
    expect(await evaluate("concat_ws('', split(s, ''))", s)).toBe(s);
    expect(await evaluate("length(concat_ws('', 'a', split(s, ''), 'b'))", s)).toBe(MILLION + 2);
  });

  it('get_json_object takes every element of a JSON array ($[*])', async () => {
    const v = await evaluate("get_json_object(s, '$[*]')", `[${'1,'.repeat(MILLION - 1)}1]`);
    expect(typeof v === 'string' && v.length).toBe(2 * MILLION + 1);
  });

  it('get_json_object takes every value of a JSON object ($.*)', async () => {
    const members = Array.from({ length: MILLION / 4 }, (_, i) => `"k${i}":${i % 10}`).join(',');
    const v = await evaluate("get_json_object(s, '$.*')", `{${members}}`);
    expect(typeof v === 'string' && JSON.parse(v).length).toBe(MILLION / 4);
  });
});

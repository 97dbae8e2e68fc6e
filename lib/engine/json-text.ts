/**
 * JSON text with numbers written digit for digit. JSON.stringify can write a number only from a
 * double, so a DECIMAL(38,2) would lose digits and `2.50` would print `2.5`; Spark's JSON writer
 * and to_json print a decimal's exact digits (`{"amount":2.50}`). A value wrapped in JsonNumber is
 * written as its text, everything else as JSON.stringify writes it.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export function stringifyJson(v: unknown): string {
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : stringifyJson(x))).join(',')}]`;
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJson(x)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Spark's Kafka offset JSON: `{"topic":{"0":120,"1":98}}`, per partition the next offset to read.
 * The same shape is `startingOffsets` (with -2 = earliest, -1 = latest) and, as lists of
 * partitions, `assign` (`{"topic":[0,1]}`).
 */
export type KafkaOffsets = Record<string, Record<string, number>>;
export type StartingOffsets = 'earliest' | 'latest' | KafkaOffsets;

export const tpKey = (topic: string, partition: number): string => `${topic}-${partition}`;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates a parsed offset object; a string says what is wrong. `allowSpecial` admits -2 and -1. */
export function parseKafkaOffsets(v: unknown, allowSpecial = false): KafkaOffsets | string {
  if (!isObj(v)) return 'expected a JSON object {"topic":{"partition":offset}}';
  const out: KafkaOffsets = {};
  for (const [topic, ps] of Object.entries(v)) {
    if (!isObj(ps)) return `topic ${topic}: expected {"partition":offset}`;
    out[topic] = {};
    for (const [p, o] of Object.entries(ps)) {
      if (!/^\d+$/.test(p)) return `topic ${topic}: partition "${p}" is not a number`;
      const min = allowSpecial ? -2 : 0;
      if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < min) return `topic ${topic} partition ${p}: ${JSON.stringify(o)} is not an offset${allowSpecial ? ' (a number >= 0, or -2 earliest, -1 latest)' : ''}`;
      out[topic][String(Number(p))] = o;
    }
  }
  return out;
}

/** Topics and partitions in a stable order, so equal offsets print equally. */
export function formatKafkaOffsets(o: KafkaOffsets): string {
  const sorted: KafkaOffsets = {};
  for (const t of Object.keys(o).sort()) {
    sorted[t] = {};
    for (const p of Object.keys(o[t]).sort((a, b) => Number(a) - Number(b))) sorted[t][p] = o[t][p];
  }
  return JSON.stringify(sorted);
}

export function parseStartingOffsets(text: string): StartingOffsets | { error: string } {
  const t = text.trim();
  if (t === 'earliest' || t === 'latest') return t;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return { error: 'startingOffsets is earliest, latest, or JSON like {"orders":{"0":23,"1":-2}} (-2 earliest, -1 latest)' };
  }
  const r = parseKafkaOffsets(v, true);
  return typeof r === 'string' ? { error: `startingOffsets: ${r}` } : r;
}

export function parseAssign(text: string): Record<string, number[]> | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'assign is JSON like {"orders":[0,1]}';
  }
  if (!isObj(v) || Object.keys(v).length === 0) return 'assign is JSON like {"orders":[0,1]} with at least one topic';
  const out: Record<string, number[]> = {};
  for (const [topic, ps] of Object.entries(v)) {
    if (!Array.isArray(ps) || ps.length === 0 || !ps.every((p) => Number.isInteger(p) && (p as number) >= 0)) return `assign: topic ${topic} needs a list of partition numbers, like [0,1]`;
    out[topic] = ps as number[];
  }
  return out;
}

/** startingOffsetsByTimestamp: `{"topic":{"0":1700000000000}}`, an epoch-ms time per partition. */
export function parseOffsetsByTimestamp(text: string): KafkaOffsets | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'startingOffsetsByTimestamp is JSON like {"orders":{"0":1700000000000,"1":1700000000000}} (epoch ms per partition)';
  }
  const r = parseKafkaOffsets(v);
  return typeof r === 'string' ? `startingOffsetsByTimestamp: ${r.replace('is not an offset', 'is not an epoch-ms time')}` : r;
}

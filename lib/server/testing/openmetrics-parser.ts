/**
 * A strict parser of the OpenMetrics 1.0 text format, for tests: no parser package is installed
 * here (prometheus_client's Python parser and promtool are not on this machine), and a test that
 * only greps for a line would pass output Prometheus refuses. It refuses, with the line number,
 * what the specification refuses and Prometheus's own parser trips on:
 *
 * - anything after `# EOF`, or no `# EOF`; blank lines;
 * - metric and label names outside their grammars; label values with other escapes than
 *   `\\`, `\"`, `\n`; duplicate label names; values that are not floats (`NaN`, `±Inf`);
 * - a family's metadata after its samples, or twice; families interleaved or repeated;
 * - sample names the family's type does not allow (a counter's samples end in `_total` or
 *   `_created`; a histogram has `_bucket` with `le`, `_count`, `_sum`), a counter family name
 *   ending in `_total`, negative counters;
 * - a histogram whose buckets are not cumulative, lack `+Inf`, or whose `+Inf` bucket is not
 *   its `_count`; the same series twice.
 */

type MetricType = 'counter' | 'gauge' | 'histogram' | 'gaugehistogram' | 'stateset' | 'info' | 'summary' | 'unknown';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help?: string;
  unit?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Inf|inf)$/;
const TYPES: MetricType[] = ['counter', 'gauge', 'histogram', 'gaugehistogram', 'stateset', 'info', 'summary', 'unknown'];

const SUFFIXES: Record<MetricType, string[]> = {
  counter: ['_total', '_created'],
  gauge: [''],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  stateset: [''],
  info: ['_info'],
  summary: ['', '_count', '_sum', '_created'],
  unknown: [''],
};

class OpenMetricsParseError extends Error {}

function fail(line: number, msg: string, text: string): never {
  throw new OpenMetricsParseError(`line ${line}: ${msg}: ${JSON.stringify(text.slice(0, 200))}`);
}

function parseFloatStrict(s: string, line: number, text: string): number {
  if (s === 'NaN') return NaN;
  if (!FLOAT.test(s)) fail(line, `not a float: ${s}`, text);
  if (/inf$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  return Number(s);
}

/** `{a="x",b="y"}` starting at text[i]; returns the labels and the index after `}`. */
function parseLabels(text: string, i: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  i++; // {
  if (text[i] === '}') return { labels, end: i + 1 };
  for (;;) {
    const eq = text.indexOf('=', i);
    if (eq < 0) fail(line, 'label without "="', text);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) fail(line, `bad label name ${name}`, text);
    if (name in labels) fail(line, `duplicate label ${name}`, text);
    if (text[eq + 1] !== '"') fail(line, 'label value not quoted', text);
    let j = eq + 2;
    let value = '';
    for (;;) {
      const c = text[j];
      if (c === undefined) fail(line, 'unterminated label value', text);
      if (c === '"') break;
      if (c === '\\') {
        const n = text[j + 1];
        if (n === '\\') value += '\\';
        else if (n === '"') value += '"';
        else if (n === 'n') value += '\n';
        else fail(line, `bad escape \\${n}`, text);
        j += 2;
      } else {
        value += c;
        j++;
      }
    }
    labels[name] = value;
    j++; // closing quote
    if (text[j] === '}') return { labels, end: j + 1 };
    if (text[j] !== ',') fail(line, 'expected "," or "}" after a label', text);
    i = j + 1;
  }
}

function unescapeHelp(s: string, line: number, text: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"') return '"';
    return fail(line, `bad escape in HELP \\${c}`, text);
  });
}

export function parseOpenMetrics(body: string): Map<string, MetricFamily> {
  if (!body.endsWith('# EOF\n') && !body.endsWith('# EOF')) throw new OpenMetricsParseError('the exposition does not end with "# EOF"');
  const lines = body.replace(/\n$/, '').split('\n');
  const families = new Map<string, MetricFamily>();
  let current: MetricFamily | undefined;
  const seenSeries = new Set<string>();
  const typed = new Set<string>();

  const familyFor = (name: string, lineNo: number, text: string): MetricFamily => {
    if (current && current.name === name) return current;
    if (families.has(name)) fail(lineNo, `family ${name} appears again after another family (interleaved)`, text);
    current = { name, type: 'unknown', samples: [] };
    families.set(name, current);
    return current;
  };

  lines.forEach((text, k) => {
    const lineNo = k + 1;
    if (k === lines.length - 1) {
      if (text !== '# EOF') fail(lineNo, 'the last line must be "# EOF"', text);
      return;
    }
    if (text === '') fail(lineNo, 'blank line', text);
    if (text === '# EOF') fail(lineNo, '"# EOF" before the end', text);
    if (text.startsWith('#')) {
      const m = /^# (TYPE|HELP|UNIT) ([^ ]+) (.*)$/.exec(text) ?? /^# (HELP|UNIT) ([^ ]+)$/.exec(text);
      if (!m) fail(lineNo, 'a comment that is not TYPE, HELP, UNIT or EOF', text);
      const [, kind, name, rest = ''] = m;
      if (!METRIC_NAME.test(name)) fail(lineNo, `bad metric name ${name}`, text);
      const f = familyFor(name, lineNo, text);
      if (f.samples.length) fail(lineNo, `${kind} of ${name} after its samples`, text);
      if (kind === 'TYPE') {
        if (typed.has(name)) fail(lineNo, `second TYPE for ${name}`, text);
        if (!TYPES.includes(rest as MetricType)) fail(lineNo, `unknown type ${rest}`, text);
        f.type = rest as MetricType;
        typed.add(name);
        if (f.type === 'counter' && name.endsWith('_total')) fail(lineNo, 'a counter family name must not end in _total (its samples do)', text);
      } else if (kind === 'HELP') {
        if (f.help !== undefined) fail(lineNo, `second HELP for ${name}`, text);
        f.help = unescapeHelp(rest, lineNo, text);
      } else {
        if (f.unit !== undefined) fail(lineNo, `second UNIT for ${name}`, text);
        if (rest && !name.endsWith(`_${rest}`)) fail(lineNo, `a family with unit ${rest} must have a name ending in _${rest}`, text);
        f.unit = rest;
      }
      return;
    }
    // A sample: name[{labels}] value [timestamp] [# exemplar]
    const nameEnd = text.search(/[{ ]/);
    if (nameEnd <= 0) fail(lineNo, 'a sample needs a name and a value', text);
    const sampleName = text.slice(0, nameEnd);
    if (!METRIC_NAME.test(sampleName)) fail(lineNo, `bad metric name ${sampleName}`, text);
    let labels: Record<string, string> = {};
    let i = nameEnd;
    if (text[i] === '{') ({ labels, end: i } = parseLabels(text, i, lineNo));
    if (text[i] !== ' ') fail(lineNo, 'expected one space before the value', text);
    const rest = text.slice(i + 1).split(' # ')[0];
    const parts = rest.split(' ');
    if (parts.length > 2 || parts.some((p) => p === '')) fail(lineNo, 'expected a value and an optional timestamp, single-spaced', text);
    const value = parseFloatStrict(parts[0], lineNo, text);
    if (parts[1] !== undefined) parseFloatStrict(parts[1], lineNo, text);
    // The family is the sample name less the suffix its type allows.
    const f = current && SUFFIXES[current.type].some((s) => sampleName === current!.name + s) ? current : undefined;
    if (!f) fail(lineNo, `sample ${sampleName} does not belong to the family before it (${current?.name ?? 'none'}, ${current?.type ?? ''})`, text);
    if (f.type === 'counter' && sampleName.endsWith('_total') && !(value >= 0)) fail(lineNo, 'a counter must be a non-negative number', text);
    if ((f.type === 'histogram' || f.type === 'gaugehistogram') && sampleName.endsWith('_bucket')) {
      if (!('le' in labels)) fail(lineNo, 'a histogram bucket needs an le label', text);
      parseFloatStrict(labels.le, lineNo, text);
    }
    const key = `${sampleName}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seenSeries.has(key)) fail(lineNo, 'the same series twice', text);
    seenSeries.add(key);
    f.samples.push({ name: sampleName, labels, value });
  });

  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort());
}

function checkHistogram(f: MetricFamily): void {
  const bySeries = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const key = seriesKey(s.labels);
    let e = bySeries.get(key);
    if (!e) bySeries.set(key, (e = { buckets: [] }));
    if (s.name.endsWith('_bucket')) e.buckets.push([s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), s.value]);
    else if (s.name.endsWith('_count')) e.count = s.value;
    else if (s.name.endsWith('_sum')) e.sum = s.value;
  }
  for (const [key, e] of bySeries) {
    const where = `histogram ${f.name}${key}`;
    for (let i = 1; i < e.buckets.length; i++) {
      if (!(e.buckets[i][0] > e.buckets[i - 1][0])) throw new OpenMetricsParseError(`${where}: le values not increasing`);
      if (e.buckets[i][1] < e.buckets[i - 1][1]) throw new OpenMetricsParseError(`${where}: buckets not cumulative`);
    }
    const inf = e.buckets.at(-1);
    if (!inf || inf[0] !== Infinity) throw new OpenMetricsParseError(`${where}: no +Inf bucket last`);
    if (e.count !== undefined && e.count !== inf[1]) throw new OpenMetricsParseError(`${where}: _count ${e.count} is not the +Inf bucket ${inf[1]}`);
  }
}

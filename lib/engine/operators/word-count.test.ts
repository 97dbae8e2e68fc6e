/**
 * The streaming word count of Spark's Structured Streaming guide, through MicroBatchExecution:
 *
 *   SELECT word, count(*) AS count FROM (SELECT explode(split(line, ' ')) AS word FROM lines) GROUP BY word
 *
 * in Update and Complete mode, with a crash at every crash point and restarts: the counts stay
 * exactly once (the reference counts the words of every line added), and numInputRows counts
 * lines, not the words the Generate made of them.
 */
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { CRASH_POINTS } from '../execution/crash-points';
import { AddData, CheckAnswer, CrashAt, StartStream, StopStream, testStream } from '../execution/testing/stream-test';
import { mustParse, seededRandom, tempDir } from '../execution/testing/test-fixtures';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import type { OutputMode, Row } from '../types';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const WORD_COUNT = "SELECT word, count(*) AS count FROM (SELECT explode(split(line, ' ')) AS word FROM lines) GROUP BY word";

let uniq = 0;
async function job(outputMode: OutputMode, sql = WORD_COUNT) {
  const name = `word-count-${process.pid}-${uniq++}`;
  const checkpoint = await tempDir('word-count');
  roots.push(checkpoint);
  const spec = mustParse({
    name,
    source: { name: 'lines', type: 'memory', options: { stream: name }, schema: [{ name: 'line', type: 'string' }] },
    sql,
    sink: { type: 'memory', options: { table: name } },
    outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: checkpoint,
  });
  return { spec, stream: MemoryStream.named(name), table: MemorySinkTable.named(name) };
}

/** Lines of words from a small vocabulary, with doubled and trailing spaces (empty words, as Spark splits them). */
function lines(seed: number) {
  const rnd = seededRandom(seed);
  const vocab = ['apache', 'spark', 'weir', 'stream', 'cat', 'dog', 'owl'];
  return (n: number): Row[] =>
    Array.from({ length: n }, () => {
      const words = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => vocab[Math.floor(rnd() * vocab.length)]);
      return { line: words.join(rnd() < 0.15 ? '  ' : ' ') + (rnd() < 0.1 ? ' ' : '') };
    });
}

/** Reference: Java's split with limit -1, as Spark's split. */
function countWords(added: Row[]): Row[] {
  const m = new Map<string, number>();
  for (const r of added) for (const w of (r.line as string).split(' ')) m.set(w, (m.get(w) ?? 0) + 1);
  return [...m].map(([word, count]) => ({ word, count }));
}

const latestByWord = (rows: Row[]) => [...new Map(rows.map((r) => [r.word, r])).values()];

describe("Spark's streaming word count (explode(split(line, ' ')) then GROUP BY word)", () => {
  for (const mode of ['update', 'complete'] as const) {
    it.each(CRASH_POINTS)(`${mode}: crash at %s of batch 1, restart, every word counted exactly once`, async (point) => {
      const j = await job(mode);
      const g = lines(point.length * 31 + mode.length);
      const state = await testStream(
        {
          spec: j.spec,
          clock: new ManualClock(Date.UTC(2024, 0, 1)),
          addData: async (rows) => void j.stream.addRows(rows),
          // Update mode emits the changed counts each batch: the latest per word is the table's state.
          readAnswer: async () => (mode === 'update' ? latestByWord(j.table.rows) : j.table.rows),
          expected: countWords,
        },
        [
          AddData([{ line: 'apache spark' }, { line: 'apache hadoop' }]),
          CheckAnswer([{ word: 'apache', count: 2 }, { word: 'spark', count: 1 }, { word: 'hadoop', count: 1 }]),
          AddData(g(25)),
          CrashAt(point, 1),
          AddData(g(20)),
          CheckAnswer(),
          StopStream(),
          StartStream(),
          AddData(g(10)),
          CheckAnswer(),
          StopStream(),
        ],
      );
      expect(state.crashes).toHaveLength(1);
      // numInputRows counts the source's lines (2, then 10 in the last batch); the words are the Generate's output.
      expect(state.progress.find((p) => p.batchId === 0)!.numInputRows).toBe(2);
      expect(state.progress.at(-1)!.numInputRows).toBe(10);
    });
  }
});

describe('explode alone (a stateless query in append mode)', () => {
  it.each(CRASH_POINTS)('crash at %s of batch 1, restart: every word row exactly once, with its line number', async (point) => {
    const j = await job('append', "SELECT n, posexplode(split(line, ' ')) FROM (SELECT line, length(line) AS n FROM lines)");
    const g = lines(point.length * 17);
    const expected = (added: Row[]) => added.flatMap((r) => (r.line as string).split(' ').map((col, pos) => ({ n: (r.line as string).length, pos, col })));
    await testStream(
      { spec: j.spec, clock: new ManualClock(0), addData: async (rows) => void j.stream.addRows(rows), readAnswer: async () => j.table.rows, expected },
      [AddData(g(5)), CheckAnswer(), AddData(g(8)), CrashAt(point, 1), AddData(g(3)), CheckAnswer(), StopStream(), StartStream(), AddData(g(4)), CheckAnswer(), StopStream()],
    );
  });
});

describe('grouping by an array (Spark orders arrays by their elements) and refusing a map', () => {
  it('counts lines by their split words across batches and a restart', async () => {
    const j = await job('complete', "SELECT split(line, ' ') AS words, count(*) AS n FROM lines GROUP BY split(line, ' ')");
    const expected = (added: Row[]) => {
      const m = new Map<string, number>();
      for (const r of added) m.set(r.line as string, (m.get(r.line as string) ?? 0) + 1);
      return [...m].map(([line, n]) => ({ words: line.split(' '), n }));
    };
    await testStream(
      { spec: j.spec, clock: new ManualClock(0), addData: async (rows) => void j.stream.addRows(rows), readAnswer: async () => j.table.rows, expected },
      [
        AddData([{ line: 'a b' }, { line: 'a' }, { line: 'a b' }]),
        CheckAnswer([{ words: ['a', 'b'], n: 2 }, { words: ['a'], n: 1 }]),
        StopStream(),
        StartStream(),
        AddData([{ line: 'a' }, { line: 'b ' }]),
        CheckAnswer(),
        StopStream(),
      ],
    );
  });

  it('refuses a map grouping key with Spark\'s error class', async () => {
    const { validateJob } = await import('../spec/validate-job');
    const j = await job('complete', "SELECT str_to_map(line) AS m, count(*) AS n FROM lines GROUP BY str_to_map(line)");
    const r = validateJob({ ...j.spec, sql: j.spec.sql });
    expect(JSON.stringify(r)).toMatch(/GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE/);
  });
});

// The real `weir` CLI (node bin/weir.js, spawned) with a kafka source and a kafka sink against
// librdkafka's mock cluster run by kcat (testing/mock-broker.ts; not Apache Kafka): validate
// states the at-least-once contract, run copies the topic, `weir sink read` shows the batch ids.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;
let dir: string;

beforeAll(async () => {
  if (!HAVE_KCAT) return;
  broker = await startMockKafka({ brokers: 1 });
  dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-cli-'));
}, 120_000);
afterAll(async () => {
  await broker?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function weir(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/weir.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!HAVE_KCAT)('weir CLI with kafka (librdkafka mock cluster)', () => {
  it('validates, runs kafka → kafka, and reads the sink back with batch ids', async () => {
    const topic = `cli-in-${process.pid}`;
    await produce(broker.bootstrapServers, topic, Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: JSON.stringify({ id: i }), partition: i % 4 })));
    const file = path.join(dir, 'job.json');
    await writeFile(file, JSON.stringify({
      name: 'kafka-cli',
      source: { name: 'src', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest' }, schema: [{ name: 'key', type: 'binary' }, { name: 'value', type: 'binary' }] },
      sql: 'SELECT key, value FROM src',
      sink: { type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, topic: `${topic}-out` } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'cp'),
    }));
    const v = await weir(['validate', file]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain('at-least-once');
    const r = await weir(['run', file]);
    expect(r.code, r.stderr).toBe(0);
    const read = await weir(['sink', 'read', file]);
    expect(read.code, read.stderr).toBe(0);
    const rows = read.stdout.trim().split('\n').map((l) => JSON.parse(l) as { value: string; batchId: number });
    expect(rows.map((x) => JSON.parse(x.value).id).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(rows.map((x) => x.batchId))).toEqual(new Set([0]));
  }, 120_000);
});

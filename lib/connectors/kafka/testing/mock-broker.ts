/**
 * A Kafka broker for tests: librdkafka's MOCK CLUSTER, run inside Debian's `kcat`. It is not
 * Apache Kafka. It speaks the Kafka protocol on local ports for as long as the kcat process
 * lives, auto-creates topics on first produce (4 partitions by default), keeps everything in
 * memory and has no admin API for topic creation or record deletion. What a test proves against
 * it is that Weir speaks the protocol and keeps its own contract, not that a given Kafka release
 * behaves the same way.
 *
 * `kcat -b 127.0.0.1:1 -X test.mock.num.brokers=N -C -t <topic> -d mock` starts the cluster (the
 * -b value is ignored) and logs `Mock cluster … bootstrap.servers=127.0.0.1:<port>,…` on stderr.
 * The process gets its own process group so that stop() ends it and nothing else.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { outboundPolicy } from '../../../engine/outbound/outbound-policy';
import { createKafka } from '../client';

export interface MockKafkaBroker {
  /** `host:port,host:port` as the Kafka source's `bootstrapServers` takes it. */
  bootstrapServers: string;
  pid: number;
  stop(): Promise<void>;
}

/** Whether kcat is installed (CI installs it in .ci/run; tests skip with a reason otherwise). */
export function kcatAvailable(): boolean {
  return spawnSync('kcat', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** Starts a mock cluster; resolves once its bootstrap addresses are logged (up to `timeoutMs`). */
export async function startMockKafka(opts: { brokers?: number; timeoutMs?: number } = {}): Promise<MockKafkaBroker> {
  const brokers = opts.brokers ?? 3;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const child: ChildProcess = spawn('kcat', ['-b', '127.0.0.1:1', '-X', `test.mock.num.brokers=${brokers}`, '-C', '-t', '__weir_mock_keepalive', '-d', 'mock', '-q'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('kcat did not start: install Debian\'s kcat package (apt-get install -y kcat)');
  const bootstrapServers = await new Promise<string>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kcat's mock cluster did not log its bootstrap.servers within ${timeoutMs} ms. Log:\n${log.slice(-2000)}`));
    }, timeoutMs);
    child.stderr?.on('data', (c: Buffer) => {
      log += c.toString();
      const m = /Mock cluster \S+ bootstrap\.servers=(\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        // Keep draining stderr (debug logging goes on) so kcat never blocks on a full pipe.
        child.stderr?.removeAllListeners('data');
        child.stderr?.resume();
        resolve(m[1]);
      }
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kcat exited (${code}) before its mock cluster was up. Log:\n${log.slice(-2000)}`));
    });
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    bootstrapServers,
    pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        return;
      }
      const t = setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5_000);
      await exited;
      clearTimeout(t);
    },
  };
}

export interface TestRecord {
  key?: string | Buffer | null;
  value: string | Buffer | null;
  partition?: number;
  timestamp?: number;
  headers?: Record<string, string>;
}

/** Produces records with KafkaJS (acks from all replicas); topics auto-create on first produce. */
export async function produce(bootstrapServers: string, topic: string, records: TestRecord[]): Promise<void> {
  const kafka = createKafka({ bootstrapServers, securityProtocol: 'PLAINTEXT', clientId: 'weir-test', requestTimeoutMs: 30_000 }, outboundPolicy());
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  try {
    for (let i = 0; i < records.length; i += 5_000) {
      await producer.send({
        topic,
        acks: -1,
        messages: records.slice(i, i + 5_000).map((r) => ({ key: r.key ?? null, value: r.value, partition: r.partition, timestamp: r.timestamp === undefined ? undefined : String(r.timestamp), headers: r.headers })),
      });
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * Test fixtures for the alert suites: a fresh migrated database with a Prisma client, jobs and
 * BatchProgress rows with only the fields the rules read filled in, and a real local HTTP
 * receiver that records each request (body, headers) and answers with scripted statuses.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '@/lib/server/testing/database';

export interface AlertTestDb {
  db: PrismaClient;
  database: TestDatabase;
  close(): Promise<void>;
}

export async function alertTestDb(): Promise<AlertTestDb> {
  const database = await createTestDatabase('weir_alerts');
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  return { db, database, close: async () => (await db.$disconnect(), await database.drop()) };
}

export async function createJob(db: PrismaClient, name: string, extra: { status?: 'RUNNING' | 'STOPPED' | 'FAILED'; trigger?: object; spec?: object } = {}) {
  const trigger = extra.trigger ?? { type: 'processing-time', interval: '100 milliseconds' };
  return db.job.create({
    data: { name, spec: extra.spec ?? { name }, sql: 'SELECT 1', sourceType: 'memory', sinkType: 'memory', outputMode: 'append', trigger, checkpointLocation: `/tmp/${name}`, status: extra.status ?? 'RUNNING' },
  });
}

export async function addBatch(db: PrismaClient, jobId: string, batchId: number, f: { rows?: number; lag?: number | null; durationMs?: number; at?: Date } = {}) {
  return db.batchProgress.create({
    data: {
      jobId,
      batchId,
      timestamp: f.at ?? new Date(),
      numInputRows: 1,
      inputRowsPerSecond: 0,
      processedRowsPerSecond: 0,
      batchDurationMs: f.durationMs ?? 10,
      durationMs: {},
      stateRowsTotal: BigInt(f.rows ?? 0),
      commitLag: f.lag === undefined ? 0n : f.lag === null ? null : BigInt(f.lag),
      progress: {},
    },
  });
}

interface ReceivedRequest {
  body: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

/** A webhook receiver on 127.0.0.1: answers each request with the next scripted status (then 200). */
export async function startReceiver(script: number[] = []) {
  const received: ReceivedRequest[] = [];
  const queue = [...script];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const status = queue.shift() ?? 200;
      received.push({ body, headers: req.headers, status });
      res.writeHead(status).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    /** Requests answered 2xx: the deliveries the receiver accepted. */
    accepted: () => received.filter((r) => r.status < 300),
    script: (...statuses: number[]) => queue.push(...statuses),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

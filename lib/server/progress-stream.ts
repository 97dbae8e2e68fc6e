/**
 * The body of GET /api/jobs/:id/progress/stream: a text/event-stream that sends
 * `event: progress` + `id: <batchId>` + the batch's JSON (as GET …/batches/:batchId returns it)
 * for each batch the worker commits, and a `: heartbeat` comment every 15 s so proxies keep the
 * connection open. It ends when the client disconnects.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { getBatch } from './presenters/batches-presenter';
import { findJobOrThrow } from './job-view';
import { progressListener } from './progress-listener';

const HEARTBEAT_MS = 15_000;

export async function progressEventStream(db: PrismaClient, jobId: string, signal: AbortSignal, heartbeatMs = HEARTBEAT_MS): Promise<Response> {
  await findJobOrThrow(db, jobId); // 404 before the stream opens
  const enc = new TextEncoder();
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let closed = false;
      const send = (text: string) => {
        if (!closed) controller.enqueue(enc.encode(text));
      };
      // Batches are sent in commit order even if their reads finish out of order.
      let chain = Promise.resolve();
      const unsubscribe = await progressListener().subscribe(jobId, (batchId) => {
        chain = chain.then(async () => {
          try {
            const b = await getBatch(db, jobId, batchId);
            send(`event: progress\nid: ${batchId}\ndata: ${JSON.stringify(b)}\n\n`);
          } catch {
            // The row vanished (checkpoint reset): nothing to send.
          }
        });
      });
      const timer = setInterval(() => send(': heartbeat\n\n'), heartbeatMs);
      cleanup = () => {
        if (closed) return;
        closed = true;
        clearInterval(timer);
        unsubscribe();
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      if (signal.aborted) cleanup();
      else signal.addEventListener('abort', cleanup, { once: true });
      send(': connected\n\n');
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' },
  });
}

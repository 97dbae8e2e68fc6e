/**
 * GET /metrics: who may scrape, and the response. With WEIR_METRICS_TOKEN set, a scraper sends it
 * as a bearer token (Prometheus `authorization: {credentials: …}`); any viewer credential (an
 * API token, a signed-in session) works too, so a person can look. Without it, only a viewer
 * credential: job names are not for anyone who can reach the port.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { env } from '@/lib/env';
import { queueConfigFrom } from '@/lib/queue/connection';
import { runQueue } from '@/lib/queue/run-queue';
import { authorize } from '../auth';
import { prisma } from '../db';
import { errorResponse } from '../http/http-errors';
import { collectMetrics, METRICS_CONTENT_TYPE } from './prometheus-metrics';

/** Equal-time comparison of two secrets of any length (hashing first makes the lengths equal). */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function bearer(req: Request): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '');
  return m?.[1];
}

export async function metricsResponse(req: Request): Promise<Response> {
  try {
    const config = env();
    const db = prisma();
    const token = bearer(req);
    if (!(config.WEIR_METRICS_TOKEN && token && sameSecret(token, config.WEIR_METRICS_TOKEN))) {
      await authorize(db, req, 'viewer', 'read metrics');
    }
    const registry = await collectMetrics({
      db,
      queueCounts: async () => {
        const counts = await runQueue(queueConfigFrom(config)).getJobCounts('waiting', 'delayed', 'prioritized', 'active');
        return { waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0), active: counts.active ?? 0 };
      },
    });
    return new Response(await registry.metrics(), { headers: { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' } });
  } catch (e) {
    return errorResponse(e);
  }
}

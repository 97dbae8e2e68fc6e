/**
 * Prometheus scrape endpoint, outside /api where scrapers look for it (lib/server/metrics).
 */
import { metricsResponse } from '@/lib/server/metrics/metrics-endpoint';

export const dynamic = 'force-dynamic';

export const GET = metricsResponse;

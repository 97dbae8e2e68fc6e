/**
 * Every /api path no route handles: a JSON 404 in the API's error envelope, for every method, so
 * a client never has to parse the HTML page Next would otherwise serve.
 */
import { errorResponse } from '@/lib/server/http/http-errors';
import { WeirError } from '@/lib/engine/errors';

export const dynamic = 'force-dynamic';

function notFound(req: Request): Response {
  const { pathname } = new URL(req.url);
  const shown = pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname;
  return errorResponse(new WeirError('NOT_FOUND', `No API endpoint ${req.method} ${shown}. The endpoints are listed in /api/openapi.json.`, { method: req.method, path: shown }));
}

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;

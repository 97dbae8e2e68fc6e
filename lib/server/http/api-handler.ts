/**
 * The shape every route handler under app/api shares: authenticate and check the role, parse
 * with zod, call one service or presenter, and turn any error into a response in one place
 * (http-errors.ts). Handlers stay a few lines each.
 *
 * Everything a request carries is untrusted, and the checks every route needs live here, not in
 * each route: a path and a query string whose percent-encoding is UTF-8 (url-encoding.ts), route
 * params and query values free of NUL bytes (PostgreSQL refuses them in text) and of lone
 * surrogates; a body of at most MAX_BODY_BYTES, counted while it is read, of valid
 * UTF-8 JSON at most MAX_JSON_DEPTH deep whose strings obey the same rule.
 */
// Never in a browser bundle: a client component importing this fails the build.
import 'server-only';
import type { z } from 'zod';
import { env } from '@/lib/env';
import { MAX_BODY_BYTES, MAX_PREVIEW_SAMPLE_RECORDS } from './body-limits';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { enqueueRun } from '@/lib/queue/run-queue';
import { queueConfigFrom } from '@/lib/queue/connection';
import { authorize, type Principal, type Role } from '../auth';
import { prisma } from '../db';
import { errorResponse, PayloadTooLargeError } from './http-errors';
import { BadRequestError } from '../errors';
import { installOutboundPolicy, serverOutboundPolicy } from '../outbound';
import { badPathEncoding, badQueryEncoding } from './url-encoding';
import type { JobServiceContext } from '../services/job-service';
import type { PreviewProcessLimits } from '../isolation/preview-host';
import { parseJson, PREVIEW_TIMEOUT_MS } from '@/lib/engine';

export interface ApiContext {
  req: Request;
  db: PrismaClient;
  params: Record<string, string>;
  principal: Principal;
}

type RouteSecondArg = { params: Promise<Record<string, string>> };

/**
 * A handler that needs at least `role`; `action` names what is refused in a 403.
 * `duringPasswordChange`: also answers a session that must first replace its one-time password.
 */
export function apiRoute(role: Role, action: string, fn: (ctx: ApiContext) => Promise<unknown>, opts: { duringPasswordChange?: boolean } = {}) {
  return async (req: Request, second?: RouteSecondArg): Promise<Response> => {
    try {
      const db = prisma();
      // Connections this process opens for a request (checkpoint reads on S3) obey the policy.
      installOutboundPolicy();
      const params = (await second?.params) ?? {};
      checkUrlInput(req, params);
      const principal = await authorize(db, req, role, action, opts);
      const out = await fn({ req, db, params, principal });
      return out instanceof Response ? out : Response.json(out ?? { ok: true });
    } catch (e) {
      return errorResponse(e);
    }
  };
}

/** A 200 whose body is JSON text already written (what Response.json would send for its value). */
export function jsonTextResponse(text: string): Response {
  return new Response(text, { headers: { 'content-type': 'application/json' } });
}

/** A handler open to anyone (sign-in, sign-out, the OpenAPI document). */
export function publicRoute(fn: (ctx: Omit<ApiContext, 'principal'>) => Promise<unknown>) {
  return async (req: Request, second?: RouteSecondArg): Promise<Response> => {
    try {
      const params = (await second?.params) ?? {};
      checkUrlInput(req, params);
      const out = await fn({ req, db: prisma(), params });
      return out instanceof Response ? out : Response.json(out ?? { ok: true });
    } catch (e) {
      return errorResponse(e);
    }
  };
}

/** Objects and arrays nested deeper than this are refused (400): nothing the API takes needs more. */
const MAX_JSON_DEPTH = 64;

/** In `u` mode a surrogate pair is one code point, so only an unpaired surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `s` cannot be stored or compared as text, or undefined if it can. */
function badTextReason(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL byte (\\u0000)';
  // A lone surrogate is not a character: it has no UTF-8 encoding (PostgreSQL refuses it).
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (invalid Unicode)';
  return undefined;
}

function checkText(s: string, field: string): void {
  const reason = badTextReason(s);
  if (reason) throw new BadRequestError(`${field} ${reason}; send text without it.`, { field });
}

/** Route params and query values: checked before authentication, so no bad text reaches a query. */
function checkUrlInput(req: Request, params: Record<string, string>): void {
  const url = new URL(req.url);
  // Under `next start` proxy.ts answers a bad path first; this covers any other way in.
  const bad = badPathEncoding(url) ?? badQueryEncoding(url);
  if (bad) throw bad;
  for (const [k, v] of Object.entries(params)) if (typeof v === 'string') checkText(v, `The path parameter ${k}`);
  for (const [k, v] of url.searchParams) {
    checkText(k, 'A query parameter name');
    checkText(v, `The query parameter ${k}`);
    // `next start` decodes and re-encodes the query before any code of ours sees it, turning a
    // sequence that is not UTF-8 (`?q=%FF`) into U+FFFD, so badQueryEncoding cannot see it there.
    // The replacement character is what is left of it, and no filter or cursor means it.
    if (k.includes('\uFFFD') || v.includes('\uFFFD')) {
      throw new BadRequestError(
        `The query parameter ${k.replace(/\uFFFD/g, '?')} holds bytes that are not valid UTF-8 once percent-decoded (or U+FFFD, what is left of them); percent-encode its UTF-8 bytes (URLSearchParams does).`,
        { field: k },
      );
    }
  }
}

/** Every string (and key) of a parsed JSON value, and its depth, without recursion. */
function checkJsonValue(root: unknown): void {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: root, path: '', depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') checkText(v, `The body field ${path || '(root)'}`);
    else if (v && typeof v === 'object') {
      if (depth >= MAX_JSON_DEPTH) {
        throw new BadRequestError(`The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels (at ${path || '(root)'}); flatten it.`, { field: path || '(root)', maxDepth: MAX_JSON_DEPTH });
      }
      for (const [k, child] of Object.entries(v)) {
        const childPath = path ? `${path}.${k}` : k;
        checkText(k, `A body field name at ${path || '(root)'}`);
        stack.push({ v: child, path: childPath, depth: depth + 1 });
      }
    }
  }
}

function tooLarge(bytes: number | undefined): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The request body${bytes === undefined ? '' : ` (${bytes} bytes)`} is over the API's limit of ${MAX_BODY_BYTES} bytes (1 MiB); send a smaller body (a job's SQL may be at most 64 KiB, a preview's sample ${MAX_PREVIEW_SAMPLE_RECORDS} records within this limit).`,
    { maxBytes: MAX_BODY_BYTES, ...(bytes === undefined ? {} : { bytes }) },
  );
}

/**
 * The body as text, refused with 413 as soon as it is known to be too large: from
 * Content-Length when the client sent it, else by counting bytes as the stream arrives (a chunked
 * body has no length up front). Invalid UTF-8 is a 400.
 */
async function readBodyText(req: Request): Promise<string> {
  const declared = req.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > MAX_BODY_BYTES) throw tooLarge(Number(declared));
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(undefined);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadRequestError('The request body is not valid UTF-8; send JSON encoded as UTF-8.');
  }
}

/** The JSON body, parsed by `schema`; bad JSON or a bad shape is a 400 naming the field. */
export async function parseBody<S extends z.ZodType>(req: Request, schema: S, opts: { exactIntegersIn?: string } = {}): Promise<z.infer<S>> {
  let raw: unknown;
  const text = await readBodyText(req);
  try {
    raw = text.length ? JSON.parse(text) : {};
  } catch (e) {
    throw new BadRequestError(`The request body is not valid JSON (${(e as Error).message}); send Content-Type: application/json with a JSON object.`);
  }
  // Data records (a preview's sample) keep an integer past 2^53 exactly, as a source reads it;
  // the rest of the body (limits, ports) stays plain numbers for its schema.
  const key = opts.exactIntegersIn;
  if (key && raw !== null && typeof raw === 'object' && !Array.isArray(raw) && Object.hasOwn(raw, key)) {
    raw = { ...raw, [key]: (parseJson(text) as Record<string, unknown>)[key] };
  }
  checkJsonValue(raw);
  return schema.parse(raw);
}

/** The query string, parsed by `schema` (values arrive as strings: use z.coerce). */
export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  return schema.parse(Object.fromEntries(new URL(req.url).searchParams));
}

/** What a preview process may take: WEIR_PREVIEW_MEMORY_MB of heap, the documented 5 s, WEIR_PREVIEW_CONCURRENCY at once. */
export function previewLimits(): PreviewProcessLimits {
  const config = env();
  return { memoryLimitMb: config.WEIR_PREVIEW_MEMORY_MB, maxConcurrent: config.WEIR_PREVIEW_CONCURRENCY, timeoutMs: PREVIEW_TIMEOUT_MS };
}

export function jobServiceContext(ctx: ApiContext): JobServiceContext {
  const config = env();
  return {
    db: ctx.db,
    principal: ctx.principal,
    checkpointRoot: config.checkpointRoot,
    outbound: serverOutboundPolicy(),
    filesRoots: config.filesRoots,
    enqueue: (payload) => enqueueRun(queueConfigFrom(config), { ...payload, attempt: 0 }),
  };
}

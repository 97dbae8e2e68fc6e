/**
 * The shape every route handler under app/api shares: authenticate and check the role, parse
 * with zod, call one service or presenter, and turn any error into a response in one place
 * (http-errors.ts). Handlers stay a few lines each.
 */
import type { z } from 'zod';
import { env } from '@/lib/env';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { enqueueRun } from '@/lib/queue/run-queue';
import { queueConfigFrom } from '@/lib/queue/connection';
import { authorize, type Principal, type Role } from './auth';
import { prisma } from './db';
import { BadRequestError, errorResponse } from './http-errors';
import type { JobServiceContext } from './services/job-service';

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
      const params = (await second?.params) ?? {};
      const principal = await authorize(db, req, role, action, opts);
      const out = await fn({ req, db, params, principal });
      return out instanceof Response ? out : Response.json(out ?? { ok: true });
    } catch (e) {
      return errorResponse(e);
    }
  };
}

/** A handler open to anyone (sign-in, sign-out, the OpenAPI document). */
export function publicRoute(fn: (ctx: Omit<ApiContext, 'principal'>) => Promise<unknown>) {
  return async (req: Request, second?: RouteSecondArg): Promise<Response> => {
    try {
      const out = await fn({ req, db: prisma(), params: (await second?.params) ?? {} });
      return out instanceof Response ? out : Response.json(out ?? { ok: true });
    } catch (e) {
      return errorResponse(e);
    }
  };
}

/** The JSON body, parsed by `schema`; bad JSON or a bad shape is a 400 naming the field. */
export async function parseBody<S extends z.ZodType>(req: Request, schema: S): Promise<z.infer<S>> {
  let raw: unknown;
  const text = await req.text();
  try {
    raw = text.length ? JSON.parse(text) : {};
  } catch (e) {
    throw new BadRequestError(`The request body is not valid JSON (${(e as Error).message}); send Content-Type: application/json with a JSON object.`);
  }
  return schema.parse(raw);
}

/** The query string, parsed by `schema` (values arrive as strings: use z.coerce). */
export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  return schema.parse(Object.fromEntries(new URL(req.url).searchParams));
}

export function jobServiceContext(ctx: ApiContext): JobServiceContext {
  const config = env();
  return {
    db: ctx.db,
    principal: ctx.principal,
    checkpointRoot: config.checkpointRoot,
    enqueue: (payload) => enqueueRun(queueConfigFrom(config), { ...payload, attempt: 0 }),
  };
}

/**
 * The control plane's domain errors: what a service, a presenter, the lifecycle table or the
 * worker throws when a request cannot be honoured (a state clash, a missing record, a refused
 * role, an invalid spec). Each is a WeirError with a stable `code`; they know nothing of HTTP.
 * The API turns them into responses in one place (http/http-errors.ts maps each code to a status),
 * and the worker, which shares the lifecycle rules, records them as they are.
 */
import { WeirError } from '@/lib/engine/errors';

export class BadRequestError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('BAD_REQUEST', message, details);
  }
}
export class UnauthenticatedError extends WeirError {
  constructor(message = 'Sign in first: send `Authorization: Bearer <api token>` or sign in at /signin.') {
    super('UNAUTHENTICATED', message);
  }
}
export class ForbiddenError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('FORBIDDEN', message, details);
  }
}
export class NotFoundError extends WeirError {
  /** `list`: the endpoint listing them, when it is not `/api/<what>s` (a job's batches, its savepoints). */
  constructor(what: string, id: string, list = `/api/${what}s`) {
    super('NOT_FOUND', `${what} ${id} does not exist. List them with GET ${list}.`, { what, id });
  }
}
export class ConflictError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('CONFLICT', message, details);
  }
}
/** The job spec failed the engine's validation; details.errors lists {path, message, line, column}. */
export class InvalidJobSpecError extends WeirError {
  constructor(errors: { path: string; message: string; line?: number; column?: number; errorClass?: string }[], warnings: unknown[] = []) {
    super(
      'INVALID_JOB_SPEC',
      `The job spec is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}. Fix these fields and send it again (POST /api/jobs/validate checks without saving).`,
      { errors, warnings },
    );
  }
}

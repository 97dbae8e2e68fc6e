/**
 * The one error mapper: every engine error code and every API error lands on its documented
 * status with the `{error: {code, message, details}}` body.
 */
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { z } from 'zod';
import { AnalysisException, BadRecordError, CheckpointWriteFailedError, ConcurrentStreamLogUpdateError, CorruptCheckpointError, IncompatibleQueryChangeError, ValidationError } from '@/lib/engine/errors';
import { errorBody, errorResponse } from './http-errors';
import { BadRequestError, ConflictError, ForbiddenError, InvalidJobSpecError, NotFoundError, UnauthenticatedError } from '../errors';

describe('errorResponse', () => {
  it.each([
    [new BadRequestError('b'), 400, 'BAD_REQUEST'],
    [new UnauthenticatedError(), 401, 'UNAUTHENTICATED'],
    [new ForbiddenError('f'), 403, 'FORBIDDEN'],
    [new NotFoundError('job', 'x'), 404, 'NOT_FOUND'],
    [new ConflictError('c'), 409, 'CONFLICT'],
    [new ConcurrentStreamLogUpdateError(3, 'offsets/3'), 409, 'CONCURRENT_STREAM_LOG_UPDATE'],
    [new IncompatibleQueryChangeError('i'), 409, 'INCOMPATIBLE_QUERY_CHANGE'],
    [new InvalidJobSpecError([{ path: 'sql', message: 'bad', line: 1, column: 2 }]), 422, 'INVALID_JOB_SPEC'],
    [new ValidationError('v'), 422, 'VALIDATION_ERROR'],
    [new AnalysisException('a'), 422, 'ANALYSIS_ERROR'],
    [new CorruptCheckpointError('commits/1', 'x'), 422, 'CORRUPT_CHECKPOINT'],
    [new CheckpointWriteFailedError('/cp/offsets/1', 'EROFS', 'read-only file system'), 503, 'CHECKPOINT_WRITE_FAILED'],
    [new BadRecordError('r'), 500, 'BAD_RECORD'],
    [Object.assign(new Error('unique'), { code: 'P2002', meta: { target: ['name'] } }), 409, 'CONFLICT'],
    [Object.assign(new Error('Transaction API error: A commit cannot be executed on an expired transaction.'), { code: 'P2028' }), 503, 'DATABASE_UNAVAILABLE'],
    [Object.assign(new Error("Can't reach database server"), { code: 'P1001' }), 503, 'DATABASE_UNAVAILABLE'],
    // From the pg pool the hot reads use without Prisma.
    [Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), 503, 'DATABASE_UNAVAILABLE'],
    [Object.assign(new Error('connection failure'), { code: '08006' }), 503, 'DATABASE_UNAVAILABLE'],
    [new Error('Connection terminated unexpectedly'), 503, 'DATABASE_UNAVAILABLE'],
    [Object.assign(new Error('syntax error'), { code: '42601' }), 500, 'INTERNAL'],
    [new Error('boom'), 500, 'INTERNAL'],
  ])('%s → %i %s', async (error, status, code) => {
    const res = errorResponse(error);
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body.error.code).toBe(code);
    expect(body.error.message).toEqual(expect.any(String));
  });

  it('a pg pool that cannot reach the server is a 503, not a 500', async () => {
    // A port nothing listens on: what the pool meets while PostgreSQL restarts.
    const pool = new pg.Pool({ connectionString: 'postgres://weir:weir@127.0.0.1:1/weir', connectionTimeoutMillis: 5000 });
    const error = await pool.query('SELECT 1').then(() => undefined, (e: unknown) => e);
    await pool.end();
    expect(error).toBeInstanceOf(Error);
    const res = errorResponse(error);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect((await res.json()).error.code).toBe('DATABASE_UNAVAILABLE');
  });

  it('a zod error is a 400 naming each field path', async () => {
    const r = z.object({ a: z.object({ b: z.number() }) }).safeParse({ a: { b: 'x' } });
    const res = errorResponse(r.error);
    expect(res.status).toBe(400);
    expect((await res.json()).error.details.issues).toEqual([{ path: 'a.b', message: expect.any(String) }]);
  });
});

describe("Spark's error class in the error object", () => {
  it('is errorClass on the error, from the exception or from the first listed error that has one', () => {
    expect(errorBody(new AnalysisException('Sorting is not supported…', undefined, '_LEGACY_ERROR_TEMP_3102')).error.errorClass).toBe('_LEGACY_ERROR_TEMP_3102');
    const spec = new InvalidJobSpecError([
      { path: 'name', message: 'required' },
      { path: 'outputMode', message: 'Invalid streaming output mode: update.', errorClass: 'STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE' },
    ]);
    expect(errorBody(spec).error.errorClass).toBe('STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE');
    expect(errorBody(new ValidationError('v')).error).not.toHaveProperty('errorClass');
  });
});

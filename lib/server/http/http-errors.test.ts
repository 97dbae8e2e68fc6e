/**
 * The one error mapper: every engine error code and every API error lands on its documented
 * status with the `{error: {code, message, details}}` body.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AnalysisException, BadRecordError, CheckpointWriteFailedError, ConcurrentStreamLogUpdateError, CorruptCheckpointError, IncompatibleQueryChangeError, ValidationError } from '@/lib/engine/errors';
import { BadRequestError, ConflictError, errorBody, errorResponse, ForbiddenError, InvalidJobSpecError, NotFoundError, UnauthenticatedError } from './http-errors';

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
    [new Error('boom'), 500, 'INTERNAL'],
  ])('%s → %i %s', async (error, status, code) => {
    const res = errorResponse(error);
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body.error.code).toBe(code);
    expect(body.error.message).toEqual(expect.any(String));
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

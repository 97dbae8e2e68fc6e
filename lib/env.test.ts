import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from './env';

describe('parseEnv', () => {
  it('defaults to the embedded database and the postgres queue backend', () => {
    const e = parseEnv({});
    expect(e.DATABASE_URL).toBeUndefined();
    expect(e.queueBackend).toBe('postgres');
    expect(e.PORT).toBe(3000);
    expect(e.checkpointRoot).toMatch(/\.data\/checkpoints$/);
  });

  it('WEIR_FILES_ROOTS: <data dir>/files by default, else its comma-separated directories made absolute', () => {
    expect(parseEnv({ WEIR_DATA_DIR: '/srv/weir' }).filesRoots).toEqual(['/srv/weir/files']);
    expect(parseEnv({ WEIR_FILES_ROOTS: '/data/in, /data/out ,,rel' }).filesRoots).toEqual(['/data/in', '/data/out', path.resolve('rel')]);
  });

  it('uses Redis for BullMQ when REDIS_URL is set', () => {
    expect(parseEnv({ REDIS_URL: 'redis://127.0.0.1:6379' }).queueBackend).toBe('redis');
  });

  it("accepts the test suite's seams under NODE_ENV=test", () => {
    expect(parseEnv({ NODE_ENV: 'test', WEIR_TEST_TASK_DELAY_MS: '300', WEIR_TEST_TASK_HOLD_SIGNAL: '1' })).toMatchObject({ WEIR_TEST_TASK_DELAY_MS: 300, WEIR_TEST_TASK_HOLD_SIGNAL: true });
  });

  it('treats empty strings as unset', () => {
    expect(parseEnv({ DATABASE_URL: '', REDIS_URL: '' }).queueBackend).toBe('postgres');
  });

  it.each([
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL: .*postgres:\/\//],
    ['REDIS_URL', 'http://x', /REDIS_URL: .*redis:\/\//],
    ['PORT', 'eighty', /PORT: /],
    ['PORT', '70000', /PORT: a TCP port/],
    ['WEIR_ADMIN_TOKEN', 'short', /WEIR_ADMIN_TOKEN: at least 16 characters/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL: /],
    ['WEIR_OUTBOUND_ALLOW', '10.0.0.0/8,http://hooks', /WEIR_OUTBOUND_ALLOW: comma-separated CIDRs and host names: "http:\/\/hooks" is neither/],
    ['WEIR_FILES_ROOTS', 's3://bucket/in', /WEIR_FILES_ROOTS: local directories/],
    ['WEIR_FILES_ROOTS', ' , ', /WEIR_FILES_ROOTS: at least one directory/],
    // The test suite's seams, refused outside it (NODE_ENV=test).
    ['WEIR_TEST_SHARED_SERVERS', '1', /WEIR_TEST_SHARED_SERVERS: is for Weir's own test suite only/],
    ['WEIR_TEST_TASK_DELAY_MS', '300', /WEIR_TEST_TASK_DELAY_MS: is for Weir's own test suite only/],
    ['WEIR_TEST_TASK_HOLD_SIGNAL', '1', /WEIR_TEST_TASK_HOLD_SIGNAL: is for Weir's own test suite only/],
  ])('names %s when it is %s', (name, value, message) => {
    let err: unknown;
    try {
      parseEnv({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EnvError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toMatch(/README/);
  });
});

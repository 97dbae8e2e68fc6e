/**
 * The hash functions (hash-functions.ts), bit_count, bit_get and the URL functions (url-functions.ts) at
 * their edges: NULLs, a BINARY beside a STRING, several columns of mixed types hashed as Spark
 * hashes them, and the values Spark documents.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { ExpressionBuilder } from './expression-builder';
import { compileExpression } from './expression-compiler';
import { parseExpression } from './parser/ast-builder';
import { SqlValidationError } from './sql-error';

const SCHEMA: Schema = [
  { name: 's', type: 'string' },
  { name: 'bin', type: 'binary' },
  { name: 'a', type: 'array', elementType: { name: 'element', type: 'long', integral: 32 } },
  { name: 'i', type: 'long', integral: 32 },
  { name: 'n', type: 'long' },
  { name: 'missing', type: 'string' },
];
const ROW: Row = { s: 'Spark', bin: new Uint8Array(Buffer.from('Spark')), a: [123], i: 2, n: 2, missing: null };

function compiled(text: string) {
  const expr = new ExpressionBuilder({ qualifiers: new Set(), columns: new Set(SCHEMA.map((f) => f.name)) }, text).build(parseExpression(text));
  return compileExpression(expr, SCHEMA);
}
const run = (text: string, row: Row = ROW) => compiled(text).eval(row, { batchTimestampMs: 0 });

describe('hash and xxhash64', () => {
  it("give Spark's values: of INTs, of NULL (the seed 42), of a BIGINT", () => {
    expect(run('hash(0)')).toBe(933211791);
    expect(run('hash(4)')).toBe(-397064898);
    expect(run('hash(1)')).toBe(-559580957);
    expect(run('hash(1L)')).toBe(-1712319331);
    expect(run('hash(NULL)')).toBe(42);
    expect(run('xxhash64(NULL, NULL)')).toBe(42);
  });

  it("hash several columns of mixed types as Spark's example does its literals, skipping NULLs", () => {
    // Spark: hash('Spark', array(123), 2) is -1321691492, xxhash64 of it 5602566077635097486.
    expect(run('hash(s, a, i)')).toBe(-1321691492);
    expect(run('hash(s, missing, a, NULL, i)')).toBe(-1321691492);
    expect(run('xxhash64(s, a, i)')).toBe(5602566077635097486n);
    // The same number as a BIGINT is another value to Spark: hashed as 8 bytes, not 4.
    expect(run('hash(s, a, n)')).not.toBe(-1321691492);
    expect(run('hash(s, a, n)')).toBe(run("hash('Spark', array(123), 2L)"));
  });

  it('hash a BINARY as the STRING of the same bytes, and -0.0 as 0.0', () => {
    expect(run('hash(bin)')).toBe(run('hash(s)'));
    expect(run('xxhash64(bin)')).toBe(run('xxhash64(s)'));
    expect(run('hash(-0.0D)')).toBe(run('hash(0.0D)'));
    // A FLOAT is hashed as its 4 bytes, a DOUBLE as its 8.
    expect(run('hash(CAST(1.5 AS FLOAT))')).not.toBe(run('hash(1.5D)'));
  });

  it('are typed INT and BIGINT, and refuse a MAP as Spark does', () => {
    expect(run('typeof(hash(s))')).toBe('int');
    expect(run('typeof(xxhash64(s))')).toBe('bigint');
    expect(() => compiled('hash(s, map(1, 2))')).toThrow(expect.objectContaining({ errorClass: 'DATATYPE_MISMATCH.HASH_MAP_TYPE' }));
    expect(() => compiled('hash(array(map(1, 2)))')).toThrow(SqlValidationError);
  });
});

describe('md5, sha1, sha2 and crc32', () => {
  it('read a STRING as its UTF-8 bytes: a BINARY of those bytes gives the same', () => {
    expect(run('md5(bin)')).toBe('8cde774d6f7333752ed72cacddb05126');
    expect(run('sha(bin)')).toBe(run('sha1(s)'));
    expect(run('crc32(bin)')).toBe(1557323817);
    expect(run('sha2(bin, 0)')).toBe(run("sha2('Spark', 256)"));
  });

  it('give NULL for NULL and for a SHA-2 length Spark does not know', () => {
    expect(run('md5(missing)')).toBeNull();
    expect(run('crc32(missing)')).toBeNull();
    expect(run('sha2(s, NULL)')).toBeNull();
    expect(run('sha2(s, 100)')).toBeNull();
    expect(run('sha2(s, 224)')).toHaveLength(56);
    // A bit length written as text or a fraction is cast to an INT (stringCastAndExpressions.sql: sha2(a, a) of 'aa' is NULL).
    expect(run("sha2(s, '256')")).toBe(run("sha2('Spark', 256)"));
    expect(run('sha2(s, 256.0)')).toBe(run("sha2('Spark', 256)"));
    expect(run('sha2(s, s)')).toBeNull();
    expect(run('sha2(s, 512)')).toHaveLength(128);
  });
});

describe('bit_count', () => {
  it('counts the bits of the value sign-extended to 64, as an INT', () => {
    expect(run('bit_count(-1)')).toBe(64);
    expect(run('bit_count(CAST(-1 AS TINYINT))')).toBe(64);
    expect(run('bit_count(7L)')).toBe(3);
    expect(run('bit_count(-9223372036854775808L)')).toBe(1);
    expect(run('bit_count(true)')).toBe(1);
    expect(run('bit_count(NULL)')).toBeNull();
    expect(run('typeof(bit_count(n))')).toBe('int');
  });
});

describe('bit_get', () => {
  it("takes a bit of the type's own width as a TINYINT, and fails for a position outside it", () => {
    expect([run('bit_get(11, 0)'), run('bit_get(11, 2)'), run('getbit(-1L, 63)')]).toEqual([1, 0, 1]);
    expect(run('typeof(bit_get(n, 1))')).toBe('tinyint');
    expect(run('bit_get(n, NULL)')).toBeNull();
    expect(() => run('bit_get(11, 32)')).toThrow('expects an integer value in [0, 32), but got 32');
    expect(() => run('bit_get(CAST(1 AS TINYINT), 8)')).toThrow('[0, 8)');
    expect(() => run('getbit(n, -1)')).toThrow('`getbit` is invalid: expects an integer value in [0, 64), but got -1');
  });
});

describe('the URL functions', () => {
  const url = "'http://user:pw@spark.apache.org:8080/a/b?query=1&k=v%20w#frag'";

  it('parse_url takes each part as java.net.URI gives it, raw', () => {
    const parts = ['HOST', 'PATH', 'QUERY', 'REF', 'PROTOCOL', 'FILE', 'AUTHORITY', 'USERINFO'].map((p) => run(`parse_url(${url}, '${p}')`));
    expect(parts).toEqual(['spark.apache.org', '/a/b', 'query=1&k=v%20w', 'frag', 'http', '/a/b?query=1&k=v%20w', 'user:pw@spark.apache.org:8080', 'user:pw']);
    expect(run(`parse_url(${url}, 'QUERY', 'k')`)).toBe('v%20w');
  });

  it('parse_url gives NULL for text that is not a URI, an unknown part, a key of another part, or NULL', () => {
    expect(run("parse_url('http://spark apache.org/', 'HOST')")).toBeNull();
    expect(run("parse_url('http://x.org/%zz', 'PATH')")).toBeNull();
    expect(run(`parse_url(${url}, 'host')`)).toBeNull();
    expect(run(`parse_url(${url}, 'PATH', 'k')`)).toBeNull();
    expect(run(`parse_url(${url}, 'QUERY', 'absent')`)).toBeNull();
    expect(run("parse_url('mailto:a@b.org', 'PATH')")).toBeNull();
    expect(run('parse_url(missing, s)')).toBeNull();
  });

  it('try_parse_url answers as parse_url, NULL for text that is not a URI (Spark 4.0)', () => {
    expect(run(`try_parse_url(${url}, 'HOST')`)).toBe('spark.apache.org');
    expect(run(`try_parse_url(${url}, 'QUERY', 'k')`)).toBe('v%20w');
    // Spark's own example of a URI java.net.URI refuses.
    expect(run("try_parse_url('inva lid://spark.apache.org/path?query=1', 'QUERY')")).toBeNull();
    expect(run("try_parse_url('http://x.org/%zz', 'PATH')")).toBeNull();
    expect(run(`try_parse_url(${url}, 'PATH', 'k')`)).toBeNull();
    expect(run('try_parse_url(missing, s)')).toBeNull();
    expect(run(`typeof(try_parse_url(${url}, 'HOST'))`)).toBe('string');
    // Like parse_url it casts no number to a STRING (ExpectsInputTypes).
    expect(() => compiled("try_parse_url(123, 'HOST')")).toThrow(/try_parse_url\(\) expects string arguments/);
  });

  it('url_encode and url_decode are form encoding in UTF-8; a bad escape fails url_decode, NULL for try_url_decode', () => {
    expect(run("url_encode('a b~é*')")).toBe('a+b%7E%C3%A9*');
    expect(run("url_decode('a+b%7E%C3%A9*')")).toBe('a b~é*');
    expect(run("url_decode(url_encode('x/y?z=1&w=😀'))")).toBe('x/y?z=1&w=😀');
    expect(() => run("url_decode('100%')")).toThrow('[CANNOT_DECODE_URL]');
    expect(() => run("url_decode('%zz')")).toThrow('[CANNOT_DECODE_URL]');
    expect(run("try_url_decode('100%')")).toBeNull();
    expect(run("try_url_decode('%41')")).toBe('A');
    expect(run('url_encode(missing)')).toBeNull();
  });
});

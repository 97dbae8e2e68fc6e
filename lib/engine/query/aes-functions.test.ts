/**
 * aes_encrypt, aes_decrypt and try_aes_decrypt as Spark's (Spark's documented bytes are in the
 * example corpus): round trips in each mode, Spark's errors and their classes, try_ giving NULL
 * for them, NULL in NULL out, and the random-IV form refused at analysis.
 */
import { describe, expect, it } from 'vitest';
import { select } from './testing/spark-printed';

const value = async (expr: string) => (await select(`${expr} AS v`)).row.v;
const text = (v: unknown) => (v === null ? null : Buffer.from(v as Uint8Array).toString('utf8'));

describe('aes_encrypt and aes_decrypt', () => {
  it.each([
    ["'ECB'", "'PKCS'", ''],
    ["'ecb'", "'DEFAULT'", ''],
    ["'GCM'", "'NONE'", ", unhex('0102030405060708090A0B0C')"],
    ["'GCM'", "'DEFAULT'", ", unhex('0102030405060708090A0B0C'), 'aad'"],
    ["'CBC'", "'PKCS'", ", unhex('000102030405060708090A0B0C0D0E0F')"],
  ])('round-trip in mode %s, padding %s%s, with keys of 16, 24 and 32 bytes', async (mode, padding, rest) => {
    for (const key of ['0123456789abcdef', '0123456789abcdef01234567', '0123456789abcdef0123456789abcdef']) {
      const aad = rest.includes("'aad'") ? ", 'aad'" : '';
      const enc = `aes_encrypt('Weir streams ünïcode', '${key}', ${mode}, ${padding}${rest})`;
      expect(text(await value(`aes_decrypt(${enc}, '${key}', ${mode}, ${padding}${aad})`)), key).toBe('Weir streams ünïcode');
    }
  });

  it('are BINARY, NULL for any NULL argument', async () => {
    const { schema } = await select("aes_decrypt(unbase64('3lmwu+Mw0H3fi5NDvcu9lg=='), '1234567890abcdef', 'ECB') AS v");
    expect(schema[0].type).toBe('binary');
    expect(await value("aes_encrypt(NULL, '1234567890abcdef', 'ECB')")).toBeNull();
    expect(await value("aes_decrypt(unbase64('3lmwu+Mw0H3fi5NDvcu9lg=='), NULL, 'ECB')")).toBeNull();
    expect(await value("try_aes_decrypt(NULL, '1234567890abcdef')")).toBeNull();
  });

  it("fail the row with Spark's errors, which try_aes_decrypt makes NULL", async () => {
    const ecb = "unbase64('3lmwu+Mw0H3fi5NDvcu9lg==')";
    await expect(value(`aes_decrypt(${ecb}, 'short', 'ECB')`)).rejects.toThrow(
      '[INVALID_PARAMETER_VALUE.AES_KEY_LENGTH] The value of parameter(s) `key` in `aes_decrypt` is invalid: expects a binary value with 16, 24 or 32 bytes, but got 5 bytes.',
    );
    await expect(value(`aes_decrypt(${ecb}, '1234567890abcdef', 'GCM', 'PKCS')`)).rejects.toThrow('[UNSUPPORTED_FEATURE.AES_MODE] The feature is not supported: AES-GCM with the padding PKCS by the `aes_decrypt` function.');
    await expect(value(`aes_decrypt(${ecb}, '1234567890abcdef', 'CTR')`)).rejects.toThrow('[UNSUPPORTED_FEATURE.AES_MODE]');
    await expect(value(`aes_decrypt(${ecb}, 'fedcba0987654321', 'ECB')`)).rejects.toThrow('[INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR] The value of parameter(s) `expr`, `key` in `aes_decrypt` is invalid: detail message: ');
    const gcm = "unhex('6E7CA17BBB468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210')";
    await expect(value(`aes_decrypt(${gcm}, '0000111122223334')`)).rejects.toThrow('detail message: Tag mismatch');
    await expect(value(`aes_encrypt('x', '1234567890abcdef', 'CBC', 'PKCS', unhex('00'))`)).rejects.toThrow(
      '[INVALID_PARAMETER_VALUE.AES_IV_LENGTH] The value of parameter(s) `iv` in `aes_encrypt` is invalid: supports 16-byte CBC IVs and 12-byte GCM IVs, but got 1 bytes for CBC.',
    );
    await expect(value(`aes_encrypt('x', '1234567890abcdef', 'CBC', 'PKCS', unhex('000102030405060708090A0B0C0D0E0F'), 'aad')`)).rejects.toThrow('[UNSUPPORTED_FEATURE.AES_MODE_AAD]');
    for (const bad of [`${ecb}, 'short', 'ECB'`, `${ecb}, 'fedcba0987654321', 'ECB'`, `${gcm}, '0000111122223334'`, `${ecb}, '1234567890abcdef', 'CTR'`]) {
      expect(await value(`try_aes_decrypt(${bad})`), bad).toBeNull();
    }
    expect(text(await value(`try_aes_decrypt(${gcm}, '0000111122223333', 'GCM')`))).toBe('Spark SQL');
  });

  it('without an iv, GCM and CBC draw a random one per value, as Spark does, and decrypt back', async () => {
    for (const [mode, ivBytes] of [['GCM', 12], ['CBC', 16]] as const) {
      const call = `aes_encrypt('Spark SQL', '1234567890abcdef', '${mode}')`;
      const [a, b] = [await value(call), await value(call)] as Uint8Array[];
      expect(Buffer.from(a.subarray(0, ivBytes)).equals(Buffer.from(b.subarray(0, ivBytes))), mode).toBe(false);
      expect(text(await value(`aes_decrypt(${call}, '1234567890abcdef', '${mode}')`))).toBe('Spark SQL');
    }
  });
});

/**
 * Spark's AES functions (group misc_funcs): aes_encrypt (3.3; iv and aad 3.5), aes_decrypt (3.3)
 * and try_aes_decrypt (3.5), as Spark's ExpressionImplUtils.aesInternal, so that bytes one
 * encrypts the other decrypts: a 16, 24 or 32-byte key; ECB with PKCS padding (the ciphertext
 * alone), GCM without padding (a 12-byte IV, the ciphertext, a 16-byte tag, AAD optional) and
 * CBC with PKCS padding (a 16-byte IV, then the ciphertext). A STRING argument is its UTF-8
 * bytes, as Spark casts it; any NULL argument gives NULL.
 *
 * Without an IV, GCM and CBC draw a random one per value, as Spark's SecureRandom does: its bytes
 * differ from run to run (a batch re-run after a crash writes others, as with rand() and uuid()),
 * and each decrypts to the same value.
 */
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCM } from 'node:crypto';
import { RecordExpressionError } from '../errors';
import type { TypeInfo } from './data-types';
import type { FunctionDef } from './function-types';

const GCM_IV = 12, GCM_TAG = 16, CBC_IV = 16;

type Mode = 'ECB' | 'GCM' | 'CBC';

/** Spark's CipherMode.fromString: the mode and padding it supports together, or undefined. */
function cipherMode(mode: string, padding: string): Mode | undefined {
  const m = mode.toUpperCase(), p = padding.toUpperCase();
  if (m === 'ECB' || m === 'CBC') return p === 'PKCS' || p === 'DEFAULT' ? m : undefined;
  if (m === 'GCM') return p === 'NONE' || p === 'DEFAULT' ? m : undefined;
  return undefined;
}

const fail = (fn: string, errorClass: string, message: string): never => {
  throw new RecordExpressionError(`[${errorClass}] ${message}`, { function: `${fn}()`, errorClass });
};

/** The cipher's parts, checked as Spark checks them, or the error Spark raises. */
function setUp(fn: string, key: Uint8Array, mode: string, padding: string, iv: Uint8Array, aad: Uint8Array): { m: Mode; algorithm: string } {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) {
    fail(fn, 'INVALID_PARAMETER_VALUE.AES_KEY_LENGTH', `The value of parameter(s) \`key\` in \`${fn}\` is invalid: expects a binary value with 16, 24 or 32 bytes, but got ${key.length} bytes.`);
  }
  const m = cipherMode(mode, padding) ?? fail(fn, 'UNSUPPORTED_FEATURE.AES_MODE', `The feature is not supported: AES-${mode} with the padding ${padding} by the \`${fn}\` function.`);
  if (m === 'ECB' && iv.length > 0) fail(fn, 'UNSUPPORTED_FEATURE.AES_MODE_IV', `The feature is not supported: AES-${mode} does not support initialization vectors (IVs).`);
  if (m !== 'GCM' && aad.length > 0) fail(fn, 'UNSUPPORTED_FEATURE.AES_MODE_AAD', `The feature is not supported: ${fn} with AES-${mode} does not support additional authenticate data (AAD).`);
  if (iv.length > 0 && iv.length !== (m === 'GCM' ? GCM_IV : CBC_IV)) {
    fail(fn, 'INVALID_PARAMETER_VALUE.AES_IV_LENGTH', `The value of parameter(s) \`iv\` in \`${fn}\` is invalid: supports 16-byte CBC IVs and 12-byte GCM IVs, but got ${iv.length} bytes for ${mode}.`);
  }
  return { m, algorithm: `aes-${8 * key.length}-${m.toLowerCase()}` };
}

const cryptoError = (fn: string, detail: string): never =>
  fail(fn, 'INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR', `The value of parameter(s) \`expr\`, \`key\` in \`${fn}\` is invalid: detail message: ${detail}`);

function encrypt(input: Uint8Array, key: Uint8Array, mode: string, padding: string, iv: Uint8Array, aad: Uint8Array): Uint8Array {
  const fn = 'aes_encrypt';
  const { m, algorithm } = setUp(fn, key, mode, padding, iv, aad);
  if (m !== 'ECB' && iv.length === 0) iv = randomBytes(m === 'GCM' ? GCM_IV : CBC_IV);
  const cipher = createCipheriv(algorithm, key, m === 'ECB' ? null : iv);
  if (m === 'GCM') {
    if (aad.length > 0) (cipher as CipherGCM).setAAD(aad);
    const body = Buffer.concat([cipher.update(input), cipher.final()]);
    return new Uint8Array(Buffer.concat([iv, body, (cipher as CipherGCM).getAuthTag()]));
  }
  const body = Buffer.concat([cipher.update(input), cipher.final()]);
  return new Uint8Array(m === 'CBC' ? Buffer.concat([iv, body]) : body);
}

function decrypt(fn: string, input: Uint8Array, key: Uint8Array, mode: string, padding: string, aad: Uint8Array): Uint8Array {
  const { m, algorithm } = setUp(fn, key, mode, padding, new Uint8Array(0), aad);
  try {
    if (m === 'GCM') {
      if (input.length < GCM_IV + GCM_TAG) return cryptoError(fn, 'Input too short');
      const d = createDecipheriv(algorithm as 'aes-128-gcm', key, input.subarray(0, GCM_IV));
      d.setAuthTag(input.subarray(input.length - GCM_TAG));
      if (aad.length > 0) d.setAAD(aad);
      return new Uint8Array(Buffer.concat([d.update(input.subarray(GCM_IV, input.length - GCM_TAG)), d.final()]));
    }
    const iv = m === 'CBC' ? input.subarray(0, CBC_IV) : null;
    if (iv && iv.length < CBC_IV) return cryptoError(fn, 'Input too short');
    const d = createDecipheriv(algorithm, key, iv);
    return new Uint8Array(Buffer.concat([d.update(m === 'CBC' ? input.subarray(CBC_IV) : input), d.final()]));
  } catch (e) {
    if (e instanceof RecordExpressionError) throw e;
    // The JDK's texts for the two failures a wrong key or altered bytes cause.
    const text = (e as Error).message;
    return cryptoError(fn, /authenticate/.test(text) ? 'Tag mismatch' : /bad decrypt|wrong final block length/.test(text) ? 'Given final block not properly padded. Such issues can arise if a bad key is used during decryption.' : text);
  }
}

/** Spark's inputTypes: BINARY, BINARY, STRING, STRING, then BINARYs (a STRING cast to its UTF-8 bytes). */
const BINARY: TypeInfo = { type: 'binary' }, STRING: TypeInfo = { type: 'string' };
const aesInputTypes: FunctionDef['inputTypes'] = (args) =>
  args.map((a, i) => {
    const to = i === 2 || i === 3 ? STRING : BINARY;
    return a.type === to.type || a.type === 'null' ? undefined : to;
  });
const aesType: FunctionDef['type'] = (a) => (a.every((t, i) => t === 'null' || t === (i === 2 || i === 3 ? 'string' : 'binary')) ? 'binary' : 'takes (BINARY expr, BINARY key[, STRING mode[, STRING padding[, BINARY iv / aad …]]])');
const NONE = new Uint8Array(0);

function decryptDef(fn: 'aes_decrypt' | 'try_aes_decrypt'): FunctionDef {
  return {
    min: 2, max: 5, inputTypes: aesInputTypes, type: aesType,
    impl: ([input, key, mode = 'GCM', padding = 'DEFAULT', aad = NONE]) => {
      try {
        return decrypt('aes_decrypt', input as Uint8Array, key as Uint8Array, mode as string, padding as string, aad as Uint8Array);
      } catch (e) {
        // Spark's TryAesDecrypt is TryEval(AesDecrypt): any error is NULL.
        if (fn === 'try_aes_decrypt' && e instanceof RecordExpressionError) return null;
        throw e;
      }
    },
  };
}

export const AES_FUNCTIONS: Record<string, FunctionDef> = {
  aes_encrypt: {
    min: 2, max: 6, inputTypes: aesInputTypes, type: aesType,
    impl: ([input, key, mode = 'GCM', padding = 'DEFAULT', iv = NONE, aad = NONE]) =>
      encrypt(input as Uint8Array, key as Uint8Array, mode as string, padding as string, iv as Uint8Array, aad as Uint8Array),
  },
  aes_decrypt: decryptDef('aes_decrypt'),
  try_aes_decrypt: decryptDef('try_aes_decrypt'),
};

/**
 * Secrets in a job spec (a sink's connection string, a source's token) are stored as given, so the
 * worker can use them, and masked on every read. Which options are secret is declared by each
 * source/sink type (`secretOptions` in the engine's registries); a postgres static table's
 * `connectionString` is always secret.
 *
 * Masking is two-fold, because a secret can leak through text as well as through its field:
 * - `maskSpec` replaces each secret option's value with MASKED;
 * - `redactSecrets` replaces every occurrence of a secret's text (and of a URL's password) inside
 *   any JSON value, for error messages and progress records that may quote a connection string.
 *
 * `unmaskSpec` is the inverse for edits: a field sent back as MASKED keeps the stored secret, so a
 * client can round-trip what it read without knowing (or wiping) the secret.
 */
import { getSinkDefinition, getSourceDefinition } from '@/lib/engine';

export const MASKED = '********';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface SecretSlot {
  /** The object holding the secret option. */
  holder: (spec: Obj) => Obj | undefined;
  key: string;
}

function secretSlots(spec: Obj): SecretSlot[] {
  const slots: SecretSlot[] = [];
  const source = isObj(spec.source) ? spec.source : undefined;
  const sink = isObj(spec.sink) ? spec.sink : undefined;
  const srcDef = typeof source?.type === 'string' ? getSourceDefinition(source.type) : undefined;
  const sinkDef = typeof sink?.type === 'string' ? getSinkDefinition(sink.type) : undefined;
  for (const key of srcDef?.secretOptions ?? []) {
    slots.push({ holder: (s) => (isObj(s.source) && isObj(s.source.options) ? s.source.options : undefined), key });
  }
  for (const key of sinkDef?.secretOptions ?? []) {
    slots.push({ holder: (s) => (isObj(s.sink) && isObj(s.sink.options) ? s.sink.options : undefined), key });
  }
  if (Array.isArray(spec.staticTables)) {
    spec.staticTables.forEach((_, i) => {
      slots.push({ holder: (s) => (Array.isArray(s.staticTables) && isObj(s.staticTables[i]) ? (s.staticTables[i] as Obj) : undefined), key: 'connectionString' });
    });
  }
  return slots;
}

/** A copy of the spec with every secret option replaced by MASKED. */
export function maskSpec<T>(spec: T): T {
  if (!isObj(spec)) return spec;
  const copy = structuredClone(spec) as Obj;
  for (const slot of secretSlots(copy)) {
    const h = slot.holder(copy);
    if (h && h[slot.key] !== undefined && h[slot.key] !== null) h[slot.key] = MASKED;
  }
  return copy as T;
}

/** The secret strings of a spec (whole values and URL passwords), longest first. */
export function secretValues(spec: unknown): string[] {
  if (!isObj(spec)) return [];
  const out = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.length >= 4 && v !== MASKED) out.add(v);
      try {
        const u = new URL(v);
        if (u.password) {
          out.add(u.password);
          out.add(decodeURIComponent(u.password));
        }
      } catch {
        // not a URL: the whole value is the secret
      }
    } else if (Array.isArray(v)) v.forEach(add);
    else if (isObj(v)) Object.values(v).forEach(add);
  };
  for (const slot of secretSlots(spec)) add(slot.holder(spec)?.[slot.key]);
  return [...out].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
}

/** Deep copy of `value` with every occurrence of each secret replaced by MASKED. */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let s = v;
      for (const secret of secrets) if (s.includes(secret)) s = s.split(secret).join(MASKED);
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Restores secrets the client sent back as MASKED from the stored spec (same slot, same type). */
export function unmaskSpec<T>(incoming: T, stored: unknown): T {
  if (!isObj(incoming) || !isObj(stored)) return incoming;
  const copy = structuredClone(incoming) as Obj;
  for (const slot of secretSlots(copy)) {
    const h = slot.holder(copy);
    if (!h || h[slot.key] !== MASKED) continue;
    const sameType = (part: 'source' | 'sink') =>
      !isObj(copy[part]) || !isObj(stored[part]) || (copy[part] as Obj).type === (stored[part] as Obj).type;
    const old = sameType('source') && sameType('sink') ? slot.holder(stored)?.[slot.key] : undefined;
    if (old === undefined) delete h[slot.key];
    else h[slot.key] = old;
  }
  return copy as T;
}

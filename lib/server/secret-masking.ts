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
 * client can round-trip what it read without knowing (or wiping) the secret. Only while its
 * destination is unchanged, though: a secret sent back masked next to a changed URL or
 * connection string (scheme, host, port, database) would be sent to the new host, so that edit
 * is refused (422) and the client must send the secret again.
 */
import '@/lib/connectors'; // registers the connectors' source, sink and checkpoint types
import { describeDestination, getSinkDefinition, getSourceDefinition, parseDestinations, sameDestination, specDestinations, type Destination, type SpecDestination } from '@/lib/engine';
import { rawSourcesOf } from '@/lib/engine/spec/spec-sources';
import { InvalidJobSpecError } from './errors';

export const MASKED = '********';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface SecretSlot {
  /** The object holding the secret option, in the spec part at `part` (this slot's by default). */
  holder: (spec: Obj, part?: string) => Obj | undefined;
  key: string;
  /** Its field path and spec part (as specDestinations names them). */
  path: string;
  part: string;
  /**
   * The same part in the stored spec, when it is not at the same path: a source or a static table
   * is the stored one of its name and type (the editor removes and reorders them; by position,
   * one would get the secret of the one that was there before).
   */
  storedPart?: (stored: Obj) => string | undefined;
}

function secretSlots(spec: Obj): SecretSlot[] {
  const slots: SecretSlot[] = [];
  const sink = isObj(spec.sink) ? spec.sink : undefined;
  const sinkDef = typeof sink?.type === 'string' ? getSinkDefinition(sink.type) : undefined;
  for (const { path: part, source } of rawSourcesOf(spec)) {
    const srcDef = isObj(source) && typeof source.type === 'string' ? getSourceDefinition(source.type) : undefined;
    const storedPart = (s: Obj) => rawSourcesOf(s).find((x) => isObj(x.source) && isObj(source) && x.source.name === source.name && x.source.type === source.type)?.path;
    for (const key of srcDef?.secretOptions ?? []) {
      slots.push({ holder: (s, at = part) => { const p = partOf(s, at); return p && isObj(p.options) ? p.options : undefined; }, key, path: `${part}.options.${key}`, part, storedPart });
    }
  }
  for (const key of sinkDef?.secretOptions ?? []) {
    slots.push({ holder: (s) => (isObj(s.sink) && isObj(s.sink.options) ? s.sink.options : undefined), key, path: `sink.options.${key}`, part: 'sink' });
  }
  if (Array.isArray(spec.staticTables)) {
    spec.staticTables.forEach((t, i) => {
      const name = isObj(t) ? t.name : undefined;
      const storedPart = (s: Obj) => {
        const j = Array.isArray(s.staticTables) ? s.staticTables.findIndex((x) => isObj(x) && x.name === name && (x.type ?? 'file') === ((t as Obj).type ?? 'file')) : -1;
        return j < 0 ? undefined : `staticTables.${j}`;
      };
      slots.push({ holder: (s, at = `staticTables.${i}`) => partOf(s, at), key: 'connectionString', path: `staticTables.${i}.connectionString`, part: `staticTables.${i}`, storedPart });
    });
  }
  return slots;
}

/** The spec part at `source`, `sources.<i>` or `sink`, when it is an object. */
function partOf(spec: Obj, part: string): Obj | undefined {
  const [head, index] = part.split('.');
  const v = index === undefined ? spec[head] : Array.isArray(spec[head]) ? (spec[head] as unknown[])[Number(index)] : undefined;
  return isObj(v) ? v : undefined;
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

function destinationsOf(d: SpecDestination): Destination[] | undefined {
  try {
    return parseDestinations(d.kind, d.value);
  } catch {
    return undefined;
  }
}

/** Why a part's destinations differ between two specs (a field and the new and old targets), if they do; `beforePart`: the part in `before`. */
function changedDestination(part: string, now: unknown, before: unknown, beforePart = part): { path: string; now: string; before: string } | undefined {
  const a = specDestinations(now).filter((d) => d.part === part);
  const b = specDestinations(before).filter((d) => d.part === beforePart);
  const shown = (d: SpecDestination | undefined) => {
    const parsed = d && destinationsOf(d);
    return parsed?.length ? parsed.map(describeDestination).join(', ') : d ? 'an unreadable destination' : 'nothing';
  };
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] && destinationsOf(a[i]);
    const y = b[i] && destinationsOf(b[i]);
    const same = a[i]?.value === b[i]?.value || (!!x && !!y && x.length === y.length && x.every((d, j) => sameDestination(d, y[j])));
    if (!same) return { path: (a[i] ?? b[i]).path, now: shown(a[i]), before: shown(b[i]) };
  }
  return undefined;
}

/**
 * Restores secrets the client sent back as MASKED from the stored spec (same slot, same type; a
 * static table's from the stored table of its name and kind),
 * and refuses (InvalidJobSpecError, 422) a restored secret whose destination changed.
 */
export function unmaskSpec<T>(incoming: T, stored: unknown): T {
  if (!isObj(incoming) || !isObj(stored)) return incoming;
  const copy = structuredClone(incoming) as Obj;
  const restored: { slot: SecretSlot; storedPart: string }[] = [];
  for (const slot of secretSlots(copy)) {
    const h = slot.holder(copy);
    if (!h || h[slot.key] !== MASKED) continue;
    const sameType = (part: string) => {
      const a = partOf(copy, part);
      const b = partOf(stored, part);
      return !a || !b || a.type === b.type;
    };
    const storedPart = slot.storedPart ? slot.storedPart(stored) : slot.part;
    const storedHolder = storedPart === undefined ? undefined : slot.holder(stored, storedPart);
    // A source's or a table's stored part has its name and type; the sink must keep its type.
    const old = slot.part !== 'sink' || sameType('sink') ? storedHolder?.[slot.key] : undefined;
    if (old === undefined || storedPart === undefined) delete h[slot.key];
    else {
      h[slot.key] = old;
      restored.push({ slot, storedPart });
    }
  }
  const issues = restored.flatMap(({ slot, storedPart }) => {
    const changed = changedDestination(slot.part, copy, stored, storedPart);
    if (!changed) return [];
    return [{
      path: slot.path,
      message: `was sent masked (${MASKED}), but ${changed.path} now points at ${changed.now} (it was ${changed.before}). A stored secret is kept only while its destination is unchanged, so it is not sent to a new host: send ${slot.path} again in full with the new destination.`,
    }];
  });
  if (issues.length) throw new InvalidJobSpecError(issues);
  return copy as T;
}

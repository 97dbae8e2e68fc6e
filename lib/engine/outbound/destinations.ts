/**
 * Where a URL or connection string connects: scheme, host, port and (for databases) the
 * database. Used twice: to check the destination against the outbound policy, and to decide
 * whether a masked secret may be kept on an edit (only if its destination is unchanged).
 */
import { checkHost, OutboundRefusedError, type DestinationKind, type OutboundPolicy, type OutboundRefusal } from './outbound-policy';

export interface Destination {
  kind: DestinationKind;
  scheme: string;
  host: string;
  port: number;
  database?: string;
}

/** A value whose scheme the destination kind does not take. */
class SchemeRefused extends Error {
  constructor(readonly scheme: string, message: string) {
    super(message);
  }
}

const DEFAULT_PORT: Record<string, number> = { http: 80, https: 443, postgres: 5432, postgresql: 5432, redis: 6379, rediss: 6379, nats: 4222, tls: 4222, ws: 80, wss: 443 };

function fromUrl(kind: DestinationKind, url: URL, hostOverride?: string): Destination {
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  return { kind, scheme, host: (hostOverride ?? url.hostname) || 'localhost', port: url.port ? Number(url.port) : DEFAULT_PORT[scheme] ?? 0 };
}

/** `host=a,b` (libpq's multi-host form) names each of a and b. */
const hostList = (values: string[]) => values.flatMap((v) => v.split(',')).map((h) => h.trim());

/**
 * Every host a postgres connection string could connect to: the URL's host, every `host=` and
 * `hostaddr=` (each may list several), empty meaning localhost. A Unix socket (a host that is a
 * path, a value starting with `/`, a `socket:` URL) is returned as a destination whose host is
 * the path, so that the policy refuses it rather than overlooking it.
 */
function postgresDestinations(value: string): Destination[] {
  const socket = (path: string, database = ''): Destination[] => [{ kind: 'postgres', scheme: 'postgres', host: path || '/', port: 5432, database }];
  const trimmed = value.trim();
  if (trimmed.startsWith('/')) return socket(trimmed.split(/[\s?]/)[0]);
  if (/^socket:/i.test(trimmed)) return socket(trimmed.replace(/^socket:(\/\/)?/i, '').split('?')[0] || '/');
  if (/^postgres(ql)?:\/\//i.test(trimmed)) {
    // pg-connection-string reads `postgres://user@/db` (no host) as well; so does this.
    const url = new URL(trimmed.replace(/@\//, '@localhost/'));
    const params = [...url.searchParams.getAll('host'), ...url.searchParams.getAll('hostaddr')];
    let urlHost = url.hostname;
    try {
      urlHost = decodeURIComponent(urlHost);
    } catch {
      // not percent-encoded; parseHost refuses what it cannot read
    }
    const hosts = params.length > 0 ? hostList(params) : [urlHost];
    const port = url.searchParams.get('port');
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    const portNumber = port !== null ? Number(port) : url.port ? Number(url.port) : 5432;
    return hosts.map((host) => ({ kind: 'postgres' as const, scheme: 'postgres', host: host || 'localhost', port: portNumber, database }));
  }
  // libpq key/value form: host=… port=… dbname=…, nothing else in between.
  const kv = parseKeyValue(trimmed);
  if (!kv) throw new Error('it is neither a postgres:// URL nor a "host=… dbname=…" string');
  const params = [...(kv.get('host') ?? []), ...(kv.get('hostaddr') ?? [])];
  const hosts = params.length > 0 ? hostList(params) : ['localhost'];
  const port = kv.get('port')?.[0];
  return hosts.map((host) => ({ kind: 'postgres' as const, scheme: 'postgres', host: host || 'localhost', port: port !== undefined ? Number(port) : 5432, database: kv.get('dbname')?.[0] ?? '' }));
}

/** libpq's `key=value key='quoted value'` form, every value of every key; undefined if it is not that form. */
export function parseKeyValue(value: string): Map<string, string[]> | undefined {
  const kv = new Map<string, string[]>();
  const pair = /\s*(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s']*)\s*/y;
  let at = 0;
  while (at < value.length) {
    pair.lastIndex = at;
    const m = pair.exec(value);
    if (!m || m[0].length === 0) return undefined;
    const key = m[1].toLowerCase();
    const v = m[2].startsWith("'") ? m[2].slice(1, -1).replace(/\\(.)/g, '$1') : m[2];
    kv.set(key, [...(kv.get(key) ?? []), v]);
    at = pair.lastIndex;
  }
  return kv.size > 0 ? kv : undefined;
}

/** The destinations a value of `kind` names; throws an Error saying why it cannot be read. */
export function parseDestinations(kind: DestinationKind, value: string): Destination[] {
  switch (kind) {
    case 'http':
    case 's3': {
      const url = new URL(value);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SchemeRefused(url.protocol, `only http:// and https:// URLs are allowed here, not ${url.protocol}//`);
      return [fromUrl(kind, url)];
    }
    case 'postgres':
      return postgresDestinations(value);
    case 'redis': {
      // ioredis reads a value starting with `/` as a Unix socket path.
      if (value.trim().startsWith('/')) return [{ kind: 'redis', scheme: 'redis', host: value.trim().split('?')[0], port: 6379 }];
      const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `redis://${value}`);
      if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new SchemeRefused(url.protocol, `a Redis URL starts with redis:// or rediss://, not ${url.protocol}//`);
      return [{ ...fromUrl('redis', url), database: url.pathname.replace(/^\//, '') || '0' }];
    }
    case 'nats':
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => {
          const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `nats://${s}`);
          if (!['nats:', 'tls:', 'ws:', 'wss:'].includes(url.protocol)) throw new SchemeRefused(url.protocol, `a NATS server is nats://, tls://, ws:// or wss://, not ${url.protocol}//`);
          return fromUrl('nats', url);
        });
    case 'kafka':
      // Kafka's bootstrap.servers: comma-separated host:port, no scheme (a port is required:
      // there is no default the client and the operator would agree on).
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => {
          if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) throw new SchemeRefused(s.replace(/\/\/.*$/, ''), 'a Kafka bootstrap server is host:port, without a scheme');
          const url = new URL(`kafka://${s}`);
          return { kind: 'kafka' as const, scheme: 'kafka', host: url.hostname || 'localhost', port: url.port ? Number(url.port) : 0 };
        });
  }
}

export function describeDestination(d: Destination): string {
  const host = d.host.includes(':') && !d.host.startsWith('[') ? `[${d.host}]` : d.host;
  return `${d.scheme}://${host}:${d.port}${d.database ? `/${d.database}` : ''}`;
}

/** Same scheme, host, port and database (case-insensitive host). */
export function sameDestination(a: Destination, b: Destination): boolean {
  return a.scheme === b.scheme && a.host.toLowerCase() === b.host.toLowerCase() && a.port === b.port && (a.database ?? '') === (b.database ?? '');
}

/**
 * The parameters a postgres connection string may carry (URL `?name=` or key/value `name=`): what
 * node-postgres reads that only shapes the connection to the server the string names. Anything
 * else is refused before pg-connection-string sees it.
 */
export const POSTGRES_PARAMETERS = [
  'host', 'hostaddr', 'port', 'user', 'password', 'dbname', 'sslmode', 'ssl', 'application_name', 'fallback_application_name',
  'connect_timeout', 'options', 'client_encoding', 'statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout',
  'query_timeout', 'keepalives', 'keepalives_idle',
] as const;

/**
 * Parameters that make the client read a file on Weir's machine (pg-connection-string reads
 * sslrootcert, sslcert and sslkey with readFileSync as it parses; libpq reads the others): a
 * connection string from the API may not name a path, and the refusal never depends on whether
 * the path exists (no file-existence oracle, no read of /dev/zero).
 */
export const FILE_PARAMETERS = ['sslrootcert', 'sslcert', 'sslkey', 'sslcrl', 'sslcrldir', 'sslpassword', 'passfile', 'service', 'servicefile'] as const;

const shownName = (name: string) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);

/** The parameter names a postgres or redis value carries; [] for other kinds and Unix-socket forms. */
function parameterNames(kind: DestinationKind, value: string): string[] {
  const v = value.trim();
  if (v.startsWith('/') || /^socket:/i.test(v)) return [];
  if (kind === 'postgres') {
    if (/^postgres(ql)?:\/\//i.test(v)) return [...new URL(v.replace(/@\//, '@localhost/')).searchParams.keys()];
    return [...(parseKeyValue(v)?.keys() ?? [])];
  }
  if (kind === 'redis') return [...new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `redis://${v}`).searchParams.keys()];
  return [];
}

/**
 * The first connection parameter `value` may not carry, as a refusal naming it and saying what
 * to do; checked at validation and again by the connectors before a client library parses the
 * string. Never reads the parameter's value into the message.
 */
export function connectionOptionRefusal(kind: DestinationKind, value: string): OutboundRefusal | undefined {
  let names: string[];
  try {
    names = parameterNames(kind, value);
  } catch {
    return undefined; // unreadable: parseDestinations says why
  }
  for (const raw of names) {
    const name = raw.toLowerCase();
    const destination = `${kind} connection parameter ${shownName(name)}`;
    if ((FILE_PARAMETERS as readonly string[]).includes(name)) {
      const next = name.startsWith('ssl')
        ? 'Remove it: with sslmode=verify-full the server\'s certificate is checked against the system\'s trusted certificate authorities.'
        : 'Remove it and give host, port, user, password and dbname in the connection string itself.';
      return { destination, rule: 'connection option', message: `${destination} is refused: it makes the client read a file on Weir's machine, which a job's connection string may not do. ${next}` };
    }
    if (kind === 'redis') {
      return { destination, rule: 'connection option', message: `${destination} is refused: a Redis URL takes no query parameters here. Put the database number in the path (redis://host:6379/2) and the password before the host (redis://:password@host:6379).` };
    }
    if (!(POSTGRES_PARAMETERS as readonly string[]).includes(name)) {
      return { destination, rule: 'connection option', message: `${destination} is refused: Weir does not accept it. Accepted parameters: ${POSTGRES_PARAMETERS.join(', ')}. Remove it or use one of these.` };
    }
  }
  return undefined;
}

/** For connectors, just before a client library parses `value`: throws OutboundRefusedError. */
export function assertConnectionOptions(kind: DestinationKind, value: string): void {
  const r = connectionOptionRefusal(kind, value);
  if (r) throw new OutboundRefusedError(r);
}

/** Checks a value against the policy: undefined when every destination it names is allowed. */
export function checkDestinationValue(kind: DestinationKind, value: string, policy: OutboundPolicy): OutboundRefusal | undefined {
  let dests: Destination[];
  try {
    dests = parseDestinations(kind, value);
  } catch (e) {
    if (e instanceof SchemeRefused) {
      const next = kind === 'http' || kind === 's3' ? "Give the receiver's http(s) URL." : 'Write the connection in its usual form.';
      return { destination: `${e.scheme}//`, rule: 'scheme', message: `${e.scheme}// is refused: ${e.message}. ${next}` };
    }
    const why = e instanceof TypeError ? 'it is not a valid URL' : (e as Error).message;
    return { destination: '(unreadable)', rule: 'unreadable destination', message: `Weir cannot tell where this connects: ${why}.` };
  }
  const option = connectionOptionRefusal(kind, value);
  if (option) return option;
  for (const d of dests) {
    if (!Number.isInteger(d.port) || d.port < 1 || d.port > 65535) return { destination: describeDestination(d), rule: 'invalid port', message: `${describeDestination(d)} has no valid port (1-65535).` };
    const r = checkHost(kind, d.host, d.port, policy, describeDestination(d));
    if (r) return r;
  }
  return undefined;
}

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

/**
 * A postgres connection string as node-postgres reads it (pg-connection-string: spaces and stray
 * `%` re-encoded, `user@/db` given a dummy host), so that what is checked here is what pg will
 * connect to and which parameters it will act on. Only postgres:// and postgresql:// URLs: pg
 * reads no libpq `host=… dbname=…` form (it would take the whole string as a path on a host
 * named "base" and still act on any `?sslrootcert=` in it), and a Unix socket is refused anyway.
 */
function pgConnectionUrl(value: string): { url: URL; dummyHost: boolean } {
  if (!/^postgres(ql)?:\/\//i.test(value)) {
    throw new Error('a postgres connection string here is a postgres:// or postgresql:// URL (postgres://user:password@host:5432/dbname); the libpq "host=… dbname=…" form is not read by Weir\'s client');
  }
  let str = value;
  if (/ |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(str)) str = encodeURI(str).replace(/%25(\d\d)/g, '%$1');
  try {
    return { url: new URL(str, 'postgres://base'), dummyHost: false };
  } catch {
    return { url: new URL(str.replace('@/', '@___DUMMY___/'), 'postgres://base'), dummyHost: true };
  }
}

function databaseOfUrl(url: URL): string {
  // pg-connection-string: decodeURI of the path; empty means pg's default (the user name).
  const path = url.pathname.slice(1);
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** The database a postgres connection string opens as pg reads it; undefined when pg would choose it. */
export function postgresDatabase(value: string): string | undefined {
  try {
    return databaseOfUrl(pgConnectionUrl(value).url) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every host and port a postgres connection string could connect to: every `host=` (pg takes
 * the last; each is checked, and each host of a multi-host list) and `hostaddr=` parameter, else
 * the URL's host, no host meaning localhost; every `port=`, else the URL's port. A Unix socket (a host that is a path, `%2Ftmp`) is returned as
 * a destination whose host is the path, so that the policy refuses it rather than overlooking it.
 */
function postgresDestinations(value: string): Destination[] {
  const trimmed = value.trim();
  const socket = (path: string): Destination[] => [{ kind: 'postgres', scheme: 'postgres', host: path || '/', port: 5432 }];
  // pg's own Unix-socket spellings: a leading `/` ("/var/run/postgresql dbname"), socket:/path.
  if (trimmed.startsWith('/')) return socket(trimmed.split(/[\s?]/)[0]);
  if (/^socket:/i.test(trimmed)) return socket(trimmed.replace(/^socket:(\/\/)?/i, '').split('?')[0]);
  const { url, dummyHost } = pgConnectionUrl(value);
  const params = [...url.searchParams.getAll('host'), ...url.searchParams.getAll('hostaddr')];
  let urlHost = dummyHost ? '' : url.hostname.replace(/^\[(.+)\]$/, '$1');
  try {
    urlHost = decodeURIComponent(urlHost);
  } catch {
    // not percent-encoded; parseHost refuses what it cannot read
  }
  // pg falls back to the URL's host and port when the parameter is empty: check those too.
  const hosts = [...params.filter(Boolean).flatMap((v) => v.split(',')).map((h) => h.trim()), ...(params.length === 0 || params.some((v) => v === '') ? [urlHost] : [])];
  const portParams = url.searchParams.getAll('port');
  const ports = [...portParams.filter(Boolean).map(Number), ...(portParams.length === 0 || portParams.some((v) => v === '') ? [url.port ? Number(url.port) : 5432] : [])];
  const database = databaseOfUrl(url);
  return hosts.flatMap((host) => ports.map((port) => ({ kind: 'postgres' as const, scheme: 'postgres', host: host || 'localhost', port, database })));
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
 * The parameters a postgres connection string may carry (`?name=`): what node-postgres reads
 * that only shapes the connection to the server the string names. Anything else is refused
 * before pg-connection-string sees it; `options` among them, since it sets any server setting
 * for the session (preload libraries included, for a superuser).
 */
export const POSTGRES_PARAMETERS = [
  'host', 'hostaddr', 'port', 'user', 'password', 'sslmode', 'ssl', 'application_name', 'fallback_application_name',
  'connect_timeout', 'client_encoding', 'statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout',
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

/** The parameter names a postgres or redis value carries, as its client library reads them. */
function parameterNames(kind: DestinationKind, value: string): string[] {
  const v = value.trim();
  if (kind === 'postgres') return v.startsWith('/') || /^socket:/i.test(v) ? [] : [...pgConnectionUrl(value).url.searchParams.keys()];
  if (kind === 'redis' && !v.startsWith('/')) return [...new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `redis://${v}`).searchParams.keys()];
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
        : 'Remove it and give the host, port, user, password and database in the URL itself.';
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
    const r = checkHost(kind, d.host, d.port, policy, describeDestination(d), d.database || undefined);
    if (r) return r;
  }
  return undefined;
}

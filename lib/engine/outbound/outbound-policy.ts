/**
 * The outbound policy: which destinations a job's webhooks, database and broker connections,
 * S3 endpoints and alert webhooks may reach. Pure: the allow list and the control plane's own
 * endpoints are given by the caller (lib/server builds them from lib/env.ts), never read here.
 *
 * Rules, in order:
 * 1. Always refused, whatever the allow list: link-local (169.254.0.0/16, fe80::/10, where cloud
 *    metadata services answer), unspecified (0.0.0.0/8, ::), multicast and broadcast, in any
 *    spelling (see address.ts). A host that is not a valid name or address is refused too.
 * 2. `allow` (WEIR_OUTBOUND_ALLOW), when set, limits destinations to its CIDRs and host names
 *    (`*.example.com` matches any name under it). A listed name is trusted to resolve where its
 *    DNS says (but never into rule 1); any other name must resolve into a listed CIDR. Unset:
 *    everything else is allowed, loopback included, so local services keep working.
 * 3. The control plane's own infrastructure (`infrastructure`: the metadata database, the
 *    embedded PostgreSQL's port, the Redis queue) is refused for every kind of destination,
 *    whatever the allow list says: a job or a preview that could read the metadata database
 *    would read every job's secrets and the API tokens' hashes. An endpoint is its host and port:
 *    every loopback spelling is the same host when the endpoint is on loopback.
 * 4. Unix sockets (a host that is a path, `/var/run/postgresql`) are refused for every kind:
 *    jobs reach their destinations over TCP only, where rules 1-3 can see where they go.
 *
 * Validation checks what the spec says (no DNS). `checkResolved` checks the address a client is
 * about to connect to, which is what stops DNS rebinding (a name that resolved to a public
 * address at validation and to 169.254.169.254 at run time).
 */
import { WeirError } from '../errors';
import { alwaysRefusedRule, formatIp, inCidr, isLocalhostName, isLoopback, parseCidr, parseHost, sameIp, type Cidr, type IpAddress } from './address';

export type DestinationKind = 'http' | 'postgres' | 'redis' | 'nats' | 's3' | 'kafka';

export interface AllowList {
  /** The list as configured, for messages. */
  text: string;
  cidrs: Cidr[];
  /** Lower-case host names; `*.example.com` matches names under example.com. */
  names: string[];
}

export interface InfrastructureEndpoint {
  host: string;
  port: number;
  /** What it is, for the message: "the metadata database (DATABASE_URL)". */
  what: string;
  /**
   * PostgreSQL databases on this server that postgres connections may still use (the demo's
   * warehouse): a connection naming exactly one of them is let through; any other database, no
   * database, and every other kind stay refused.
   */
  jobDatabases?: readonly string[];
}

/** Every address a name resolves to (dns.lookup with all: true, by default). */
export type ResolveAll = (host: string) => Promise<{ address: string; family: number }[]>;

export interface OutboundPolicy {
  allow?: AllowList;
  infrastructure?: readonly InfrastructureEndpoint[];
  /** Name resolution for connect-time checks; injectable so tests need no DNS. */
  resolve?: ResolveAll;
}

/** What was refused and why; `message` says what to do. */
export interface OutboundRefusal {
  destination: string;
  rule: string;
  message: string;
}

export class OutboundRefusedError extends WeirError {
  constructor(readonly refusal: OutboundRefusal, field?: string) {
    super('OUTBOUND_REFUSED', field ? `${field}: ${refusal.message}` : refusal.message, { destination: refusal.destination, rule: refusal.rule, ...(field ? { path: field } : {}) });
  }
}

/** Parses WEIR_OUTBOUND_ALLOW: comma-separated CIDRs, addresses and host names. Throws on a bad entry. */
export function parseAllowList(text: string): AllowList {
  const cidrs: Cidr[] = [];
  const names: string[] = [];
  for (const raw of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const c = parseCidr(raw);
    if (c) {
      cidrs.push(c);
      continue;
    }
    const wildcard = raw.startsWith('*.');
    const parsed = parseHost(wildcard ? raw.slice(2) : raw);
    if (parsed.kind !== 'name' || raw.includes('/')) throw new Error(`"${raw}" is neither a CIDR (10.0.0.0/8, fd00::/8), an address nor a host name (hooks.example.com, *.example.com)`);
    names.push(wildcard ? `*.${parsed.name}` : parsed.name);
  }
  if (cidrs.length === 0 && names.length === 0) throw new Error('it lists no CIDR or host name; unset it to allow every destination but the always-refused ones');
  return { text, cidrs, names };
}

function nameAllowed(name: string, allow: AllowList): boolean {
  return allow.names.some((n) => (n.startsWith('*.') ? name.endsWith(n.slice(1)) : name === n));
}

const ALLOW_HINT = 'Add it to WEIR_OUTBOUND_ALLOW (comma-separated CIDRs and host names) on the API and the workers, or use a destination the list allows.';

function refusal(destination: string, rule: string, what: string): OutboundRefusal {
  return { destination, rule, message: `${destination} is refused: ${what}` };
}

function alwaysRefused(destination: string, ip: IpAddress, shown: string): OutboundRefusal | undefined {
  const rule = alwaysRefusedRule(ip);
  if (!rule) return undefined;
  const spelled = shown === formatIp(ip) ? shown : `${shown} (= ${formatIp(ip)})`;
  return refusal(destination, rule, `${spelled} is one of the ${rule}, which Weir never connects to, whatever WEIR_OUTBOUND_ALLOW says. Use the service's routable address or name.`);
}

/** A host that is a file system path: a Unix socket (directory), which Weir never connects to. */
export function isUnixSocketHost(host: string): boolean {
  let h = host.trim();
  try {
    h = decodeURIComponent(h);
  } catch {
    // not percent-encoded
  }
  return h.startsWith('/') || h.startsWith('@');
}

export function unixSocketRefusal(destination: string): OutboundRefusal {
  return refusal(destination, 'unix socket', "a Unix socket path; Weir connects to jobs' and previews' destinations over TCP only, whatever WEIR_OUTBOUND_ALLOW says. Give the server's host name or IP address and port.");
}

/**
 * The refusal when `host`:`port` is one of the control plane's own endpoints, for every kind of
 * destination; the one rule that validation (`checkHost`) and the connect-time check
 * (`checkResolved`) share.
 */
function infrastructureRefusal(destination: string, kind: DestinationKind, host: ReturnType<typeof parseHost>, port: number, policy: OutboundPolicy, database?: string): OutboundRefusal | undefined {
  for (const infra of policy.infrastructure ?? []) {
    if (infra.port !== port) continue;
    if (kind === 'postgres' && database && infra.jobDatabases?.includes(database)) continue;
    const other = parseHost(infra.host);
    const loop = (h: typeof host) => (h.kind === 'ip' && isLoopback(h.ip)) || (h.kind === 'name' && isLocalhostName(h.name));
    const same =
      (loop(host) && loop(other)) ||
      (host.kind === 'ip' && other.kind === 'ip' && sameIp(host.ip, other.ip)) ||
      (host.kind === 'name' && other.kind === 'name' && host.name === other.name);
    if (same) {
      return refusal(destination, 'control-plane infrastructure', `port ${port} there is ${infra.what}, one of Weir's own services, which jobs, previews and webhooks never reach, whatever WEIR_OUTBOUND_ALLOW says. Point it at the service your data lives in (its own host and port).`);
    }
  }
  return undefined;
}

/**
 * The check at validation: the host as written (no DNS). A name that is neither listed nor
 * `localhost` passes when the allow list has CIDRs; its resolved address is checked at connect.
 */
export function checkHost(kind: DestinationKind, host: string, port: number, policy: OutboundPolicy, destination = `${host}:${port}`, database?: string): OutboundRefusal | undefined {
  if (isUnixSocketHost(host)) return unixSocketRefusal(destination);
  const parsed = parseHost(host);
  if (parsed.kind === 'invalid') return refusal(destination, 'invalid host', `the host "${host}" cannot be used: ${parsed.reason}. Write a host name or an IP address in its usual form.`);
  if (parsed.kind === 'ip') {
    const r = alwaysRefused(destination, parsed.ip, host.replace(/^\[|\]$/g, ''));
    if (r) return r;
  }
  const infra = infrastructureRefusal(destination, kind, parsed, port, policy, database);
  if (infra) return infra;
  const allow = policy.allow;
  if (!allow) return undefined;
  if (parsed.kind === 'name') {
    if (nameAllowed(parsed.name, allow)) return undefined;
    if (isLocalhostName(parsed.name)) {
      const loop: IpAddress = { family: 4, bytes: [127, 0, 0, 1] };
      if (allow.cidrs.some((c) => inCidr(loop, c))) return undefined;
      return refusal(destination, 'WEIR_OUTBOUND_ALLOW', `${parsed.name} (loopback) is not in WEIR_OUTBOUND_ALLOW (${allow.text}). ${ALLOW_HINT}`);
    }
    if (allow.cidrs.length > 0) return undefined;
    return refusal(destination, 'WEIR_OUTBOUND_ALLOW', `the host name ${parsed.name} is not in WEIR_OUTBOUND_ALLOW (${allow.text}). ${ALLOW_HINT}`);
  }
  if (allow.cidrs.some((c) => inCidr(parsed.ip, c))) return undefined;
  return refusal(destination, 'WEIR_OUTBOUND_ALLOW', `${formatIp(parsed.ip)} is not in WEIR_OUTBOUND_ALLOW (${allow.text}). ${ALLOW_HINT}`);
}

/** The check at connect time, on the address `name` resolved to (`database`: a postgres connection's). */
export function checkResolved(kind: DestinationKind, name: string, address: string, port: number, policy: OutboundPolicy, database?: string): OutboundRefusal | undefined {
  const destination = `${name}:${port}`;
  const parsed = parseHost(address);
  if (parsed.kind !== 'ip') return refusal(destination, 'invalid address', `${name} resolved to "${address}", which is not an IP address.`);
  const shown = `${name} resolved to ${formatIp(parsed.ip)}, which`;
  const rule = alwaysRefusedRule(parsed.ip);
  if (rule) return refusal(destination, rule, `${shown} is one of the ${rule}: Weir never connects there (a name that resolves there is refused even if it resolved elsewhere at validation). Fix the name's DNS or use another destination.`);
  const infra = infrastructureRefusal(destination, kind, parsed, port, policy, database);
  if (infra) return { ...infra, message: `${name} resolved to ${formatIp(parsed.ip)}: ${infra.message}` };
  const allow = policy.allow;
  if (!allow) return undefined;
  const host = parseHost(name);
  if (host.kind === 'name' && nameAllowed(host.name, allow)) return undefined;
  if (allow.cidrs.some((c) => inCidr(parsed.ip, c))) return undefined;
  return refusal(destination, 'WEIR_OUTBOUND_ALLOW', `${shown} is not in WEIR_OUTBOUND_ALLOW (${allow.text}). ${ALLOW_HINT}`);
}

let current: OutboundPolicy = {};

/**
 * The policy the engine's connectors use when none is passed to them. The worker (and the API
 * process) install theirs at start; until then only the always-refused rules apply.
 */
export function setOutboundPolicy(policy: OutboundPolicy): void {
  current = policy;
}

export function outboundPolicy(): OutboundPolicy {
  return current;
}

/**
 * The outbound policy applied to the address a client actually connects to.
 *
 * Node's net and tls take a `lookup` function: `guardedLookup` resolves the name, checks every
 * address it resolved to with `checkResolved` and hands the checked addresses to the socket, so
 * what is checked is exactly what is connected to (no second resolution a rebinding DNS server
 * could answer differently). An IP literal never goes through `lookup`, so `checkedConnectOptions`
 * checks literals itself before connecting. Built on these:
 * - `outboundFetch`: a fetch-shaped POST over node:http(s) for webhooks (Node 20's fetch takes
 *   no lookup, and the undici package that would is not importable). Redirects are not followed:
 *   a 3xx is returned as it is, so a receiver cannot bounce a request somewhere else.
 * - `guardedSocket`: a net.Socket for pg's `stream` option (pg calls `connect(port, host)`);
 *   a Unix socket `connect(path)` is refused.
 * - `guardedAgents`: http(s) agents for the S3 client.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { checkDestinationValue, parseDestinations } from './destinations';
import { checkHost, checkResolved, OutboundRefusedError, unixSocketRefusal, type DestinationKind, type OutboundPolicy } from './outbound-policy';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
export type LookupFunction = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

const systemResolve = (host: string) => dns.promises.lookup(host, { all: true, verbatim: true });

/** A `lookup` for net/tls/http that refuses a name resolving to any address the policy refuses. */
export function guardedLookup(policy: OutboundPolicy, kind: DestinationKind, port: number, database?: string): LookupFunction {
  return (hostname, options, callback) => {
    (policy.resolve ?? systemResolve)(hostname)
      .then((all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
        for (const a of wanted) {
          const r = checkResolved(kind, hostname, a.address, port, policy, database);
          if (r) throw new OutboundRefusedError(r);
        }
        if (options.all) callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, wanted[0].address, wanted[0].family);
      })
      .catch((e: NodeJS.ErrnoException) => callback(e, '', 0));
  };
}

/** Options for net.connect / tls.connect: a literal host checked now, a name checked at lookup. */
export function checkedConnectOptions(policy: OutboundPolicy, kind: DestinationKind, host: string, port: number, database?: string): { host: string; port: number; lookup: LookupFunction } {
  const r = checkHost(kind, host, port, policy, undefined, database);
  if (r) throw new OutboundRefusedError(r);
  return { host, port, lookup: guardedLookup(policy, kind, port, database) };
}

/**
 * A net.Socket whose `connect(port, host)` goes through the policy (for pg's `stream` option);
 * `database`: the database the connection opens, as `postgresDatabase` reads it.
 */
export function guardedSocket(policy: OutboundPolicy, kind: DestinationKind, database?: string): net.Socket {
  const socket = new net.Socket();
  const connect = socket.connect.bind(socket) as (...args: unknown[]) => net.Socket;
  socket.connect = ((...args: unknown[]) => {
    const [port, host] = args;
    try {
      // pg calls `connect(port, host)` for TCP and `connect(path)` for a Unix socket: anything
      // but a TCP port (a path, an options object) is refused, never passed through.
      const tcp = typeof port === 'number' || (typeof port === 'string' && /^\d+$/.test(port));
      if (!tcp) throw new OutboundRefusedError(unixSocketRefusal(typeof port === 'string' ? port : '(socket options)'));
      return connect(checkedConnectOptions(policy, kind, String(host ?? 'localhost'), Number(port), database));
    } catch (e) {
      process.nextTick(() => socket.destroy(e as Error));
      return socket;
    }
  }) as typeof socket.connect;
  return socket;
}

/** http and https agents whose connections go through the policy (for the S3 client). */
export function guardedAgents(policy: OutboundPolicy, kind: DestinationKind): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const lookup = (port: number) => guardedLookup(policy, kind, port);
  const guard = <A extends http.Agent>(agent: A, defaultPort: number): A => {
    const create = (agent as unknown as { createConnection: (o: net.NetConnectOpts & { host?: string; port?: number }, cb?: unknown) => net.Socket }).createConnection.bind(agent);
    (agent as unknown as { createConnection: unknown }).createConnection = (o: { host?: string; port?: number }, cb?: unknown) => {
      const port = Number(o.port ?? defaultPort);
      const r = checkHost(kind, o.host ?? 'localhost', port, policy);
      if (r) throw new OutboundRefusedError(r);
      return create({ ...o, lookup: lookup(port) } as net.NetConnectOpts, cb);
    };
    return agent;
  };
  return { httpAgent: guard(new http.Agent({ keepAlive: true }), 80), httpsAgent: guard(new https.Agent({ keepAlive: true }), 443) };
}

export interface OutboundRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

const NULL_BODY = new Set([101, 204, 205, 304]);
/** A receiver's answer is read up to this size; the rest is dropped unread. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * `fetch(url, init)` for webhooks, under the policy: the URL is checked as written (scheme,
 * host, port), then the address connected to. A refusal rejects with OutboundRefusedError.
 */
export async function outboundFetch(url: string, init: OutboundRequestInit, policy: OutboundPolicy, kind: DestinationKind = 'http'): Promise<Response> {
  const refused = checkDestinationValue(kind, url, policy);
  if (refused) throw new OutboundRefusedError(refused);
  const [dest] = parseDestinations(kind, url);
  const lib = dest.scheme === 'https' ? https : http;
  const signal = init.signal;
  if (signal?.aborted) throw signal.reason;
  return new Promise<Response>((resolve, reject) => {
    const req = lib.request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false, lookup: guardedLookup(policy, kind, dest.port) as never, signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
          else if (v !== undefined) headers.set(k, v);
        }
        const status = res.statusCode ?? 0;
        // Response takes 200-599 only; a receiver answering 600-999 must not throw here.
        if (status < 200 || status > 599) return reject(new Error(`the receiver answered with HTTP status ${status}, which is not a valid final status`));
        resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers }));
      };
      res.on('data', (c: Buffer) => {
        // Callers read the status, not the body: keep at most MAX_RESPONSE_BYTES of it.
        chunks.push(c.subarray(0, Math.max(0, MAX_RESPONSE_BYTES - size)));
        size += c.length;
        if (size >= MAX_RESPONSE_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on('error', (e) => reject(signal?.aborted ? signal.reason : e));
      res.on('end', done);
    });
    req.on('error', (e) => reject(signal?.aborted ? signal.reason : e));
    req.end(init.body);
  });
}

/**
 * For clients that take no `lookup` (the NATS client): checks a value's destinations and every
 * address their names resolve to now, just before the client connects. The client resolves
 * again itself, so a DNS answer that changes within that moment is not caught; an allow list
 * of addresses (not names) closes that gap.
 */
export async function checkBeforeConnect(kind: DestinationKind, value: string, policy: OutboundPolicy): Promise<void> {
  const refused = checkDestinationValue(kind, value, policy);
  if (refused) throw new OutboundRefusedError(refused);
  for (const d of parseDestinations(kind, value)) {
    if (net.isIP(d.host.replace(/^\[|\]$/g, ''))) continue;
    for (const a of await (policy.resolve ?? systemResolve)(d.host)) {
      const r = checkResolved(kind, d.host, a.address, d.port, policy);
      if (r) throw new OutboundRefusedError(r);
    }
  }
}

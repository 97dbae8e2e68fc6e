/**
 * Host spellings → IP addresses, and the classes of address no outbound call may reach.
 *
 * An address has many spellings, and the one that matters is the one the client library finally
 * hands to the operating system. WHATWG URL normalizes `http://0x7f000001/` to 127.0.0.1, but it
 * leaves the host of `postgres://0x7f000001/db` or a bare `redis` host untouched, and glibc's
 * getaddrinfo (which `net.connect` uses) still reads `0x7f000001`, `2130706433`, `0177.0.0.1`
 * and `127.1` as 127.0.0.1 (inet_aton's rules). So every host is parsed here with those rules
 * before it is classified, whatever the scheme: 1 to 4 dot-separated parts, each decimal,
 * `0x` hexadecimal or `0` octal, the last part filling the remaining bytes. A host that ends in a
 * number but is not a valid address (`1.2.3.256`) is refused rather than guessed at. IPv6
 * addresses that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are classified by the IPv4 address they reach too.
 */
import net from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: number[];
}

export type ParsedHost =
  | { kind: 'ip'; ip: IpAddress }
  | { kind: 'name'; name: string }
  | { kind: 'invalid'; reason: string };

const NUMBER_PART = /^(?:0x[0-9a-f]*|\d+)$/i;

function ipv4Part(p: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(p)) return p.length === 2 ? 0 : parseInt(p.slice(2), 16);
  if (/^0[0-7]+$/.test(p)) return parseInt(p.slice(1), 8);
  if (/^(?:0|[1-9]\d*)$/.test(p)) return Number(p);
  return undefined;
}

/** inet_aton / WHATWG IPv4: an address, 'invalid' (looks numeric but is not one), or undefined (a name). */
export function parseIPv4(host: string): IpAddress | 'invalid' | undefined {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  const last = parts[parts.length - 1] ?? '';
  if (!NUMBER_PART.test(last)) return undefined;
  if (parts.length > 4) return 'invalid';
  const values = parts.map(ipv4Part);
  if (values.some((v) => v === undefined || !Number.isFinite(v))) return 'invalid';
  const nums = values as number[];
  if (nums.slice(0, -1).some((v) => v > 255)) return 'invalid';
  const rest = 5 - nums.length;
  if (nums[nums.length - 1] >= 256 ** rest) return 'invalid';
  let value = nums[nums.length - 1];
  nums.slice(0, -1).forEach((v, i) => (value += v * 256 ** (3 - i)));
  return { family: 4, bytes: [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255] };
}

/** An IPv6 address (no brackets, no zone) as 16 bytes, or undefined. */
export function parseIPv6(text: string): IpAddress | undefined {
  if (!net.isIPv6(text)) return undefined;
  let s = text.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    tail.push(...dotted[1].split('.').map(Number));
    s = s.slice(0, -dotted[1].length) + '0:0';
  }
  const [head, after] = s.includes('::') ? s.split('::') : [s, undefined];
  const groups = (x: string) => (x === '' ? [] : x.split(':'));
  const h = groups(head);
  const a = after === undefined ? [] : groups(after);
  const all = after === undefined ? h : [...h, ...Array(8 - h.length - a.length).fill('0'), ...a];
  const bytes = all.flatMap((g) => {
    const v = parseInt(g, 16);
    return [v >> 8, v & 255];
  });
  if (tail.length) bytes.splice(12, 4, ...tail);
  return { family: 6, bytes };
}

/**
 * Classifies a host as written in a URL or connection string: brackets and an IPv6 zone are
 * removed, percent-encoding decoded, case and a trailing dot ignored.
 */
export function parseHost(raw: string): ParsedHost {
  let host = raw.trim();
  try {
    host = decodeURIComponent(host);
  } catch {
    // Not percent-encoding: a raw IPv6 zone (fe80::1%eth0) is handled below.
  }
  host = host.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  const zone = host.indexOf('%');
  const v6 = parseIPv6(zone >= 0 ? host.slice(0, zone) : host);
  if (v6) return { kind: 'ip', ip: v6 };
  if (host.includes(':') || host.includes('%')) return { kind: 'invalid', reason: 'it is neither a host name nor an IP address' };
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') return { kind: 'invalid', reason: 'it is empty' };
  const v4 = parseIPv4(host);
  if (v4 === 'invalid') return { kind: 'invalid', reason: 'it ends in a number but is not a valid IPv4 address' };
  if (v4) return { kind: 'ip', ip: v4 };
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(host)) return { kind: 'invalid', reason: 'it is not a valid host name' };
  return { kind: 'name', name: host };
}

export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return ip.bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i] << 8) | ip.bytes[i + 1]).toString(16));
  // The URL parser prints the canonical compressed form.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** The IPv4 address an IPv6 address reaches (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIPv4(ip: IpAddress): IpAddress | undefined {
  if (ip.family !== 6) return undefined;
  const b = ip.bytes;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const v4 = (at: number): IpAddress => ({ family: 4, bytes: b.slice(at, at + 4) });
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && b[15] === 1)) return v4(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4(12);
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  return undefined;
}

export interface Cidr {
  ip: IpAddress;
  prefix: number;
  text: string;
}

export function parseCidr(text: string): Cidr | undefined {
  const [addr, bits, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const parsed = parseHost(addr);
  if (parsed.kind !== 'ip') return undefined;
  const max = parsed.ip.family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d+$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { ip: parsed.ip, prefix, text: text.trim() };
}

/** Whether `ip` lies in `cidr`; an IPv4 range also holds the IPv4-mapped spelling of its addresses. */
export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  const target = ip.family === cidr.ip.family ? ip : ip.family === 6 ? embeddedIPv4(ip) : undefined;
  if (!target || target.family !== cidr.ip.family) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((target.bytes[i] & mask) !== (cidr.ip.bytes[i] & mask)) return false;
  }
  return true;
}

const cidr = (text: string): Cidr => parseCidr(text)!;

/**
 * Ranges no outbound call may reach, whatever WEIR_OUTBOUND_ALLOW says, with the reason shown
 * to the user. Link-local holds the cloud metadata services (169.254.169.254 answers with the
 * machine's credentials); the unspecified address means "this host" to connect(); multicast and
 * broadcast are never a single service.
 */
export const ALWAYS_REFUSED: readonly { range: Cidr; rule: string }[] = [
  { range: cidr('169.254.0.0/16'), rule: 'link-local addresses (169.254.0.0/16, where cloud metadata services answer)' },
  { range: cidr('fe80::/10'), rule: 'link-local addresses (fe80::/10)' },
  { range: cidr('fd00:ec2::254/128'), rule: 'the cloud metadata service address (fd00:ec2::254)' },
  { range: cidr('100.100.100.200/32'), rule: 'the cloud metadata service address (100.100.100.200)' },
  { range: cidr('0.0.0.0/8'), rule: 'unspecified addresses (0.0.0.0/8, which connect() takes as this host)' },
  { range: cidr('::/128'), rule: 'the unspecified address (::)' },
  { range: cidr('224.0.0.0/4'), rule: 'multicast addresses (224.0.0.0/4)' },
  { range: cidr('ff00::/8'), rule: 'multicast addresses (ff00::/8)' },
  { range: cidr('240.0.0.0/4'), rule: 'broadcast and reserved addresses (240.0.0.0/4, 255.255.255.255)' },
];

/** The always-refused rule `ip` falls under, checking an embedded IPv4 address too. */
export function alwaysRefusedRule(ip: IpAddress): string | undefined {
  const candidates = [ip, embeddedIPv4(ip)].filter((x): x is IpAddress => !!x);
  for (const c of candidates) {
    for (const r of ALWAYS_REFUSED) if (c.family === r.range.ip.family && inCidr(c, r.range)) return r.rule;
  }
  return undefined;
}

const LOOPBACK = [cidr('127.0.0.0/8'), cidr('::1/128')];

export function isLoopback(ip: IpAddress): boolean {
  return LOOPBACK.some((c) => inCidr(ip, c));
}

/** `localhost` and `*.localhost` always mean loopback (RFC 6761), whatever DNS says. */
export function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

export function sameIp(a: IpAddress, b: IpAddress): boolean {
  const x = a.family === b.family ? a : embeddedIPv4(a) ?? a;
  const y = a.family === b.family ? b : embeddedIPv4(b) ?? b;
  return x.family === y.family && x.bytes.every((v, i) => v === y.bytes[i]);
}

/**
 * Whether the service may call a URL a caller supplied (webhook endpoints and the like): https only by default,
 * an optional host allowlist, and never an internal address, so a caller cannot reach the service's own network.
 */
import { BlockList, isIP } from 'node:net';

export interface OutboundPolicy {
  /** Allow plain http (default: https only). */
  allowHttp?: boolean;
  /** Host names allowed, exact or `*.example.com` for subdomains; empty = any public host. */
  allowedHosts?: readonly string[];
  /** Destination ranges allowed even though they are internal (e.g. `10.1.2.0/24`, `127.0.0.1/32` in tests). */
  allowedCidrs?: readonly string[];
  /** Ports allowed (default 443, and 80 when http is allowed). */
  allowedPorts?: readonly number[];
}

export type RefusalReason =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'userinfo_not_allowed'
  | 'host_not_allowed'
  | 'port_not_allowed'
  | 'address_not_allowed'
  | 'host_not_resolved'
  | 'too_many_redirects';

/** A refused outbound call: the reason is one of a closed set, the detail says what was refused. */
export class OutboundRefusedError extends Error {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason, detail: string) {
    super(`outbound call refused (${reason}): ${detail}`);
    this.name = 'OutboundRefusedError';
    this.reason = reason;
  }
}

const DENIED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
// IPv4-mapped, IPv4-compatible, NAT64, 6to4 and Teredo embed IPv4 addresses: refused whole. 2001::/23 (IETF
// protocol assignments: Teredo, benchmarking, ORCHID, anycast services) holds no endpoint a caller may name.
const DENIED_V6 = [
  '::/127',
  '::ffff:0:0/96',
  '::/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '100:0:0:1::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

/** One list per family: Node maps IPv4 into IPv6 rules (::ffff:0:0/96 would catch every IPv4 address). */
interface Ranges {
  v4: BlockList;
  v6: BlockList;
}

function ranges(cidrs: readonly string[], what: string): Ranges {
  const out: Ranges = { v4: new BlockList(), v6: new BlockList() };
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split('/');
    const family = isIP(address ?? '');
    const prefix = Number(bits ?? (family === 6 ? 128 : 32));
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
      throw new TypeError(`${what}: "${cidr}" is not an IPv4 or IPv6 range`);
    }
    if (family === 6) out.v6.addSubnet(address!, prefix, 'ipv6');
    else out.v4.addSubnet(address!, prefix, 'ipv4');
  }
  return out;
}

function inRanges(address: string, family: number, list: Ranges): boolean {
  return family === 6 ? list.v6.check(address, 'ipv6') : list.v4.check(address, 'ipv4');
}

const DENIED = ranges([...DENIED_V4, ...DENIED_V6], 'denied');

/** A policy checked once, with its ranges parsed. */
export interface CompiledPolicy {
  allowHttp: boolean;
  hosts: readonly string[];
  allowed: Ranges;
  ports: ReadonlySet<number>;
}

export function compilePolicy(policy: OutboundPolicy | CompiledPolicy = {}): CompiledPolicy {
  if (isCompiled(policy)) return policy;
  const allowHttp = policy.allowHttp === true;
  const hosts = (policy.allowedHosts ?? []).map((h) => h.toLowerCase());
  for (const h of hosts)
    if (!/^(\*\.)?[a-z0-9.-]+$/.test(h)) throw new TypeError(`allowed host "${h}" is not a host name or *.suffix`);
  return {
    allowHttp,
    hosts,
    allowed: ranges(policy.allowedCidrs ?? [], 'allowed range'),
    ports: new Set(policy.allowedPorts ?? (allowHttp ? [443, 80] : [443])),
  };
}

function isCompiled(policy: OutboundPolicy | CompiledPolicy): policy is CompiledPolicy {
  return 'ports' in policy && policy.ports instanceof Set;
}

/** Is a resolved or literal address one the service may connect to? */
export function isAddressAllowed(address: string, policy: CompiledPolicy): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (inRanges(address, family, policy.allowed)) return true;
  return !inRanges(address, family, DENIED);
}

function hostAllowed(host: string, policy: CompiledPolicy): boolean {
  if (policy.hosts.length === 0) return true;
  return policy.hosts.some((h) =>
    h.startsWith('*.') ? host.endsWith(h.slice(1)) && host.length > h.length - 1 : host === h,
  );
}

/** Checks a URL before any connection; the connected address is checked again at connect time (DNS rebinding). */
export function assertUrlAllowed(input: string | URL, policy: CompiledPolicy): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new OutboundRefusedError('invalid_url', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    throw new OutboundRefusedError(
      'scheme_not_allowed',
      `${url.protocol} (allowed: https${policy.allowHttp ? ', http' : ''})`,
    );
  }
  if (url.username !== '' || url.password !== '')
    throw new OutboundRefusedError('userinfo_not_allowed', 'credentials in the URL');
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (host === '') throw new OutboundRefusedError('invalid_url', 'no host');
  const family = isIP(host);
  if (family !== 0) {
    if (!isAddressAllowed(host, policy)) throw new OutboundRefusedError('address_not_allowed', host);
    if (policy.hosts.length > 0 && !inRanges(host, family, policy.allowed)) {
      throw new OutboundRefusedError('host_not_allowed', `${host} is not in the allowed hosts`);
    }
  } else {
    // A loopback name is refused even where loopback addresses are allowed: what it resolves to is the host's
    // choice (127.0.0.1, ::1 or both), so a local receiver is named by its address.
    if (host === 'localhost' || host.endsWith('.localhost'))
      throw new OutboundRefusedError('address_not_allowed', `${host} (a loopback name: name the address, 127.0.0.1)`);
    if (!hostAllowed(host, policy))
      throw new OutboundRefusedError('host_not_allowed', `${host} is not in the allowed hosts`);
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!policy.ports.has(port)) throw new OutboundRefusedError('port_not_allowed', `port ${port}`);
  return url;
}

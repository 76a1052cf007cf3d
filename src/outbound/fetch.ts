/**
 * Outbound HTTP under a policy: every connection's resolved addresses are checked where the socket is
 * opened (so a DNS answer that changes between check and connect is still caught), and redirects are
 * followed by hand, each target checked again.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { checkUrl, compilePolicy, isAddressAllowed, OutboundRefusedError, type CompiledPolicy, type OutboundPolicy } from './policy.ts';

export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A `lookup` for sockets that refuses the connection when any resolved address is not allowed. */
export function guardedLookup(policy: CompiledPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.find((a) => !isAddressAllowed(a.address, policy));
      if (refused || addresses.length === 0) {
        return callback(new OutboundRefusedError('address_not_allowed', `${hostname} resolves to ${refused?.address ?? 'nothing'}`), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export interface GuardedClientOptions {
  /** Injected resolver (tests); default the system's. */
  resolve?: Resolver;
  /** Extra TLS options (e.g. `ca` for a private CA). */
  tls?: { ca?: string | Buffer | Array<string | Buffer> };
  timeoutMs?: number;
  maxRedirects?: number;
}

/** An undici Agent whose every connection goes through the guarded lookup. */
export function createGuardedDispatcher(policy: OutboundPolicy | CompiledPolicy, options: GuardedClientOptions = {}): Agent {
  const compiled = 'ports' in policy && policy.ports instanceof Set ? (policy as CompiledPolicy) : compilePolicy(policy as OutboundPolicy);
  return new Agent({ connect: { lookup: guardedLookup(compiled, options.resolve), ...(options.tls ?? {}) } });
}

/** Where a refusal is hidden inside fetch's TypeError('fetch failed'), bring it out. */
function refusalOf(e: unknown): OutboundRefusedError | undefined {
  for (let x: unknown = e; x instanceof Error; x = (x as Error & { cause?: unknown }).cause) {
    if (x instanceof OutboundRefusedError) return x;
  }
  return undefined;
}

/** A client that calls allowed URLs only, following at most `maxRedirects` checked redirects. */
export function createGuardedClient(policy: OutboundPolicy, options: GuardedClientOptions = {}) {
  const compiled = compilePolicy(policy);
  const dispatcher = createGuardedDispatcher(compiled, options);
  const maxRedirects = options.maxRedirects ?? 3;
  const timeoutMs = options.timeoutMs ?? 5000;

  async function request(input: string | URL, init: RequestInit = {}): Promise<Response> {
    let url = checkUrl(input, compiled);
    for (let hop = 0; ; hop++) {
      let response: Response;
      try {
        response = await fetch(url, { ...init, dispatcher, redirect: 'manual', signal: init.signal ?? AbortSignal.timeout(timeoutMs) });
      } catch (e) {
        throw refusalOf(e) ?? e;
      }
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      if (location === null) return response;
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new OutboundRefusedError('too_many_redirects', `more than ${maxRedirects}`);
      url = checkUrl(new URL(location, url), compiled);
      // 307/308 repeat the request as it was; the others turn it into a GET without a body
      if (response.status !== 307 && response.status !== 308) init = { method: 'GET', ...(init.signal ? { signal: init.signal } : {}) };
    }
  }

  return { request, close: () => dispatcher.close() };
}

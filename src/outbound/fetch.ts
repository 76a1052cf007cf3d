/**
 * Outbound HTTP under a policy: every connection's resolved addresses are checked where the socket is
 * opened (so a DNS answer that changes between check and connect is still caught), and redirects are
 * followed by hand, each target checked again.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import {
  assertUrlAllowed,
  compilePolicy,
  isAddressAllowed,
  OutboundRefusedError,
  type CompiledPolicy,
  type OutboundPolicy,
} from './policy.ts';

export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A `lookup` for sockets that refuses the connection when any resolved address is not allowed. */
export function guardedLookup(policy: CompiledPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.find((a) => !isAddressAllowed(a.address, policy));
      if (refused || addresses.length === 0) {
        return callback(
          new OutboundRefusedError('address_not_allowed', `${hostname} resolves to ${refused?.address ?? 'nothing'}`),
          '',
          0,
        );
      }
      // Asked for every address (all: true), the callback takes the list.
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export interface GuardedClientOptions {
  /** Injected resolver with `dns.lookup`'s signature (tests); default the system's. */
  lookup?: Resolver;
  /** Extra TLS options (e.g. `ca` for a private CA). */
  tls?: { ca?: string | Buffer | Array<string | Buffer> };
  timeoutMs?: number;
  maxRedirects?: number;
  /** false: a redirect is the answer, returned unfollowed for the caller to judge (webhook deliveries). */
  followRedirects?: boolean;
}

/** An undici Agent whose every connection goes through the guarded lookup. */
export function createGuardedDispatcher(
  policy: OutboundPolicy | CompiledPolicy,
  options: GuardedClientOptions = {},
): Agent {
  return new Agent({
    connect: { lookup: guardedLookup(compilePolicy(policy), options.lookup), ...(options.tls ?? {}) },
  });
}

/** Where a refusal is hidden inside fetch's TypeError('fetch failed'), bring it out. */
function refusalOf(e: unknown): OutboundRefusedError | undefined {
  for (let x: unknown = e; x instanceof Error; x = (x as Error & { cause?: unknown }).cause) {
    if (x instanceof OutboundRefusedError) return x;
  }
  return undefined;
}

/**
 * A client that calls allowed URLs only, following at most `maxRedirects` checked redirects (none, the 3xx
 * returned as it is, with `followRedirects: false`).
 */
export function createGuardedClient(policy: OutboundPolicy | CompiledPolicy, options: GuardedClientOptions = {}) {
  const compiled = compilePolicy(policy);
  const dispatcher = createGuardedDispatcher(compiled, options);
  const maxRedirects = options.maxRedirects ?? 3;
  const follow = options.followRedirects ?? true;
  const timeoutMs = options.timeoutMs ?? 5000;

  async function request(input: string | URL, init: RequestInit = {}): Promise<Response> {
    let url = assertUrlAllowed(input, compiled);
    for (let hop = 0; ; hop++) {
      let response: Response;
      try {
        response = await fetch(url, {
          ...init,
          dispatcher,
          redirect: 'manual',
          signal: init.signal ?? AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        throw refusalOf(e) ?? e;
      }
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      if (location === null || !follow) return response;
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new OutboundRefusedError('too_many_redirects', `more than ${maxRedirects}`);
      url = assertUrlAllowed(new URL(location, url), compiled);
      // 307/308 repeat the request as it was; the others turn it into a GET without a body
      if (response.status !== 307 && response.status !== 308)
        init = { method: 'GET', ...(init.signal ? { signal: init.signal } : {}) };
    }
  }

  return { request, close: () => dispatcher.close() };
}

/**
 * One guarded call: checks the URL, connects through a guarded dispatcher, times out, follows checked
 * redirects. The dispatcher closes once the response body has been read (or cancelled); a service that
 * calls often should keep one `createGuardedClient` instead.
 */
export async function guardedFetch(
  input: string | URL,
  init: RequestInit,
  policy: OutboundPolicy | CompiledPolicy,
  options: GuardedClientOptions = {},
): Promise<Response> {
  const client = createGuardedClient(policy, options);
  try {
    return await client.request(input, init);
  } finally {
    // graceful: waits for the body in flight, then frees the sockets
    void client.close();
  }
}

/**
 * The outbound-URL guard: the one place that decides whether the service may call a URL a caller supplied,
 * and the client that makes such calls. The rules live in policy.ts, the connection-time check and the
 * redirect handling in fetch.ts.
 */
import {
  assertUrlAllowed,
  compilePolicy,
  isAddressAllowed,
  OutboundRefusedError,
  type CompiledPolicy,
  type OutboundPolicy,
  type RefusalReason,
} from './policy.ts';
import { type Resolver } from './fetch.ts';
import { lookup as dnsLookup } from 'node:dns';

export { compilePolicy, isAddressAllowed, OutboundRefusedError, assertUrlAllowed };
export type { CompiledPolicy, OutboundPolicy, RefusalReason, Resolver };
export {
  createGuardedClient,
  createGuardedDispatcher,
  guardedFetch,
  guardedLookup,
  type GuardedClientOptions,
} from './fetch.ts';

export type UrlCheck = { allowed: true; url: URL } | { allowed: false; reason: RefusalReason; detail: string };

/** Decides on a URL without connecting or resolving: scheme, userinfo, host allowlist, port, literal address. */
export function checkUrl(input: string | URL, policy: OutboundPolicy | CompiledPolicy = {}): UrlCheck {
  try {
    return { allowed: true, url: assertUrlAllowed(input, compilePolicy(policy)) };
  } catch (e) {
    if (e instanceof OutboundRefusedError) return { allowed: false, reason: e.reason, detail: e.message };
    throw e;
  }
}

/**
 * checkUrl, then resolves a host name and refuses it if any address is not allowed — for telling a caller
 * at registration time. It proves nothing about later calls (DNS can change): those are checked again
 * when each socket opens.
 */
export async function checkUrlResolved(
  input: string | URL,
  policy: OutboundPolicy | CompiledPolicy = {},
  lookup?: Resolver,
): Promise<UrlCheck> {
  const compiled = compilePolicy(policy);
  const checked = checkUrl(input, compiled);
  if (!checked.allowed) return checked;
  const host = checked.url.hostname.replace(/^\[|\]$/g, '');
  const resolve: Resolver = lookup ?? ((hostname, options, callback) => dnsLookup(hostname, options, callback));
  const addresses = await new Promise<string[]>((done, fail) =>
    resolve(host, { all: true }, (err, found) => (err ? fail(err) : done(found.map((a) => a.address)))),
  ).catch(() => null);
  if (addresses === null || addresses.length === 0)
    return { allowed: false, reason: 'host_not_resolved', detail: `${host} does not resolve` };
  const refused = addresses.find((a) => !isAddressAllowed(a, compiled));
  if (refused !== undefined)
    return { allowed: false, reason: 'address_not_allowed', detail: `${host} resolves to ${refused}` };
  return checked;
}

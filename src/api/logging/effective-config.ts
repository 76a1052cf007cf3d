/**
 * The configuration as it is in force, for the startup log: secrets masked, everything else shown.
 *
 * What is secret is decided by the value, not by a setting's name ("tokenCacheSize" and "cors.credentials" are
 * not secrets). The configuration holds key material, passwords and client secrets only by reference (file
 * paths: TLS keys, DATA_DIR's identity credentials), which are shown; the one secret it holds by value is the
 * user information of a URL (REDIS_URL, DATABASE_URL, BROKER_URL: redis://user:password@host), masked wherever
 * a URL appears.
 */
import type { Config } from '../../config.ts';

/** scheme://userinfo@ — the authority ends at the first "/", "?" or "#", which userinfo may not hold (RFC 3986). */
const URL_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/i;

function mask(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'string') return value.replace(URL_USERINFO, '$1[masked]@');
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), mask(v)]));
  if (value instanceof Set) return [...value].map(mask);
  if (Array.isArray(value)) return value.map(mask);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v)]));
  return value;
}

export function effectiveConfig(config: Config): Record<string, unknown> {
  return mask(config) as Record<string, unknown>;
}

/**
 * The configuration as it is in force, for the startup log: everything shown but the user information of URLs
 * (REDIS_URL, DATABASE_URL, BROKER_URL), the one secret it holds by value; keys and passwords it names by file.
 */

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

/** Secret by value, not by a setting's name: "tokenCacheSize" and "cors.credentials" are shown. */
export function effectiveConfig(config: object): Record<string, unknown> {
  return mask(config) as Record<string, unknown>;
}

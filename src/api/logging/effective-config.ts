/** The configuration as it is in force, for the startup log: secrets masked, everything else shown. */
import type { Config } from '../../config.ts';

const SECRET_KEY = /secret|password|passwd|token|privatekey|private_key|credential/i;

function mask(value: unknown, key: string): unknown {
  if (value === null || value === undefined) return value;
  if (SECRET_KEY.test(key)) return '[masked]';
  if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/\s]*@/i.test(value)) {
    // credentials in a URL (REDIS_URL=redis://user:password@host)
    return value.replace(/\/\/[^/\s]*@/, '//[masked]@');
  }
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), mask(v, String(k))]));
  if (value instanceof Set) return [...value];
  if (Array.isArray(value)) return value.map((v) => mask(v, key));
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k)]));
  return value;
}

export function effectiveConfig(config: Config): Record<string, unknown> {
  return mask(config, '') as Record<string, unknown>;
}

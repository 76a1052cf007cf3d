/**
 * Log hygiene for the root logger (API and back-end): values under secret-named keys are replaced at any depth;
 * bearer tokens, JWTs, PEM private keys, webhook secrets and secret query parameters are scrubbed from every
 * string as a backstop.
 */
import type { LoggerOptions } from 'pino';

const CENSOR = '[redacted]';

/**
 * Keys whose values never reach a log line, at any depth (headers, bodies, error properties, config): any name
 * holding "secret" or "password" (whkSecret, clientSecret…), ending in "token" (accessToken, id_token, but not
 * tokenCacheSize), private and API keys, and the exact names below.
 */
const SECRET_KEYS = new RegExp(
  `secret|passw(or)?d|passphrase|token$|private_?key|api_?key|^(${[
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'key',
    'assertion',
    'client_assertion',
    'code_verifier',
  ].join('|')})$`,
  'i',
);
const SECRET_PARAMETERS = [
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'code',
  'code_verifier',
  'client_secret',
  'password',
  'assertion',
  'client_assertion',
].join('|');

const PATTERNS: Array<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[redacted-private-key]'],
  [/\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g, '[redacted-jwt]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]'],
  // Webhook signing secrets (Standard Webhooks: whsec_ and base64), wherever they appear in a string.
  [/whsec_[A-Za-z0-9+/=_-]*/g, 'whsec_[redacted]'],
  [new RegExp(`([?&;](?:${SECRET_PARAMETERS})=)[^&#\\s"]*`, 'gi'), `$1${CENSOR}`],
];

const SUSPECT = /eyJ|PRIVATE KEY|bearer|basic|whsec_|=/i;

/** A string with every secret-looking part replaced. */
export function scrub(text: string): string {
  if (!SUSPECT.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** The value with secrets replaced; the same object when nothing needed replacing (no copy on the hot path). */
function scrubDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    // keep what pino's error serializer would write, scrubbed
    const { message, stack, name } = value;
    const own = scrubDeep({ ...value }, depth + 1) as Record<string, unknown>;
    return { type: name, message: scrub(message), ...(stack ? { stack: scrub(stack) } : {}), ...own };
  }
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((v, i) => {
      const s = scrubDeep(v, depth + 1);
      if (s !== v) (out ??= [...value])[i] = s;
    });
    return out ?? value;
  }
  let out: Record<string, unknown> | null = null;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    const s = SECRET_KEYS.test(key) && v !== undefined && v !== null ? CENSOR : scrubDeep(v, depth + 1);
    if (s !== v) (out ??= { ...(value as Record<string, unknown>) })[key] = s;
  }
  return out ?? value;
}

/** pino options that apply the redaction to every line and message, before it is written. */
export function redactionOptions(): Pick<LoggerOptions, 'formatters' | 'hooks'> {
  return {
    formatters: { log: (object) => scrubDeep(object, 0) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrub(a) : a)) as Parameters<typeof method>);
      },
    },
  };
}

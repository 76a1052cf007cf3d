/**
 * Log hygiene: secrets never reach a log line, in the API layer or the back-end (they share the root
 * logger). Known places are removed by path (pino `redact`); anything that still looks like a bearer token,
 * a JWT, a PEM private key or a secret query parameter is scrubbed from every string as a backstop — also
 * inside error messages and stacks.
 */
import type { LoggerOptions } from 'pino';

const CENSOR = '[redacted]';

/** Paths pino removes before a line is written. */
export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]', 'res.headers["set-cookie"]',
  'headers.authorization', 'headers.cookie', 'authorization', 'cookie',
  '*.password', '*.passwd', '*.secret', '*.client_secret', '*.clientSecret', '*.access_token', '*.accessToken',
  '*.refresh_token', '*.refreshToken', '*.id_token', '*.idToken', '*.token', '*.privateKey', '*.private_key', '*.key',
  'password', 'secret', 'client_secret', 'clientSecret', 'token', 'accessToken', 'refreshToken', 'privateKey',
];

const PATTERNS: Array<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[redacted-private-key]'],
  [/\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g, '[redacted-jwt]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]'],
  [/([?&;](?:access_token|refresh_token|id_token|token|code|code_verifier|client_secret|password|assertion|client_assertion)=)[^&#\s"]*/gi, `$1${CENSOR}`],
];

const SUSPECT = /eyJ|PRIVATE KEY|bearer|basic|=/i;

/** A string with every secret-looking part replaced. */
export function scrub(text: string): string {
  if (!SUSPECT.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

function scrubDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    // keep what pino's error serializer would write, scrubbed
    const { message, stack, name } = value;
    const own = scrubDeep({ ...value }, depth + 1) as Record<string, unknown>;
    return { type: name, message: scrub(message), ...(stack ? { stack: scrub(stack) } : {}), ...own };
  }
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubDeep(v, depth + 1);
  return out;
}

/** pino options that apply the redaction: paths first, then the string backstop on every line and message. */
export function redactionOptions(): Pick<LoggerOptions, 'redact' | 'formatters' | 'hooks'> {
  return {
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    formatters: { log: (object) => scrubDeep(object, 0) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrub(a) : a)) as Parameters<typeof method>);
      },
    },
  };
}

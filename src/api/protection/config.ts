/**
 * The protection settings of the environment: CORS, rate limits, resource limits, TLS and mutual TLS.
 * Parsed by loadConfig (config.ts) and passed down like the rest; nothing here reads process.env.
 */
import type { Role } from '../../auth/roles.ts';

type Env = Record<string, string | undefined>;

export type RateLimitClass = 'read' | 'write' | 'auth' | 'public';

export interface ProtectionConfig {
  cors: {
    /** Exact origins (scheme://host[:port]) allowed to call from a browser; empty: none. */
    origins: readonly string[];
    /** Access-Control-Allow-Credentials: true (cookies, client certificates) — off unless set. */
    credentials: boolean;
    /** How long a browser may cache a preflight answer. */
    maxAgeSeconds: number;
  };
  rateLimit: {
    windowSeconds: number;
    /** Requests per window for each route class, per principal (or per address when anonymous). */
    perClass: Record<RateLimitClass, number>;
    /** Requests per window from one address that carry credentials, counted before the token is verified. */
    perAddress: number;
    /** Shared counters across instances when set; in-memory otherwise. */
    redisUrl: string | null;
    /** Prefix of the counters' Redis keys (instances that share a limit share it). */
    redisPrefix: string;
  };
  limits: {
    bodyBytes: number;
    jsonDepth: number;
    jsonArrayLength: number;
    headerBytes: number;
    /** Server-side processing time before the request is answered 504. */
    requestTimeoutMs: number;
    /** Back-end calls in flight at once; beyond, 503 with Retry-After. */
    backendConcurrency: number;
    /** Event-loop overload protection; 0 turns a check off. */
    maxEventLoopDelayMs: number;
    maxEventLoopUtilization: number;
    maxHeapUsedBytes: number;
    retryAfterSeconds: number;
  };
  tls: TlsConfig | null;
}

export interface MutualTlsClient {
  /** Principal subject (client id). */
  subject: string;
  role: Exclude<Role, 'customer'>;
}

export interface TlsConfig {
  certFile: string;
  keyFile: string;
  /** Second HTTPS listener that requires a client certificate from MTLS_CA_FILE; null: none. */
  mutual: {
    port: number;
    caFile: string;
    /** Certificate name (subject CN, or a SAN DNS/URI entry) → client identity. */
    clients: ReadonlyMap<string, MutualTlsClient>;
  } | null;
}

export class ProtectionConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, reason: string) {
    super(reason);
    this.variable = variable;
  }
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function whole(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value)) throw new ProtectionConfigError(name, `must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new ProtectionConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return n;
}

function fraction(env: Env, name: string, fallback: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^(0(\.[0-9]+)?|1(\.0+)?)$/.test(value)) throw new ProtectionConfigError(name, `must be a number from 0 to 1, got "${value}"`);
  return Number(value);
}

function bool(env: Env, name: string): boolean {
  const value = raw(env, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ProtectionConfigError(name, `must be true or false, got "${value}"`);
}

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;

function origins(env: Env): string[] {
  const value = raw(env, 'CORS_ORIGINS');
  if (value === undefined) return [];
  return value.split(',').map((o) => o.trim()).filter(Boolean).map((o) => {
    // Exact origins only: a wildcard or a path would widen or blur what is allowed.
    if (!ORIGIN.test(o)) throw new ProtectionConfigError('CORS_ORIGINS', `must list origins like https://app.example.com, got "${o}"`);
    return o.toLowerCase();
  });
}

function mutualClients(value: string): Map<string, MutualTlsClient> {
  const clients = new Map<string, MutualTlsClient>();
  for (const entry of value.split(',').map((e) => e.trim()).filter(Boolean)) {
    const match = /^([^=\s]+)=([A-Za-z0-9._-]{1,64}):(agent|partner)$/.exec(entry);
    if (!match) throw new ProtectionConfigError('MTLS_CLIENTS', `entries are certificate-name=client-id:agent|partner, got "${entry}"`);
    clients.set(match[1]!, { subject: match[2]!, role: match[3] as MutualTlsClient['role'] });
  }
  return clients;
}

function tls(env: Env): TlsConfig | null {
  const certFile = raw(env, 'TLS_CERT_FILE');
  const keyFile = raw(env, 'TLS_KEY_FILE');
  const mtlsPort = raw(env, 'MTLS_PORT');
  if (!certFile !== !keyFile) throw new ProtectionConfigError(certFile ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE', 'must be set together with the other TLS file');
  if (!certFile || !keyFile) {
    if (mtlsPort) throw new ProtectionConfigError('MTLS_PORT', 'needs TLS_CERT_FILE and TLS_KEY_FILE');
    return null;
  }
  if (!mtlsPort) return { certFile, keyFile, mutual: null };
  const caFile = raw(env, 'MTLS_CA_FILE');
  if (!caFile) throw new ProtectionConfigError('MTLS_CA_FILE', 'is required with MTLS_PORT');
  const clients = mutualClients(raw(env, 'MTLS_CLIENTS') ?? '');
  if (clients.size === 0) throw new ProtectionConfigError('MTLS_CLIENTS', 'must name at least one client with MTLS_PORT');
  return { certFile, keyFile, mutual: { port: whole(env, 'MTLS_PORT', 0, 0, 65535), caFile, clients } };
}

function redisPrefix(env: Env): string {
  const value = raw(env, 'RATE_LIMIT_REDIS_PREFIX') ?? 'corebridge:ratelimit:';
  if (!/^[A-Za-z0-9:._-]{1,100}$/.test(value)) throw new ProtectionConfigError('RATE_LIMIT_REDIS_PREFIX', 'must be 1–100 characters of A–Z a–z 0–9 : . _ -');
  return value;
}

export function loadProtectionConfig(env: Env): ProtectionConfig {
  const perClass = whole(env, 'RATE_LIMIT_MAX', 100, 1, 1_000_000);
  const redisUrl = raw(env, 'REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\/\S+$/.test(redisUrl)) throw new ProtectionConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  return {
    cors: {
      origins: origins(env),
      credentials: bool(env, 'CORS_CREDENTIALS'),
      maxAgeSeconds: whole(env, 'CORS_MAX_AGE_SECONDS', 600, 0, 86_400),
    },
    rateLimit: {
      windowSeconds: whole(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
      perClass: {
        read: whole(env, 'RATE_LIMIT_READ_MAX', perClass, 1, 1_000_000),
        write: whole(env, 'RATE_LIMIT_WRITE_MAX', perClass, 1, 1_000_000),
        auth: whole(env, 'RATE_LIMIT_AUTH_MAX', perClass, 1, 1_000_000),
        public: whole(env, 'RATE_LIMIT_PUBLIC_MAX', perClass, 1, 1_000_000),
      },
      perAddress: whole(env, 'RATE_LIMIT_ADDRESS_MAX', 1000, 1, 10_000_000),
      redisUrl,
      redisPrefix: redisPrefix(env),
    },
    limits: {
      bodyBytes: whole(env, 'BODY_LIMIT_BYTES', 16_384, 256, 10_485_760),
      jsonDepth: whole(env, 'JSON_MAX_DEPTH', 10, 2, 1000),
      jsonArrayLength: whole(env, 'JSON_MAX_ARRAY_LENGTH', 100, 1, 1_000_000),
      headerBytes: whole(env, 'MAX_HEADER_BYTES', 16_384, 1024, 1_048_576),
      requestTimeoutMs: whole(env, 'REQUEST_TIMEOUT_MS', 5000, 10, 600_000),
      backendConcurrency: whole(env, 'BACKEND_MAX_CONCURRENT', 64, 1, 100_000),
      maxEventLoopDelayMs: whole(env, 'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', 1000, 0, 60_000),
      maxEventLoopUtilization: fraction(env, 'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION', 0),
      maxHeapUsedBytes: whole(env, 'OVERLOAD_MAX_HEAP_USED_MB', 0, 0, 1_048_576) * 1_048_576,
      retryAfterSeconds: whole(env, 'OVERLOAD_RETRY_AFTER_SECONDS', 5, 1, 3600),
    },
    tls: tls(env),
  };
}

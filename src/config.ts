/**
 * Configuration from environment variables (and an optional .env file), parsed once at startup and
 * passed down. Nothing else reads process.env.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { isLinkedProgram, LINKED_PROGRAMS, type LinkedProgramName } from './backend/copybooks/index.ts';
import { loadProtectionConfig, ProtectionConfigError, type ProtectionConfig } from './api/protection/config.ts';
import { DEV_API_CLIENT_NAME, devPkiFiles } from './tls/dev-files.ts';
import { parseBackendUrl } from './transport/tcp/client.ts';

export type BackendTransportKind = 'worker' | 'in-process';
const BACKEND_TRANSPORTS: readonly BackendTransportKind[] = ['worker', 'in-process'];

export type BackendReads = 'api-thread' | 'worker';
const BACKEND_READS: readonly BackendReads[] = ['api-thread', 'worker'];

/** PEM files of one side of a mutual-TLS hop: its own certificate and key, and the CA it trusts for the other side. */
export interface TlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** `pretty`: readable lines for a terminal (pino-pretty); `json`: one JSON object per line, for files, pipes and collectors. */
export type LogFormat = 'pretty' | 'json';
const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

export interface Config {
  port: number;
  host: string;
  /** Absolute directory holding the SQLite files and the development issuer's key. */
  dataDir: string;
  logLevel: LogLevel;
  /** LOG_FORMAT; default `pretty` when stdout is a terminal, else `json`. */
  logFormat: LogFormat;
  /** Prometheus text at /metrics on a listener of its own (METRICS_HOST, METRICS_PORT); null: METRICS_PORT=0, none. */
  metrics: { host: string; port: number } | null;
  /**
   * OpenTelemetry tracing (src/observability/tracing.ts); null: off, no OTLP endpoint configured
   * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), or OTEL_SDK_DISABLED=true.
   */
  tracing: { tracesEndpoint: string; serviceName: string } | null;
  auth: {
    /**
     * `iss` of the accepted tokens: the embedded OpenID provider's public URL (served under /oauth), or
     * the external issuer when one is configured.
     */
    issuer: string;
    /** `aud` our access tokens must carry; the embedded provider's resource indicator for this API. */
    audience: string;
    /** An external OpenID provider (AUTH_EXTERNAL_ISSUER): verification uses its discovery and JWKS; the embedded one is off. */
    external: boolean;
    /** Lifetime of the access tokens the embedded provider issues, seconds (5–15 minutes). */
    accessTokenTtlSeconds: number;
    /** Redirect URIs of the public demo client (authorization code + PKCE). */
    demoRedirectUris: readonly string[];
    /** A JWKS file of public keys: registers the partner client `acme-shop-jwt` (private_key_jwt). */
    partnerJwksFile: string | null;
    /** Claims holding the role and the customer binding in an external issuer's tokens (often namespaced there). */
    roleClaim: string;
    customerIdClaim: string;
    /** Least time between two fetches of an external issuer's JWKS (an unknown `kid` triggers one), seconds. */
    jwksCooldownSeconds: number;
    /** Allowed clock skew for exp/nbf, seconds. */
    clockToleranceSeconds: number;
    /** Verified tokens kept in memory until they expire (hot path). */
    tokenCacheSize: number;
  };
  idempotency: {
    /** How long a key and its response are kept. */
    ttlSeconds: number;
    /**
     * How long an in-flight key answers 409 before its holder is presumed crashed and a retry may run
     * it again (safe: the back-end finds an effect already committed under the key).
     */
    leaseMs: number;
    /** Prefix of the records' Redis keys when REDIS_URL is set (IDEMPOTENCY_REDIS_PREFIX). */
    redisPrefix: string;
  };
  backend: {
    /**
     * How the API reaches the embedded back-end: `worker` (default) runs it in a worker thread, off the
     * API's event loop, with group commit; `in-process` runs it on the API's thread (tests, debugging).
     */
    transport: BackendTransportKind;
    /**
     * With the worker: where inquiries run. `api-thread` reads from a read-only SQLite connection on the
     * API's thread (no thread crossing; WAL readers do not wait for the writer); `worker` sends them too.
     */
    reads: BackendReads;
    /**
     * Linked programs that run as compiled GnuCOBOL in the COBOL program host instead of their TypeScript
     * version (PROGRAMS_COBOL, e.g. `LNDECIDE`); empty: all TypeScript, no cobc needed.
     */
    cobolPrograms: readonly LinkedProgramName[];
    /** Where their sources (`<PROGRAM>.cbl`) are (COBOL_SOURCE_DIR); default: the ones Corebridge ships, src/backend/cobol. */
    cobolSourceDir: string | null;
    /** Host processes, so COBOL calls in flight at once (COBOL_HOSTS). */
    cobolHosts: number;
    /** Time limit of one COBOL program call (COBOL_CALL_TIMEOUT_MS); a call over it answers 504. */
    cobolCallTimeoutMs: number;
    /**
     * Back-end services this API calls over mutual TLS (BACKEND_URL, tls://host:port, several round-robin);
     * empty: the embedded back-end, and the settings above apply here.
     */
    urls: readonly string[];
    /** This API's client certificate and the CA of the back-ends (BACKEND_TLS_*; default the development PKI). */
    clientTls: TlsFiles;
    /** Connections kept open to each back-end service (BACKEND_CONNECTIONS). */
    connections: number;
    /** Time limit of one call to a back-end service (BACKEND_CALL_TIMEOUT_MS); over it, 504. */
    callTimeoutMs: number;
    /**
     * The back-end's PostgreSQL database (DATABASE_URL, postgres://…), shared by every back-end instance;
     * null: the embedded SQLite file DATA_DIR/backend.sqlite.
     */
    databaseUrl: string | null;
    /** Connections of this back-end instance to PostgreSQL (DATABASE_POOL_SIZE). */
    databasePoolSize: number;
  };
  /** The back-end service role (`corebridge backend serve`). */
  backendService: {
    /** Where it listens for API instances (BACKEND_LISTEN, host:port). */
    host: string;
    port: number;
    /** Its server certificate and the CA its clients' certificates must chain to (BACKEND_TLS_*). */
    tls: TlsFiles;
    /** Client certificate names (CN or SAN) allowed to call (BACKEND_ALLOWED_CLIENTS). */
    allowedClients: ReadonlySet<string>;
  };
  /**
   * A directory of service files (SERVICES_DIR): operations served by COBOL programs, declared from their
   * copybooks (src/api/services/); null: none.
   */
  servicesDir: string | null;
  /** CORS, rate limits, resource limits, TLS and mutual TLS (src/api/protection/config.ts). */
  protection: ProtectionConfig;
  /** The event relay (src/events/relay.ts). */
  events: {
    /** RabbitMQ (BROKER_URL, amqp://user:password@host:5672); null: no broker, the events feed only. */
    brokerUrl: string | null;
    /** How often an idle relay looks for new events (EVENTS_POLL_MS); changes made through this instance wake it at once. */
    pollMs: number;
    /** How long a relay's lease lasts without a turn (EVENTS_LEASE_SECONDS); a standby instance's relay takes over after it. */
    leaseSeconds: number;
  };
  /** Webhook delivery (src/events/webhooks.ts). */
  webhooks: {
    /**
     * Waits after each failed attempt, ms (WEBHOOK_RETRY_SCHEDULE, e.g. `5s,5m,30m`): after the last one the
     * delivery has failed. Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts over about 28 hours).
     */
    retryScheduleMs: readonly number[];
    /** Plain http endpoints allowed (WEBHOOK_ALLOW_HTTP; development). */
    allowHttp: boolean;
    /** Internal ranges endpoints may be in after all (WEBHOOK_ALLOWED_CIDRS, e.g. 127.0.0.1/32; development). */
    allowedCidrs: readonly string[];
    /** Ports endpoints may use (WEBHOOK_ALLOWED_PORTS, comma-separated; default 443, and 80 with http). */
    allowedPorts: readonly number[] | null;
    /** Attempts in flight at once per subscription (WEBHOOK_CONCURRENCY_PER_ENDPOINT): a slow endpoint holds up no other. */
    concurrencyPerEndpoint: number;
  };
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, reason: string) {
    super(`invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${raw}`);
  return value;
}

function text(env: Env, name: string, fallback: string, pattern?: RegExp): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (pattern && !pattern.test(raw)) throw new ConfigError(name, `has an invalid value "${raw}"`);
  return raw;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, values: readonly T[]): T {
  const raw = text(env, name, fallback);
  if (!values.includes(raw as T)) throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function programList(env: Env, name: string): LinkedProgramName[] {
  const names = text(env, name, '').split(/[\s,]+/).filter(Boolean).map((n) => n.toUpperCase());
  for (const n of names) {
    if (!isLinkedProgram(n)) throw new ConfigError(name, `names no linked program: "${n}" (known: ${Object.keys(LINKED_PROGRAMS).join(', ')})`);
  }
  return [...new Set(names)] as LinkedProgramName[];
}

function backendUrls(env: Env): string[] {
  const urls = text(env, 'BACKEND_URL', '').split(/[\s,]+/).filter(Boolean);
  for (const url of urls) {
    try {
      parseBackendUrl(url);
    } catch (error) {
      throw new ConfigError('BACKEND_URL', `lists ${(error as Error).message}`);
    }
  }
  return urls;
}

function databaseUrl(env: Env): string | null {
  const raw = text(env, 'DATABASE_URL', '');
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL', 'is not a URL (postgres://user@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL', `must be a postgres:// URL, got "${url.protocol}"`);
  }
  if (url.pathname.length <= 1) throw new ConfigError('DATABASE_URL', 'names no database (postgres://host:5432/corebridge)');
  return raw;
}

function brokerUrl(env: Env): string | null {
  const raw = text(env, 'BROKER_URL', '');
  if (!raw) return null;
  if (!URL.canParse(raw) || !/^amqps?:$/.test(new URL(raw).protocol)) {
    throw new ConfigError('BROKER_URL', 'must be an amqp:// or amqps:// URL (amqp://user:password@host:5672)');
  }
  return raw;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s,5m,30m,2h` → milliseconds. */
function durationList(env: Env, name: string, fallback: string): number[] {
  return text(env, name, fallback).split(',').map((part) => {
    const match = /^\s*([0-9]{1,6})(ms|s|m|h|d)\s*$/.exec(part);
    if (!match) throw new ConfigError(name, `must be durations like 5s,5m,2h separated by commas, got "${part}"`);
    return Number(match[1]) * DURATION_UNITS[match[2]!]!;
  });
}

function cidrList(env: Env, name: string): string[] {
  const cidrs = text(env, name, '').split(/[\s,]+/).filter(Boolean);
  for (const cidr of cidrs) if (!/^[0-9a-fA-F:.]+(\/[0-9]{1,3})?$/.test(cidr)) throw new ConfigError(name, `lists "${cidr}", which is not an address range`);
  return cidrs;
}

function portList(env: Env, name: string): number[] | null {
  const raw = text(env, name, '');
  if (!raw) return null;
  return raw.split(/[\s,]+/).filter(Boolean).map((p) => {
    if (!/^[0-9]{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535) throw new ConfigError(name, `lists "${p}", which is not a port`);
    return Number(p);
  });
}

function listenAddress(env: Env, name: string, fallback: string): { host: string; port: number } {
  const raw = text(env, name, fallback);
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(raw);
  if (!match || Number(match[2]) > 65535) throw new ConfigError(name, `must be host:port, got "${raw}"`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
}

/** BACKEND_TLS_* when set, else the development PKI's files for this role (`npm run certs`). */
function tlsFiles(env: Env, dataDir: string, role: 'api' | 'backend'): TlsFiles {
  const dev = devPkiFiles(dataDir);
  const certFile = text(env, 'BACKEND_TLS_CERT', '');
  const keyFile = text(env, 'BACKEND_TLS_KEY', '');
  if (!certFile !== !keyFile) throw new ConfigError(certFile ? 'BACKEND_TLS_KEY' : 'BACKEND_TLS_CERT', 'must be set together with the other one');
  return {
    caFile: resolve(text(env, 'BACKEND_TLS_CA', dev.caCert)),
    certFile: resolve(certFile || (role === 'api' ? dev.apiCert : dev.backendCert)),
    keyFile: resolve(keyFile || (role === 'api' ? dev.apiKey : dev.backendKey)),
  };
}

function protectionConfig(env: Env): ProtectionConfig {
  try {
    return loadProtectionConfig(env);
  } catch (error) {
    if (error instanceof ProtectionConfigError) throw new ConfigError(error.variable, error.message);
    throw error;
  }
}

function metricsListener(env: Env): Config['metrics'] {
  const port = integer(env, 'METRICS_PORT', 9464, 0, 65535);
  if (port === 0) return null;
  return { port, host: text(env, 'METRICS_HOST', '127.0.0.1', /^[A-Za-z0-9.:\-[\]]+$/) };
}

/**
 * The OTLP/HTTP traces URL as OpenTelemetry derives it: the traces endpoint as given, or the base endpoint
 * with /v1/traces appended.
 */
function tracing(env: Env): Config['tracing'] {
  if (oneOf(env, 'OTEL_SDK_DISABLED', 'false', ['true', 'false']) === 'true') return null;
  const url = (name: string) => {
    const raw = text(env, name, '');
    if (raw && (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol))) throw new ConfigError(name, `must be an http:// or https:// URL, got "${raw}"`);
    return raw;
  };
  const traces = url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = url('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!traces && !base) return null;
  return {
    tracesEndpoint: traces || `${base.replace(/\/+$/, '')}/v1/traces`,
    serviceName: text(env, 'OTEL_SERVICE_NAME', 'corebridge'),
  };
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_DATA_DIR = './data';

/** Parses and checks every variable; throws ConfigError naming the first bad one. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', DEFAULT_PORT, 0, 65535);
  const host = text(env, 'HOST', '0.0.0.0', /^[A-Za-z0-9.:\-[\]]+$/);
  const dataDir = resolve(text(env, 'DATA_DIR', DEFAULT_DATA_DIR));
  const logLevel = oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS);
  // Readable lines for a person at a terminal; JSON for anything that reads them back.
  const logFormat = oneOf(env, 'LOG_FORMAT', process.stdout.isTTY ? 'pretty' : 'json', LOG_FORMATS);
  const externalIssuer = text(env, 'AUTH_EXTERNAL_ISSUER', '', /^https?:\/\/\S+$/);
  if (externalIssuer && !env['AUTH_AUDIENCE']) throw new ConfigError('AUTH_AUDIENCE', 'must be set with AUTH_EXTERNAL_ISSUER');
  const issuer = externalIssuer || text(env, 'AUTH_ISSUER', `http://localhost:${port === 0 ? DEFAULT_PORT : port}/oauth`, /^https?:\/\/\S+$/);
  const redirectUris = text(env, 'AUTH_DEMO_REDIRECT_URIS', 'http://localhost:3000/callback http://127.0.0.1:3000/callback')
    .split(/\s+/).filter(Boolean);
  for (const uri of redirectUris) if (!URL.canParse(uri)) throw new ConfigError('AUTH_DEMO_REDIRECT_URIS', `has an invalid URI "${uri}"`);
  const partnerJwks = text(env, 'AUTH_PARTNER_JWKS_FILE', '');
  return {
    port,
    host,
    dataDir,
    logLevel,
    logFormat,
    metrics: metricsListener(env),
    tracing: tracing(env),
    auth: {
      issuer: issuer.replace(/\/+$/, ''),
      // The embedded provider's audience is a resource indicator (RFC 8707: an absolute URI); an external one names its own.
      audience: text(env, 'AUTH_AUDIENCE', 'urn:corebridge:api', externalIssuer ? /^\S{1,200}$/ : /^[A-Za-z][A-Za-z0-9+.-]*:[^\s#]{1,200}$/),
      external: externalIssuer !== '',
      accessTokenTtlSeconds: integer(env, 'AUTH_ACCESS_TOKEN_TTL_SECONDS', 600, 300, 900),
      demoRedirectUris: redirectUris,
      partnerJwksFile: partnerJwks ? resolve(partnerJwks) : null,
      roleClaim: text(env, 'AUTH_ROLE_CLAIM', 'role', /^[A-Za-z0-9_:/.\-]{1,200}$/),
      customerIdClaim: text(env, 'AUTH_CUSTOMER_ID_CLAIM', 'customer_id', /^[A-Za-z0-9_:/.\-]{1,200}$/),
      jwksCooldownSeconds: integer(env, 'AUTH_JWKS_COOLDOWN_SECONDS', 30, 1, 3600),
      clockToleranceSeconds: integer(env, 'AUTH_CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
      tokenCacheSize: integer(env, 'AUTH_TOKEN_CACHE_SIZE', 10_000, 0, 1_000_000),
    },
    idempotency: {
      ttlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 86_400, 60, 30 * 86_400),
      leaseMs: integer(env, 'IDEMPOTENCY_LEASE_MS', 10_000, 100, 600_000),
      redisPrefix: text(env, 'IDEMPOTENCY_REDIS_PREFIX', 'corebridge:idempotency:', /^[A-Za-z0-9:._-]{1,100}$/),
    },
    backend: {
      transport: oneOf(env, 'BACKEND_TRANSPORT', 'worker', BACKEND_TRANSPORTS),
      reads: oneOf(env, 'BACKEND_READS', 'api-thread', BACKEND_READS),
      cobolPrograms: programList(env, 'PROGRAMS_COBOL'),
      cobolSourceDir: env['COBOL_SOURCE_DIR'] ? resolve(env['COBOL_SOURCE_DIR']) : null,
      cobolHosts: integer(env, 'COBOL_HOSTS', 2, 1, 64),
      cobolCallTimeoutMs: integer(env, 'COBOL_CALL_TIMEOUT_MS', 2000, 10, 600_000),
      urls: backendUrls(env),
      clientTls: tlsFiles(env, dataDir, 'api'),
      connections: integer(env, 'BACKEND_CONNECTIONS', 2, 1, 64),
      // Below the request's own time limit (REQUEST_TIMEOUT_MS, 5 s), so the client learns it was the back-end.
      callTimeoutMs: integer(env, 'BACKEND_CALL_TIMEOUT_MS', 4000, 10, 600_000),
      databaseUrl: databaseUrl(env),
      databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    },
    backendService: {
      ...listenAddress(env, 'BACKEND_LISTEN', '127.0.0.1:7443'),
      tls: tlsFiles(env, dataDir, 'backend'),
      allowedClients: new Set(text(env, 'BACKEND_ALLOWED_CLIENTS', DEV_API_CLIENT_NAME).split(/[\s,]+/).filter(Boolean)),
    },
    servicesDir: env['SERVICES_DIR'] ? resolve(env['SERVICES_DIR']) : null,
    protection: protectionConfig(env),
    events: {
      brokerUrl: brokerUrl(env),
      pollMs: integer(env, 'EVENTS_POLL_MS', 250, 10, 60_000),
      leaseSeconds: integer(env, 'EVENTS_LEASE_SECONDS', 10, 1, 600),
    },
    webhooks: {
      retryScheduleMs: durationList(env, 'WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,10h'),
      allowHttp: oneOf(env, 'WEBHOOK_ALLOW_HTTP', 'false', ['true', 'false']) === 'true',
      allowedCidrs: cidrList(env, 'WEBHOOK_ALLOWED_CIDRS'),
      allowedPorts: portList(env, 'WEBHOOK_ALLOWED_PORTS'),
      concurrencyPerEndpoint: integer(env, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 16, 1, 64),
    },
  };
}

/**
 * Values from a .env file, without overriding variables already set in the environment.
 * Missing file → empty; a file that does not parse is reported by Node.
 */
export function readEnvFile(path = '.env'): Env {
  if (!existsSync(path)) return {};
  return parseEnv(readFileSync(path, 'utf8'));
}

/** The environment a process runs with: .env values under the real environment. */
export function processEnv(envFile = '.env'): Env {
  return { ...readEnvFile(envFile), ...process.env };
}

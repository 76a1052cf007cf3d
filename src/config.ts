/**
 * The configuration: each area's settings (declared beside its code) read from the environment once at
 * startup and passed down. Only entry modules import this; nothing else reads process.env.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import {
  DEFAULT_PORT,
  IDEMPOTENCY_SETTINGS,
  loadIdempotencySettings,
  loadServerSettings,
  loadServicesDir,
  SERVER_SETTINGS,
  SERVICES_SETTINGS,
  type IdempotencySettings,
  type ServerSettings,
} from './api/settings.ts';
import {
  CORS_SETTINGS,
  LIMIT_SETTINGS,
  loadProtectionConfig,
  RATE_LIMIT_SETTINGS,
  TLS_SETTINGS,
  type ProtectionConfig,
} from './api/protection/config.ts';
import { loadStoreSettings, STORE_SETTINGS, type StoreSettings } from './backend/store/settings.ts';
import {
  EVENTS_SETTINGS,
  loadEventsSettings,
  loadWebhookSettings,
  WEBHOOK_SETTINGS,
  type EventsSettings,
  type WebhookSettings,
} from './events/settings.ts';
import { IDENTITY_SETTINGS, loadIdentitySettings, type IdentitySettings } from './identity/settings.ts';
import { loadLoggingSettings, LOGGING_SETTINGS, type LoggingSettings } from './logging/settings.ts';
import {
  loadMetricsSettings,
  loadTracingSettings,
  OBSERVABILITY_SETTINGS,
  type MetricsSettings,
  type TracingSettings,
} from './observability/settings.ts';
import { loadProductionMode, PRODUCTION_SETTINGS } from './settings/production-mode.ts';
import type { Env, SettingsSection } from './settings/schema.ts';
import {
  BACKEND_SERVICE_SETTINGS,
  COBOL_SETTINGS,
  loadBackendServiceSettings,
  loadTransportSettings,
  TRANSPORT_SETTINGS,
  type BackendServiceSettings,
  type TransportSettings,
} from './transport/settings.ts';

export { DEFAULT_DATA_DIR, DEFAULT_PORT } from './api/settings.ts';
export { ConfigError, type Env } from './settings/schema.ts';

/** Every area's settings, in the order .env.example and docs/settings.md list them. */
export const SETTINGS_SECTIONS: readonly SettingsSection[] = [
  PRODUCTION_SETTINGS,
  SERVER_SETTINGS,
  LOGGING_SETTINGS,
  OBSERVABILITY_SETTINGS,
  IDENTITY_SETTINGS,
  IDEMPOTENCY_SETTINGS,
  TRANSPORT_SETTINGS,
  STORE_SETTINGS,
  BACKEND_SERVICE_SETTINGS,
  COBOL_SETTINGS,
  SERVICES_SETTINGS,
  EVENTS_SETTINGS,
  WEBHOOK_SETTINGS,
  CORS_SETTINGS,
  RATE_LIMIT_SETTINGS,
  LIMIT_SETTINGS,
  TLS_SETTINGS,
];

export interface Config extends ServerSettings, LoggingSettings {
  /** NODE_ENV=production: the serving processes refuse the demo's defaults (src/production.ts). */
  production: boolean;
  metrics: MetricsSettings;
  /** OpenTelemetry tracing (src/observability/tracing.ts); null: off. */
  tracing: TracingSettings | null;
  auth: IdentitySettings;
  idempotency: IdempotencySettings;
  backend: TransportSettings & StoreSettings;
  backendService: BackendServiceSettings;
  /** Service files (SERVICES_DIR): operations served by COBOL programs (src/api/services/); null: none. */
  servicesDir: string | null;
  /** CORS, rate limits, resource limits, TLS and mutual TLS (src/api/protection/config.ts). */
  protection: ProtectionConfig;
  events: EventsSettings;
  webhooks: WebhookSettings;
}

/** Parses and checks every variable; throws ConfigError naming the first bad one. */
export function loadConfig(env: Env = process.env): Config {
  const server = loadServerSettings(env);
  const logging = loadLoggingSettings(env);
  const auth = loadIdentitySettings(env, server.port, DEFAULT_PORT);
  return {
    production: loadProductionMode(env),
    ...server,
    ...logging,
    metrics: loadMetricsSettings(env),
    tracing: loadTracingSettings(env),
    auth,
    idempotency: loadIdempotencySettings(env),
    backend: { ...loadTransportSettings(env, server.dataDir), ...loadStoreSettings(env) },
    backendService: loadBackendServiceSettings(env, server.dataDir),
    servicesDir: loadServicesDir(env),
    protection: loadProtectionConfig(env),
    events: loadEventsSettings(env),
    webhooks: loadWebhookSettings(env),
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

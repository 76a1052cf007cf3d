/**
 * What the server says once it listens: a URL a person can open, the docs and contract, how to get a token,
 * where the demo credentials are, the metrics URL. A short block in pretty logs; one structured line in JSON.
 */
import { resolve } from 'node:path';
import { DEMO_IDENTITIES } from './auth/roles.ts';
import { DEFAULT_DATA_DIR, DEFAULT_PORT, type Config } from './config.ts';
import { credentialsFile } from './identity/credentials.ts';

const DEMO_SUBJECTS = DEMO_IDENTITIES.map((i) => i.subject).join('|');

/** A host a browser can open: the wildcard addresses become localhost; IPv6 literals get brackets. */
export function openableHost(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === '::' || host === '[::]') return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export interface StartupFacts {
  url: string;
  docs: string;
  openapi: string;
  /** How to get an access token for a demo identity (embedded identity provider only). */
  tokenCommand: string | null;
  /** The demo users' passwords and the partner client's secret (embedded identity provider only). */
  credentialsFile: string | null;
  /** The external issuer that signs the tokens, when there is one. */
  issuer: string;
  metrics: string | null;
  tracesEndpoint: string | null;
}

/**
 * The settings `npm run token` must share with this server when they are not the defaults (it reads .env too,
 * but not the variables this server was started with): the issuer follows PORT, the signing key DATA_DIR.
 */
function tokenSettings(config: Config): string {
  const settings: string[] = [];
  if (config.port !== DEFAULT_PORT && config.port !== 0) settings.push(`PORT=${config.port}`);
  if (config.dataDir !== resolve(DEFAULT_DATA_DIR)) settings.push(`DATA_DIR=${config.dataDir}`);
  return settings.map((s) => `${s} `).join('');
}

export function startupFacts(config: Config, ports: { api: number; metrics: number | null }): StartupFacts {
  const url = `${config.protection.tls ? 'https' : 'http'}://${openableHost(config.host)}:${ports.api}`;
  // The demo identities: the embedded provider without the operator's accounts file.
  const embedded = !config.auth.external && !config.auth.accountsFile;
  const metricsHost = config.metrics ? openableHost(config.metrics.host) : null;
  return {
    url,
    docs: `${url}/docs`,
    openapi: `${url}/openapi.json`,
    tokenCommand: embedded ? `${tokenSettings(config)}npm run token -- <${DEMO_SUBJECTS}>` : null,
    credentialsFile: embedded ? credentialsFile(config.dataDir) : null,
    issuer: config.auth.issuer,
    metrics: metricsHost !== null && ports.metrics !== null ? `http://${metricsHost}:${ports.metrics}/metrics` : null,
    tracesEndpoint: config.tracing?.tracesEndpoint ?? null,
  };
}

/** The block pretty logs show (the message of one log line). */
export function startupBlock(facts: StartupFacts): string {
  const rows: Array<[string, string]> = [
    ['API', facts.url],
    ['Docs', facts.docs],
    ['OpenAPI', facts.openapi],
    facts.tokenCommand ? ['Token', facts.tokenCommand] : ['Tokens', `from ${facts.issuer}`],
  ];
  if (facts.credentialsFile) rows.push(['Demo logins', facts.credentialsFile]);
  rows.push(['Metrics', facts.metrics ?? 'off (METRICS_PORT=0)']);
  if (facts.tracesEndpoint) rows.push(['Traces', `to ${facts.tracesEndpoint}`]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return ['Corebridge is ready', ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)].join('\n');
}

/**
 * Production mode (NODE_ENV=production): the start-up refuses the demo's defaults. Each rule looks at the loaded
 * configuration and names the setting to give; all problems are reported at once, so an operator fixes them in
 * one pass. One rule per row of PRODUCTION_RULES; docs/production.md lists them.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig, type Config, type Env } from './config.ts';
import { isSet } from './settings/schema.ts';
import { DEV_CA_NAME, devPkiFiles } from './tls/dev-files.ts';
import { isLoopbackHostname } from './loopback.ts';

/** What is being started: the API (server.ts), or a back-end service (`corebridge backend serve`). */
export type ProcessRole = 'api' | 'backend';

export interface ProductionProblem {
  /** The environment variable to set (or change). */
  setting: string;
  /** What is wrong and what to give instead. */
  message: string;
}

export interface ProductionRule {
  /** Short name, for docs/production.md and tests. */
  name: string;
  /** `env`: the variables as given, for what the configuration alone cannot tell (a default or a value set). */
  check(config: Config, role: ProcessRole, env: Env): ProductionProblem[];
}

export class ProductionConfigError extends ConfigError {
  readonly problems: readonly ProductionProblem[];
  constructor(problems: readonly ProductionProblem[]) {
    super(problems[0]!.setting, problems[0]!.message);
    this.name = 'ProductionConfigError';
    this.problems = problems;
    this.message = [
      `production mode (NODE_ENV=production) refuses this configuration; ${problems.length} to fix:`,
      ...problems.map((p) => `  ${p.setting}: ${p.message}`),
    ].join('\n');
  }
}

/** The example and well-known default passwords of the services Corebridge talks to. */
const EXAMPLE_PASSWORDS = new Set([
  'password',
  'passwd',
  'secret',
  'changeme',
  'change-me',
  'example',
  'guest',
  'postgres',
  'admin',
  'root',
  'test',
  'redis',
  'rabbitmq',
  'corebridge',
  '123456',
]);

/** A PEM certificate file's subject and issuer mention the development CA; unreadable files are left to TLS. */
function issuedByDevCa(file: string): boolean {
  try {
    const cert = new X509Certificate(readFileSync(file));
    return [cert.subject, cert.issuer].some((name) => name.split('\n').includes(`CN=${DEV_CA_NAME}`));
  } catch {
    return false;
  }
}

/**
 * The problems of one certificate, key or CA setting: unset where the default is the development PKI's file, or
 * a certificate its CA issued (wherever the file is).
 */
function certificateProblems(
  config: Config,
  env: Env,
  setting: string,
  file: string,
  what: string,
): ProductionProblem[] {
  if (!isSet(env, setting) && Object.values(devPkiFiles(config.dataDir)).includes(file)) {
    return [{ setting, message: `is unset, so the development PKI's ${file} would be used: give ${what}` }];
  }
  if (issuedByDevCa(file)) {
    return [{ setting, message: `${file} comes from the development CA: give ${what} from your own PKI` }];
  }
  return [];
}

function urlPasswordProblems(setting: string, value: string | null | undefined): ProductionProblem[] {
  if (!value || !URL.canParse(value)) return [];
  const url = new URL(value);
  // A malformed escape is compared as written: this check never stops start-up with an error of its own.
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const user = decode(url.username);
  const password = decode(url.password);
  if (password && (EXAMPLE_PASSWORDS.has(password.toLowerCase()) || password === user)) {
    return [{ setting, message: 'holds an example or default password: give the real credentials' }];
  }
  return [];
}

export const PRODUCTION_RULES: readonly ProductionRule[] = [
  {
    name: 'no demo users and clients',
    check: (config, role) =>
      role === 'api' && !config.auth.external && !config.auth.accountsFile
        ? [
            {
              setting: 'AUTH_ACCOUNTS_FILE',
              message:
                'the demo users and clients are refused: give your users and clients in this file, ' +
                'or AUTH_EXTERNAL_ISSUER (your OpenID provider)',
            },
          ]
        : [],
  },
  {
    name: 'no development webhook secret key',
    // The generated key sits in DATA_DIR beside the store it protects, and each instance would make its own.
    check: (config, role) =>
      role === 'api' && config.webhooks.developmentSecretKey
        ? [
            {
              setting: 'WEBHOOK_SECRET_KEY',
              message:
                'webhook signing secrets would be sealed with a development key generated into DATA_DIR: ' +
                'give the keyring here, or in the file WEBHOOK_SECRET_KEY_FILE, the same on every API instance',
            },
          ]
        : [],
  },
  {
    name: 'no plain http issuer beyond loopback',
    check(config, role) {
      const url = URL.parse(config.auth.issuer);
      if (role !== 'api' || url?.protocol !== 'http:' || isLoopbackHostname(url.hostname)) return [];
      const setting = config.auth.external ? 'AUTH_EXTERNAL_ISSUER' : 'AUTH_ISSUER';
      return [{ setting, message: `${config.auth.issuer} is plain http on a network host: give an https: URL` }];
    },
  },
  {
    name: 'no development PKI for TLS and mutual TLS',
    check(config, role, env) {
      const problems: ProductionProblem[] = [];
      const tls = config.protection.tls;
      if (role === 'api' && tls) {
        problems.push(...certificateProblems(config, env, 'TLS_CERT_FILE', tls.certFile, 'the server certificate'));
        problems.push(...certificateProblems(config, env, 'TLS_KEY_FILE', tls.keyFile, "the server certificate's key"));
        if (tls.mutual) {
          problems.push(...certificateProblems(config, env, 'MTLS_CA_FILE', tls.mutual.caFile, "your clients' CA"));
        }
      }
      // The API's client side of the back-end hop, or the back-end service's server side: both default to the
      // development PKI's files.
      const hop =
        role === 'backend'
          ? config.backendService.tls
          : config.backend.urls.length > 0
            ? config.backend.clientTls
            : null;
      if (hop) {
        const own = role === 'backend' ? "the back-end service's certificate" : "this API's client certificate";
        const peer = role === 'backend' ? "the API instances' CA" : "the back-end services' CA";
        problems.push(...certificateProblems(config, env, 'BACKEND_TLS_CA', hop.caFile, peer));
        problems.push(...certificateProblems(config, env, 'BACKEND_TLS_CERT', hop.certFile, own));
        problems.push(...certificateProblems(config, env, 'BACKEND_TLS_KEY', hop.keyFile, `the key of ${own}`));
      }
      return problems;
    },
  },
  {
    name: 'no example or default secrets',
    check(config, _role, env) {
      const otel = isSet(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
        ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
        : 'OTEL_EXPORTER_OTLP_ENDPOINT';
      const problems = [
        ...urlPasswordProblems('DATABASE_URL', config.backend.databaseUrl),
        ...urlPasswordProblems('REDIS_URL', config.protection.rateLimit.redisUrl),
        ...urlPasswordProblems('BROKER_URL', config.events.brokerUrl),
        ...urlPasswordProblems(otel, config.tracing?.tracesEndpoint),
      ];
      // Without credentials, the AMQP client signs in as RabbitMQ's default guest:guest.
      const broker = config.events.brokerUrl ? URL.parse(config.events.brokerUrl) : null;
      if (broker && !broker.password) {
        problems.push({
          setting: 'BROKER_URL',
          message: "has no user and password, so RabbitMQ's default guest:guest would be used: give the real ones",
        });
      }
      return problems;
    },
  },
];

/** Every problem the rules find; none outside production mode. */
export function productionProblems(config: Config, role: ProcessRole, env: Env): ProductionProblem[] {
  if (!config.production) return [];
  return PRODUCTION_RULES.flatMap((rule) => rule.check(config, role, env));
}

/** Throws one ProductionConfigError listing every problem, when there is any. */
export function refuseInProduction(config: Config, role: ProcessRole, env: Env): void {
  const problems = productionProblems(config, role, env);
  if (problems.length > 0) throw new ProductionConfigError(problems);
}

/** The configuration of a process that serves (the API, a back-end service): loaded, then checked for production. */
export function loadServingConfig(env: Env, role: ProcessRole): Config {
  const config = loadConfig(env);
  refuseInProduction(config, role, env);
  return config;
}

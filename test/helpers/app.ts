/**
 * The real app in-process on a fresh DATA_DIR, closed after the test; when asked, back-end services over mutual TLS
 * (TEST_BACKEND=tls), a fresh PostgreSQL database (TEST_DATABASE=postgres), or two API instances sharing Redis
 * (TEST_API_INSTANCES=2), requests alternating between them as behind a round-robin balancer. TEST_PRODUCTION=1:
 * production mode with a complete production configuration, checked as server.ts checks it (productionRun below).
 */
import { assertContract } from './contract.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { ROLE_SCOPES, findDemoIdentity } from '../../src/auth/roles.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { openEmbeddedBackend } from '../../src/transport/open.ts';
import { loadServingConfig } from '../../src/production.ts';
import { loadDemoData, StoreNotEmptyError } from '../../src/cli/demo-data.ts';
import { devPkiFiles } from '../../src/tls/dev-files.ts';
import type { DevIssuer } from '../../src/auth/dev-issuer.ts';
import { startSigningIssuer } from './fake-issuer.ts';
import { testOnPostgres } from './backend-store.ts';
import { createTestDatabase, dropTestDatabases } from '../../support/database.ts';
import { startBackendService, testPki, writeDevPki, type RunningService } from './backend-service.ts';

// Registered as the file loads, so it runs after the file's last test, once every app and back-end has closed.
after(dropTestDatabases);

export interface TestApp {
  /** The API instance (the first one, when there are several). */
  app: App;
  /** Every API instance; `request` goes to each in turn. */
  apps: App[];
  config: Config;
  dataDir: string;
  /** Every log line written so far, parsed (the back-end service's too, when there is one). */
  logs: Array<Record<string, unknown>>;
  /** The back-end services the app calls over mutual TLS, when started with them (else none). */
  backendServices: RunningService[];
  /** Closes every API instance and builds them again on the same data and database, as restarting the API does. */
  restart(): Promise<void>;
  token(
    subject: string,
    options?: { scopes?: string[]; ttlSeconds?: number; issuedAt?: number; audience?: string },
  ): Promise<string>;
  request(options: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    url: string;
    as?: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse>;
}

export interface StartOptions {
  /**
   * Runs on the fresh DATA_DIR before the app is built (for example to write the identity credentials);
   * may return more environment variables (paths of files it wrote there).
   */
  beforeBuild?(dataDir: string): Record<string, string> | void;
  /**
   * Reach the back-end as two services over mutual TLS on one store (BACKEND_URL, the development PKI's
   * default files) instead of embedded. Default: TEST_BACKEND=tls in the environment (`npm run test:tls`), unless
   * the test sets BACKEND_URL itself.
   */
  backendService?: boolean;
  /**
   * The test is about one instance's own mechanics (its embedded idempotency records, its token or JWKS
   * cache): it gets one API instance without Redis, even under TEST_API_INSTANCES.
   */
  singleInstance?: boolean;
}

export async function startApp(
  t: TestContext,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-test-'));
  try {
    return await startAppIn(t, dataDir, env, options);
  } catch (error) {
    // A start that fails (a test of a bad setting) may not have reached the cleanup below; removed after
    // whatever did start.
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    throw error;
  }
}

async function startAppIn(
  t: TestContext,
  dataDir: string,
  env: Record<string, string>,
  options: StartOptions,
): Promise<TestApp> {
  // Before the test's own files, which win.
  const production = testInProduction ? await productionRun(t, dataDir) : null;
  const extraEnv = options.beforeBuild?.(dataDir) ?? {};
  // Event-loop-delay shedding is off unless a test turns it on: tests block the loop on purpose (spawnSync of
  // the CLI) on a loaded 2-core machine, which is not the overload the protection is for.
  const baseEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...production?.env,
    // A test of its own external issuer keeps it, and the audience it gives (or leaves out).
    ...(production && env['AUTH_EXTERNAL_ISSUER'] ? { AUTH_AUDIENCE: '' } : {}),
    ...env,
    ...extraEnv,
  };
  if (testOnPostgres && !baseEnv['DATABASE_URL']) baseEnv['DATABASE_URL'] = await createTestDatabase();
  const instances = options.singleInstance ? 1 : Number(process.env['TEST_API_INSTANCES'] ?? 1);
  if (instances > 1 && !baseEnv['REDIS_URL']) Object.assign(baseEnv, sharedRedis(t));
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  // Under production the checks of server.ts run too: a configuration they would refuse fails the test here.
  const load = (vars: Record<string, string>) => (production ? loadServingConfig(vars, 'api') : loadConfig(vars));
  let config = load(baseEnv);
  const logger = createLogger(config, sink);
  const backendServices: RunningService[] = [];
  // Production mode loads no demo data into an empty store: the tests rely on it, so it is loaded as an operator
  // would, explicitly (what `npm run seed` does), before anything serves; a store another app of the test already
  // loaded (a shared DATABASE_URL) is kept, as production mode asks.
  if (production) {
    await loadDemoData(config).catch((error: unknown) => {
      if (!(error instanceof StoreNotEmptyError)) throw error;
    });
  }
  // A test that names its own back-end (BACKEND_URL) keeps it.
  if (production && (options.backendService ?? !baseEnv['BACKEND_URL'])) {
    // As `corebridge backend serve` runs under production: its own settings (its server certificate in
    // BACKEND_TLS_*), checked for its role, and certificates of the run's CA, not the development PKI.
    const backendConfig = loadServingConfig({ ...baseEnv, ...production.backendEnv }, 'backend');
    const catalog = loadMessageCatalog();
    for (let i = 0; i < 2; i++) {
      const inner = await openEmbeddedBackend(backendConfig, logger, catalog);
      backendServices.push(
        await startBackendService(t, {
          inner,
          log: logger,
          allowedClients: [...backendConfig.backendService.allowedClients],
          apiClients: [...backendConfig.backendService.apiClients],
        }),
      );
    }
    config = load({ ...baseEnv, BACKEND_URL: backendServices.map((s) => s.url).join(',') });
  } else if (options.backendService ?? (process.env['TEST_BACKEND'] === 'tls' && !baseEnv['BACKEND_URL'])) {
    // The back-end service as `corebridge backend serve` runs it, with the same settings, logging to the same sink.
    // Two of them on the one store, called round-robin, as in a deployment with several back-end instances;
    // one after the other, since the first creates and seeds the store.
    writeDevPki(dataDir, await testPki());
    const catalog = loadMessageCatalog();
    for (let i = 0; i < 2; i++) {
      const inner = await openEmbeddedBackend(config, logger, catalog);
      backendServices.push(await startBackendService(t, { inner, log: logger }));
    }
    config = loadConfig({ ...baseEnv, BACKEND_URL: backendServices.map((s) => s.url).join(',') });
  }
  // Several instances share DATA_DIR (the identity provider's keys and issuer) and Redis, as `npm run stack` runs them.
  const apps: App[] = [];
  t.after(async () => {
    for (const app of apps) await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  // The external issuer's signer stands where tests look for the embedded provider's (h.token, app.devIssuer).
  const signer =
    production && config.auth.issuer === production.issuer ? production.signer(config.auth.audience) : null;
  const build = async () => {
    const built = await buildApp(config, { logger });
    if (signer) Object.defineProperty(built, 'devIssuer', { configurable: true, get: (): DevIssuer => signer });
    return built;
  };
  for (let i = 0; i < instances; i++) apps.push(await build());
  const app = apps[0]!;

  const token: TestApp['token'] = async (subject, options = {}) => {
    const identity = findDemoIdentity(subject);
    if (!identity) throw new Error(`no demo identity ${subject}`);
    return app.devIssuer.sign(
      {
        subject,
        role: identity.role,
        ...(identity.customerId ? { customerId: identity.customerId } : {}),
        ...(identity.kind === 'client' ? { clientId: subject } : {}),
        scopes: options.scopes ?? ROLE_SCOPES[identity.role],
      },
      {
        ...(options.ttlSeconds !== undefined ? { ttlSeconds: options.ttlSeconds } : {}),
        ...(options.issuedAt !== undefined ? { issuedAt: options.issuedAt } : {}),
        ...(options.audience !== undefined ? { audience: options.audience } : {}),
      },
    );
  };

  const tokens = new Map<string, string>();
  let sent = 0;
  const request: TestApp['request'] = async ({ method, url, as, token: given, body, headers = {} }) => {
    let bearer = given;
    if (!bearer && as) {
      bearer = tokens.get(as) ?? (await token(as));
      tokens.set(as, bearer);
    }
    const instance = apps[sent++ % apps.length]!;
    const res = await instance.inject({
      method,
      url,
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    assertContract(method, url, res);
    return res;
  };

  const restart = async () => {
    for (let i = 0; i < apps.length; i++) {
      await apps[i]!.close();
      apps[i] = await build();
    }
    testApp.app = apps[0]!;
    tokens.clear();
  };
  const testApp: TestApp = { app, apps, config, dataDir, logs, backendServices, restart, token, request };
  return testApp;
}

const testInProduction = process.env['TEST_PRODUCTION'] === '1';

/**
 * `skip` for a test of the embedded identity provider (its /oauth routes, sign-in, discovery document, OpenAPI
 * flows): under TEST_PRODUCTION tokens come from an external issuer, and the API has no provider of its own.
 */
export const needsEmbeddedProvider: string | false =
  testInProduction &&
  'the embedded identity provider: none under TEST_PRODUCTION, whose tokens come from an external issuer';

interface ProductionRun {
  /** The API's settings: production mode, an external issuer, HTTPS, its client side of the back-end hop. */
  env: Record<string, string>;
  /** What differs for the back-end services: their server certificate (in BACKEND_TLS_*). */
  backendEnv: Record<string, string>;
  issuer: string;
  signer(audience: string): DevIssuer;
}

/**
 * A complete production configuration: NODE_ENV=production, an external issuer (a fake one whose key signs the
 * tokens of h.token), the back-end hop with certificates of the run's CA, and a webhook keyring. The API's own
 * HTTPS is left out: requests are injected, never sent to a listener (test/server-production.test.ts serves HTTPS).
 */
async function productionRun(t: TestContext, dataDir: string): Promise<ProductionRun> {
  // The test PKI, whose CA under TEST_PRODUCTION is not the development one, where `npm run certs` would write
  // (tests that name these files reach it); the settings name the files, as production mode asks.
  writeDevPki(dataDir, await testPki());
  const files = devPkiFiles(dataDir);
  const idp = await startSigningIssuer(t);
  return {
    env: {
      NODE_ENV: 'production',
      AUTH_EXTERNAL_ISSUER: idp.issuer,
      AUTH_AUDIENCE: 'https://api.bank.test',
      WEBHOOK_SECRET_KEY: `t1:${randomBytes(32).toString('base64')}`,
      BACKEND_TLS_CA: files.caCert,
      BACKEND_TLS_CERT: files.apiCert,
      BACKEND_TLS_KEY: files.apiKey,
    },
    backendEnv: { BACKEND_TLS_CERT: files.backendCert, BACKEND_TLS_KEY: files.backendKey },
    issuer: idp.issuer,
    signer: idp.signer,
  };
}

/** The local Redis, under a key prefix of this test's own, removed afterwards. */
function sharedRedis(t: TestContext): Record<string, string> {
  const url = 'redis://127.0.0.1:6379';
  const prefix = `corebridge-test:${randomUUID()}:`;
  t.after(async () => {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    try {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });
  return { REDIS_URL: url, IDEMPOTENCY_REDIS_PREFIX: `${prefix}idem:`, RATE_LIMIT_REDIS_PREFIX: `${prefix}rl:` };
}

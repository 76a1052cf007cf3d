/**
 * buildApp(config, deps): wires plugins and routes; no logic. Only server.ts listens. With no
 * transport given, it opens the configured one (src/transport/open.ts): back-end services over mutual
 * TLS, or the embedded back-end in a worker thread.
 */
import { join } from 'node:path';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import './api/fastify-types.ts';
import { requestBackend } from './api/backend.ts';
import { createBackendClient } from './client/backend-client.ts';
import { openDevIssuer, type DevIssuer } from './auth/dev-issuer.ts';
import { discoverJwksUri, EXTERNAL_ALGORITHMS } from './auth/external-issuer.ts';
import { createTokenVerifier } from './auth/verifier.ts';
import { openConfiguredIdempotencyStore } from './api/idempotency/open.ts';
import { purgeInChunks, type IdempotencyStore } from './api/idempotency/store.ts';
import { closeRedis, connectRedis } from './api/redis.ts';
import { openApiOptions } from './api/openapi.ts';
import { exactMultipleOf } from './api/schemas/exact-multiple-of.ts';
import { OPEN_ENUM_KEYWORD } from './resources/event-type.ts';
import { ProblemSchema } from './api/schemas/problem.ts';
import { sharedSerializers } from './api/serializers.ts';
import { installAuth, installRouteTableCheck } from './api/plugins/auth.ts';
import { installDeprecation } from './api/plugins/deprecation.ts';
import { installErrorHandler, renderFrameworkError } from './api/plugins/error-handler.ts';
import { installIdempotency } from './api/plugins/idempotency.ts';
import { installRequestId, requestIdFor } from './api/plugins/request-id.ts';
import { installRequestLog } from './api/plugins/request-log.ts';
import { installResponsesPerTurn } from './api/plugins/responses-per-turn.ts';
import { accountRoutes } from './api/routes/accounts.ts';
import type { Api } from './api/routes/common.ts';
import { customerRoutes } from './api/routes/customers.ts';
import { eventRoutes } from './api/routes/events.ts';
import { webhookRoutes } from './api/routes/webhooks.ts';
import { operationRoutes } from './api/routes/operations.ts';
import { loanRoutes } from './api/routes/loans.ts';
import { orderRoutes } from './api/routes/orders.ts';
import { paymentRoutes } from './api/routes/payments.ts';
import { installCors } from './api/protection/cors.ts';
import {
  installBodyShapeLimit,
  installLimits,
  JSON_POISONING_OPTIONS,
  limitBackendCalls,
  serverLimitOptions,
} from './api/protection/limits.ts';
import { boundedCheck } from './api/protection/probes.ts';
import { installRateLimits } from './api/protection/rate-limit.ts';
import { installSecurityHeaders } from './api/protection/security-headers.ts';
import { httpsOptions, installMutualTlsIdentity } from './api/protection/tls.ts';
import { publicRoutes } from './api/routes/public.ts';
import { eventTypeRoutes } from './api/routes/event-types.ts';
import { docsRoutes } from './api/docs/routes.ts';
import { docsRedirectUri } from './api/docs/scalar.ts';
import { loadServices, type ServiceDefinition } from './api/services/definition.ts';
import { serviceRoutes } from './api/services/routes.ts';
import { loadMessageCatalog, type MessageCatalog } from './backend/copybooks/index.ts';
import type { Config } from './config.ts';
import { openEmbeddedIdentity } from './identity/index.ts';
import { createLoginThrottle } from './identity/login-throttle.ts';
import { createLogger } from './logger.ts';
import { createObservability, type Observability } from './observability/index.ts';
import { openCobolHost, type CobolHost } from './transport/cobol-host.ts';
import { buildCobolHost, COPYBOOKS_DIR } from './transport/cobol-host/build.ts';
import { startEventRelay, type EventRelay } from './events/relay.ts';
import { startOperationRunner, type OperationRunner } from './operations/runner.ts';
import { startWebhookDispatcher, type WebhookDispatcher } from './events/webhooks.ts';
import { webhookKeyring } from './events/webhook-secrets.ts';
import { openRabbitPublisher } from './events/rabbitmq.ts';
import { openBackendTransport } from './transport/open.ts';
import type { Transport } from './transport/transport.ts';

export interface AppDeps {
  /** Root logger; default pino to stdout at config.logLevel. */
  logger?: Logger;
  /** Transport to the back-end; default the embedded back-end in process. */
  transport?: Transport;
  /**
   * Metrics registry and tracing; default new ones for this app (tracing per config.tracing), read back as
   * `app.observability`.
   */
  observability?: Observability;
}

export type App = FastifyInstance & {
  devIssuer: DevIssuer;
  /** The keys in flight and answers to replay (tests forget them to play a restart). */
  idempotencyStore: IdempotencyStore;
};

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<App> {
  const logger = deps.logger ?? createLogger(config);
  const catalog = loadMessageCatalog();
  // An external issuer's keys (its discovery document first: a wrong issuer stops startup before anything opens).
  const externalJwks = config.auth.external ? await discoverJwksUri(config.auth.issuer) : null;
  // Service files are checked before anything opens: a bad one stops startup with its file and JSON pointer.
  const services = config.servicesDir ? loadServices(config.servicesDir) : [];
  const serviceHost = services.length > 0 ? await openServiceHost(config, logger, services) : null;
  let transport: Transport | undefined;
  let redis: Redis | null = null;
  try {
    transport = deps.transport ?? (await openBackendTransport(config, logger, catalog));
    // REDIS_URL: rate-limit counters and idempotency records shared with the other API instances.
    const redisUrl = config.protection.rateLimit.redisUrl;
    redis = redisUrl ? await connectRedis(redisUrl, logger) : null;
    return await assemble(
      config,
      logger,
      catalog,
      externalJwks,
      transport,
      redis,
      { services, host: serviceHost },
      deps.observability,
    );
  } catch (error) {
    if (redis) await closeRedis(redis);
    // The back-end worker and the host processes would keep the process alive: a failed start closes them.
    if (!deps.transport) await transport?.close().catch(() => undefined);
    await serviceHost?.close();
    throw error;
  }
}

/** Builds the programs of the declared services (their copybooks beside them) and starts their host. */
async function openServiceHost(
  config: Config,
  logger: Logger,
  services: readonly ServiceDefinition[],
): Promise<CobolHost> {
  const dir = services[0]!.dir;
  const build = await buildCobolHost({
    outDir: join(config.dataDir, 'cobol'),
    programs: services.map((s) => s.program),
    programsDir: dir,
    copybookDirs: [dir, ...new Set(services.flatMap((s) => s.copybookDirs)), COPYBOOKS_DIR],
  });
  logger.info(
    { services: services.map((s) => `${s.method} ${s.url}`), libraryPath: build.libraryPath },
    'COBOL services built',
  );
  return openCobolHost({
    ...build,
    log: logger,
    processes: config.backend.cobolHosts,
    callTimeoutMs: config.backend.cobolCallTimeoutMs,
  });
}

async function assemble(
  config: Config,
  logger: Logger,
  catalog: MessageCatalog,
  externalJwks: URL | null,
  transport: Transport,
  redis: Redis | null,
  declared: { services: readonly ServiceDefinition[]; host: CobolHost | null },
  givenObservability: Observability | undefined,
): Promise<App> {
  // The embedded identity provider and its signing key (made at first start) only without an external issuer.
  const issuer = config.auth.external
    ? null
    : await openDevIssuer({ dataDir: config.dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
  const identity = config.auth.external
    ? null
    : await openEmbeddedIdentity(config, logger, docsRedirectUri(config.auth.issuer));
  const idempotencyStore = openConfiguredIdempotencyStore(config, redis);
  // Seals webhook signing secrets for the routes and opens them for the dispatcher; the back-end never holds it.
  const webhookSecrets = webhookKeyring(config.webhooks, config.dataDir);

  const protection = config.protection;
  const tls = httpsOptions(protection.tls, protection.limits.headerBytes);
  // Fastify's own logger type: the plugins and routes are written against it, not against pino's.
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One line per request, written by our onResponse hook: Fastify's two default lines are off.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: requestIdFor,
    // Requests reaching a closing instance are answered by installLimits, as problem+json.
    return503OnClosing: false,
    // TRUST_PROXY: req.ip is then the client X-Forwarded-For names, for rate limits and logs; otherwise the peer.
    ...(protection.rateLimit.trustProxy.length > 0 ? { trustProxy: [...protection.rateLimit.trustProxy] } : {}),
    frameworkErrors: renderFrameworkError,
    ...serverLimitOptions(protection.limits),
    ...JSON_POISONING_OPTIONS,
    ...(tls ? { https: tls } : { http: { maxHeaderSize: protection.limits.headerBytes } }),
    ajv: {
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allErrors: true,
        // The contract's mark on lists of values that grow by design (src/resources/event-type.ts): no rule to check.
        keywords: [OPEN_ENUM_KEYWORD],
      },
      plugins: [exactMultipleOf],
    },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  });
  // The same instance, its routes' types taken from their TypeBox schemas.
  const typed: Api = app.withTypeProvider<TypeBoxTypeProvider>();
  // Before any hook or route: the request log, back-end client, rate limits and idempotency reach it through the
  // instance.
  const observability = givenObservability ?? (await createObservability(config.tracing));
  app.decorate('observability', observability);
  const backend = createBackendClient({ catalog, transport, observability });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Started once the app is ready (a start that fails leaves nothing running): see the end.
  let relay: EventRelay | null = null;
  let dispatcher: WebhookDispatcher | null = null;
  let runner: OperationRunner | null = null;
  app.addHook('onClose', async () => {
    clearInterval(purgeTimer);
    await runner?.close();
    await relay?.close();
    await dispatcher?.close();
    await transport.close();
    await declared.host?.close();
    idempotencyStore.close();
    if (redis) await closeRedis(redis);
    if (!givenObservability) await observability.tracing?.shutdown();
  });
  const purgeTimer = setInterval(() => void purgeInChunks(idempotencyStore, () => closing), 10 * 60_000);
  purgeTimer.unref();

  // Only JSON bodies: Fastify's text/plain parser would let other media types through as strings.
  app.removeContentTypeParser('text/plain');

  installRequestId(app);
  installRequestLog(app);
  installErrorHandler(app);
  // Protection runs before authentication: overload, CORS preflight, headers, mTLS identity, anonymous limits.
  await installLimits(app, protection.limits, () => closing);
  await installCors(app, protection.cors);
  const securityHeaders = await installSecurityHeaders(app, { tls: tls !== undefined });
  installMutualTlsIdentity(app, protection.tls);
  const rateLimits = await installRateLimits(app, protection.rateLimit, redis);
  // The last of the global onSend hooks: what runs after it (a route's own) runs in the turn's end too.
  installResponsesPerTurn(app);
  installRouteTableCheck(app);
  app.addSchema(ProblemSchema);
  await app.register(swagger, openApiOptions(config.auth.issuer, !config.auth.external));
  const verifier = createTokenVerifier({
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    jwks: externalJwks ?? issuer?.jwks ?? { keys: [] },
    ...(config.auth.external
      ? {
          algorithms: EXTERNAL_ALGORITHMS,
          jwksCooldownMs: config.auth.jwksCooldownSeconds * 1000,
          jwksMaxAgeMs: config.auth.jwksMaxAgeSeconds * 1000,
          claims: { role: config.auth.roleClaim, customerId: config.auth.customerIdClaim },
        }
      : {}),
    clockToleranceSeconds: config.auth.clockToleranceSeconds,
    cacheSize: config.auth.tokenCacheSize,
  });

  // Ready: the back-end answers, the COBOL service host runs, and the shared state (Redis) is connected.
  // The probe is not rate-limited: the back-end is asked at most once per interval, the local states every time.
  // ioredis changes its status a turn after its socket closed: the socket itself says so at once.
  const backendReady = boundedCheck(() => transport.ready(), protection.limits.readyIntervalMs);
  const ready = async () =>
    (redis === null || (redis.status === 'ready' && redis.stream.writable)) &&
    (await backendReady()) &&
    (declared.host?.available() ?? true);
  publicRoutes(typed, { ready, issuer, isClosing: () => closing });
  eventTypeRoutes(typed);
  if (identity) {
    // Per user name, beside the per-address limit of the sign-in routes; shared through Redis like the rate limits.
    const loginThrottle = createLoginThrottle(
      {
        maxFailures: protection.rateLimit.loginFailures,
        lockSeconds: protection.rateLimit.loginLockSeconds,
        redisPrefix: protection.rateLimit.redisPrefix,
      },
      redis,
      logger,
    );
    await identity.install(app, securityHeaders.documents, loginThrottle);
  }
  // The human pages: /docs (signing in with the embedded provider), /, /problems/<code>.
  await docsRoutes(app, { issuer: config.auth.issuer, signIn: identity?.docsSignIn ?? null });

  // The API's own context: /health, /openapi.json and /oauth pay nothing for these hooks.
  const routeDeps = {
    catalog,
    backend: limitBackendCalls(
      requestBackend(backend, (tran) => {
        relay?.kick();
        if (tran === 'OPSUBM') runner?.kick();
      }),
      protection.limits.backendConcurrency,
      protection.limits.retryAfterSeconds,
    ),
  };
  await app.register(async (v1) => {
    installDeprecation(v1);
    installAuth(v1, verifier, { beforeVerify: rateLimits.ceiling });
    v1.addHook('onRequest', rateLimits.byPrincipal);
    installIdempotency(v1, idempotencyStore);
    // Installed after installIdempotency because it puts its hook first on each route: a body's shape is
    // checked before a missing key is reported.
    installBodyShapeLimit(v1, protection.limits);
    const api = v1.withTypeProvider<TypeBoxTypeProvider>();
    orderRoutes(api, routeDeps);
    customerRoutes(api, routeDeps);
    accountRoutes(api, routeDeps);
    paymentRoutes(api, routeDeps);
    loanRoutes(api, routeDeps);
    eventRoutes(api, { ...routeDeps, catalog });
    webhookRoutes(api, { ...routeDeps, catalog, webhooks: config.webhooks, secrets: webhookSecrets });
    operationRoutes(api, { ...routeDeps, catalog });
    if (declared.host) serviceRoutes(api, declared.services, declared.host, routeDeps.backend);
  });

  await app.ready();
  // Events leave the back-end's outbox through the relay: to RabbitMQ with BROKER_URL, else only into the feed;
  // the webhook dispatcher sends the deliveries the relay's turns make.
  const webhooks = startWebhookDispatcher({
    backend,
    catalog,
    log: logger,
    webhooks: config.webhooks,
    secrets: webhookSecrets,
    pollMs: config.events.pollMs,
  });
  dispatcher = webhooks;
  relay = startEventRelay({
    backend,
    catalog,
    log: logger,
    pollMs: config.events.pollMs,
    leaseSeconds: config.events.leaseSeconds,
    onPositioned: webhooks.kick,
    publisher: config.events.brokerUrl ? openRabbitPublisher(config.events.brokerUrl, logger) : null,
  });
  // Requests asked to run later (Prefer: respond-async) run here, off the request that made them.
  runner = startOperationRunner({
    backend,
    catalog,
    log: logger,
    pollMs: config.events.pollMs,
    onCompleted: () => relay?.kick(),
    brokerUrl: config.events.brokerUrl,
    metrics: observability.metrics,
  });
  // Tests and tools sign with the embedded provider's key; with an external issuer there is none to sign with
  // (configurable: the tests under production mode put their external issuer's signer here).
  return Object.defineProperties(app, {
    devIssuer: {
      configurable: true,
      get: () => {
        if (!issuer) throw new Error('no development issuer: tokens come from AUTH_EXTERNAL_ISSUER');
        return issuer;
      },
    },
    idempotencyStore: { value: idempotencyStore },
  }) as App;
}

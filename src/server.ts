/** Process entry: load config, build the app, listen, close gracefully on SIGINT/SIGTERM. */
import { effectiveConfig } from './logging/effective-config.ts';
import { buildApp } from './app.ts';
import { createLogger } from './logger.ts';
import { listenMutualTls } from './api/protection/tls.ts';
import { ConfigError, processEnv } from './config.ts';
import { loadServingConfig } from './production.ts';
import { ServiceFileError } from './api/services/definition.ts';
import { CobolBuildError } from './transport/cobol-host/build.ts';
import { listenMetrics, type MetricsListener } from './observability/metrics-server.ts';
import { startupBlock, startupFacts } from './startup-banner.ts';
import { listenFailure, type ListenTarget } from './listen-error.ts';
import { settingFileFailure } from './file-error.ts';
import type { AddressInfo } from 'node:net';

/** What a listener failed to open, said in one line naming the setting; anything else is a bug, thrown on. */
class ListenError extends Error {}

async function listening<T>(target: ListenTarget, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    const line = listenFailure(error, target);
    if (line === null) throw error;
    throw new ListenError(line);
  }
}

async function main(): Promise<void> {
  let config;
  let logger;
  let app;
  const env = processEnv();
  try {
    config = loadServingConfig(env, 'api');
    logger = createLogger(config);
    // Pretty logs are read by a person: the whole configuration only at debug; JSON keeps it for machines.
    logger[config.logFormat === 'pretty' ? 'debug' : 'info'](
      { config: effectiveConfig(config) },
      'effective configuration',
    );
    app = await buildApp(config, { logger });
  } catch (error) {
    // A bad setting (every production-mode refusal at once), a bad service file, a COBOL program that does not
    // compile, an unreadable certificate: the user's to fix, told without a stack.
    if (error instanceof ServiceFileError || error instanceof CobolBuildError || error instanceof ConfigError) {
      process.stderr.write(`corebridge: ${error.message}\n`);
      process.exit(2);
    }
    // A path a setting names that cannot be read or made: as much a bad setting.
    const file = config ? settingFileFailure(error, env, config.dataDir) : null;
    if (file !== null) {
      process.stderr.write(`corebridge: ${file}\n`);
      process.exit(2);
    }
    throw error;
  }
  let mutualTls: Awaited<ReturnType<typeof listenMutualTls>> | undefined;
  let metrics: MetricsListener | undefined;
  let stopping = false;
  /** Closes whatever has started (listeners, the back-end worker, the stores); bounded, as a hung close is. */
  const closeAll = async () => {
    const force = setTimeout(() => {
      logger.error('graceful shutdown timed out');
      process.exit(1);
    }, 10_000);
    force.unref();
    mutualTls?.close();
    mutualTls?.closeAllConnections();
    await metrics?.close();
    await app.close();
  };
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await closeAll();
    logger.info('stopped');
    logger.flush(() => process.exit(0));
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  try {
    await listening({ hostSetting: 'HOST', portSetting: 'PORT', host: config.host, port: config.port }, () =>
      app.listen({ port: config.port, host: config.host }),
    );
    const tls = config.protection.tls;
    const mutual = tls?.mutual;
    if (tls && mutual) {
      mutualTls = await listening(
        { hostSetting: 'HOST', portSetting: 'MTLS_PORT', host: config.host, port: mutual.port },
        () => listenMutualTls(app, tls, { host: config.host, limits: config.protection.limits }),
      );
      logger.info({ port: mutual.port, clients: [...mutual.clients.keys()] }, 'mutual TLS listener ready');
    }
    // The metrics on their own listener (loopback by default), apart from the API's. A port another process holds
    // is a failure: a scraper there would read that process's metrics as this one's.
    const metricsAt = config.metrics;
    if (metricsAt) {
      metrics = await listening(
        {
          hostSetting: 'METRICS_HOST',
          portSetting: 'METRICS_PORT',
          host: metricsAt.host,
          port: metricsAt.port,
          portAlternative: '(or 0 to turn the metrics off)',
        },
        () => listenMetrics(app.observability.metrics.registry, metricsAt.host, metricsAt.port),
      );
    }
  } catch (error) {
    if (!(error instanceof ListenError)) throw error;
    // Nothing half-started stays: the API listener, the back-end worker and the stores close before the exit.
    process.stderr.write(`corebridge: ${error.message}\n`);
    stopping = true;
    await closeAll().catch(() => {});
    logger.flush(() => process.exit(1));
    return;
  }
  const tls = config.protection.tls;
  const facts = startupFacts(config, {
    api: (app.server.address() as AddressInfo).port,
    metrics: metrics?.port ?? null,
  });
  // Pretty: a short block to read; JSON: the same facts as fields of one line, after the settings it ran with.
  if (config.logFormat === 'pretty') {
    logger.info(startupBlock(facts));
  } else {
    logger.info(
      { dataDir: config.dataDir, issuer: config.auth.issuer, logLevel: config.logLevel, tls: tls !== null },
      'corebridge listening',
    );
    logger.info({ startup: facts }, 'corebridge ready');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`corebridge: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

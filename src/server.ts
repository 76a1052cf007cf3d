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
import type { AddressInfo } from 'node:net';

async function main(): Promise<void> {
  let config;
  let logger;
  let app;
  try {
    config = loadServingConfig(processEnv(), 'api');
    logger = createLogger(config);
    logger.info({ config: effectiveConfig(config) }, 'effective configuration');
    app = await buildApp(config, { logger });
  } catch (error) {
    // A bad setting (every production-mode refusal at once), a bad service file, a COBOL program that does not
    // compile, an unreadable certificate: the user's to fix, told without a stack.
    if (error instanceof ServiceFileError || error instanceof CobolBuildError || error instanceof ConfigError) {
      process.stderr.write(`corebridge: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let mutualTls: Awaited<ReturnType<typeof listenMutualTls>> | undefined;
  let metrics: MetricsListener | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('graceful shutdown timed out');
      process.exit(1);
    }, 10_000);
    force.unref();
    mutualTls?.close();
    mutualTls?.closeAllConnections();
    await metrics?.close();
    await app.close();
    logger.info('stopped');
    logger.flush(() => process.exit(0));
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  const tls = config.protection.tls;
  if (tls?.mutual) {
    mutualTls = await listenMutualTls(app, tls, { host: config.host, limits: config.protection.limits });
    logger.info({ port: tls.mutual.port, clients: [...tls.mutual.clients.keys()] }, 'mutual TLS listener ready');
  }
  // The metrics on their own listener (loopback by default), apart from the API's. A port another process
  // holds (a second instance on one machine) leaves this one without metrics, said in a warning: the API still serves.
  if (config.metrics) {
    try {
      metrics = await listenMetrics(app.observability.metrics.registry, config.metrics.host, config.metrics.port);
    } catch (error) {
      logger.warn(
        { err: error, host: config.metrics.host, port: config.metrics.port },
        'metrics listener not started: set METRICS_PORT to a free port (or 0 to turn the metrics off)',
      );
    }
  }
  logger.info(
    { dataDir: config.dataDir, issuer: config.auth.issuer, logLevel: config.logLevel, tls: tls !== null },
    'corebridge listening',
  );
  const facts = startupFacts(config, {
    api: (app.server.address() as AddressInfo).port,
    metrics: metrics?.port ?? null,
  });
  // Pretty: a short block to read; JSON: the same facts as fields of one line.
  if (config.logFormat === 'pretty') logger.info(startupBlock(facts));
  else logger.info({ startup: facts }, 'corebridge ready');
}

main().catch((error: unknown) => {
  process.stderr.write(`corebridge: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

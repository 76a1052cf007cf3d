/**
 * `corebridge backend serve` (`npm run backend`): the back-end programs and their store as their own
 * process, serving API instances over TCP with TLS 1.3 and mutual TLS (src/transport/tcp/server.ts).
 * Settings from the environment, as for `npm start` (docs/operations.md, "The back-end as its own service").
 */
import { UsageError, type Io } from './usage.ts';

export const BACKEND_USAGE = `usage: corebridge backend serve
  the back-end programs and their store as a service over mutual TLS, on BACKEND_LISTEN (default 127.0.0.1:7443);
  settings from the environment and .env, as for npm start`;

export async function backendCommand(args: string[], _io: Io): Promise<number> {
  if (args.length !== 1 || args[0] !== 'serve') throw new UsageError(BACKEND_USAGE);
  // the back-end's modules only when it is served, not for --help; in the order a static import would load them
  const { effectiveConfig } = await import('../logging/effective-config.ts');
  const { loadMessageCatalog } = await import('../backend/copybooks/index.ts');
  const { processEnv } = await import('../config.ts');
  const { loadServingConfig } = await import('../production.ts');
  const { createLogger } = await import('../logger.ts');
  const { openEmbeddedBackend, readTlsFiles } = await import('../transport/open.ts');
  const { serveBackend } = await import('../transport/tcp/server.ts');
  const config = loadServingConfig(processEnv(), 'backend');
  const settings = config.backendService;
  const tls = readTlsFiles(settings.tls);
  const logger = createLogger(config);
  logger.info({ config: effectiveConfig(config) }, 'effective configuration');
  const catalog = loadMessageCatalog();
  const transport = await openEmbeddedBackend(config, logger, catalog);
  let service;
  try {
    service = await serveBackend(transport, {
      host: settings.host,
      port: settings.port,
      ...tls,
      allowedClients: settings.allowedClients,
      apiClients: settings.apiClients,
      catalog,
      log: logger,
    });
  } catch (error) {
    await transport.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`BACKEND_LISTEN: ${settings.host}:${settings.port} is already in use`, 1);
    throw error;
  }
  logger.info(
    {
      listen: `${settings.host}:${service.port}`,
      allowedClients: [...settings.allowedClients],
      apiClients: [...settings.apiClients],
      dataDir: config.dataDir,
    },
    'back-end service listening',
  );
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ signal }, 'back-end service shutting down');
  const force = setTimeout(() => {
    logger.error('graceful shutdown timed out');
    process.exit(1);
  }, 10_000);
  force.unref();
  await service.close();
  await transport.close();
  logger.info('stopped');
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  return 0;
}

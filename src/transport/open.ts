/**
 * Opens the transport the configuration asks for: back-end services over mutual TLS (BACKEND_URL), or
 * the embedded back-end (its store SQLite under DATA_DIR, or PostgreSQL with DATABASE_URL) in a worker thread (BACKEND_TRANSPORT=worker, the default)
 * or on this thread (in-process). The back-end service (`corebridge backend serve`) opens the embedded one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { backendFile, createBackend } from '../backend/index.ts';
import type { MessageCatalog } from '../backend/copybooks/index.ts';
import type { StoreLocation } from '../backend/store/open.ts';
import { inquiryMatcher } from '../backend/message.ts';
import { ConfigError, type Config, type TlsFiles } from '../config.ts';
import { openProgramHost, type CobolProgramSettings } from './cobol-host.ts';
import { buildCobolHost } from './cobol-host/build.ts';
import { inProcessTransport } from './in-process.ts';
import { splitReads } from './read-split.ts';
import { openTlsTransport } from './tcp/client.ts';
import type { Transport } from './transport.ts';
import { openWorkerTransport } from './worker.ts';

const STARTUP_CONNECT_MS = 3000;

export async function openBackendTransport(config: Config, logger: Logger, catalog: MessageCatalog): Promise<Transport> {
  if (config.backend.urls.length === 0) return openEmbeddedBackend(config, logger, catalog);
  const tls = readTlsFiles(config.backend.clientTls);
  logger.info({ backends: config.backend.urls, connections: config.backend.connections }, 'calling back-end services over mutual TLS');
  const transport = openTlsTransport({
    urls: config.backend.urls, ...tls, connectionsPerBackend: config.backend.connections, callTimeoutMs: config.backend.callTimeoutMs, log: logger,
  });
  // Not a condition to start (readiness says 503 until one is up), but a normal start should not answer
  // its first requests 503 while the connections are still being made.
  if (!(await transport.connected(STARTUP_CONNECT_MS))) logger.warn({ backends: config.backend.urls }, 'no back-end service reachable yet; retrying in the background');
  return transport;
}

/** The PEM contents; a file that cannot be read stops startup, named by its setting. */
export function readTlsFiles(files: TlsFiles): { ca: Buffer; cert: Buffer; key: Buffer } {
  const read = (variable: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      const hint = (error as NodeJS.ErrnoException).code === 'ENOENT' ? ' (make development certificates with `npm run certs`, or set it)' : '';
      throw new ConfigError(variable, `names a file that cannot be read: ${file}${hint}`);
    }
  };
  return { ca: read('BACKEND_TLS_CA', files.caFile), cert: read('BACKEND_TLS_CERT', files.certFile), key: read('BACKEND_TLS_KEY', files.keyFile) };
}

/** Compiles the COBOL programs chosen with PROGRAMS_COBOL (and their host) under DATA_DIR/cobol. */
async function cobolSettings(config: Config, logger: Logger): Promise<CobolProgramSettings | undefined> {
  const programs = config.backend.cobolPrograms;
  if (programs.length === 0) return undefined;
  const build = await buildCobolHost({
    outDir: join(config.dataDir, 'cobol'), programs, ...(config.backend.cobolSourceDir ? { programsDir: config.backend.cobolSourceDir } : {}),
  });
  logger.info({ programs, libraryPath: build.libraryPath }, 'COBOL programs built');
  return { programs, ...build, processes: config.backend.cobolHosts, callTimeoutMs: config.backend.cobolCallTimeoutMs };
}

/** Where the back-end's store is: PostgreSQL (DATABASE_URL) or the SQLite file under DATA_DIR. */
export function storeLocation(config: Config): StoreLocation {
  return { file: backendFile(config.dataDir), databaseUrl: config.backend.databaseUrl, poolSize: config.backend.databasePoolSize };
}

export async function openEmbeddedBackend(config: Config, logger: Logger, catalog: MessageCatalog): Promise<Transport> {
  const location = storeLocation(config);
  const cobol = await cobolSettings(config, logger);
  if (config.backend.transport === 'in-process') {
    return inProcessTransport(await createBackend({ ...location, log: logger, catalog, ...(cobol ? { linkHost: openProgramHost(cobol, logger) } : {}) }));
  }
  const worker = await openWorkerTransport({ ...location, logLevel: config.logLevel, logger, ...(cobol ? { cobol } : {}) });
  // PostgreSQL serves reads from the worker's pool; the read split is for SQLite's WAL readers.
  if (config.backend.reads === 'worker' || location.databaseUrl) return worker;
  // The worker has migrated the store: inquiries can now be read here, without crossing threads.
  try {
    const reader = await createBackend({ file: location.file, log: logger, catalog, readOnly: true });
    return splitReads(inquiryMatcher(catalog), inProcessTransport(reader), worker, () => reader.refresh());
  } catch (error) {
    await worker.close();
    throw error;
  }
}

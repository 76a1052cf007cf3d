/**
 * Opens the transport the settings ask for: back-end services over mutual TLS (BACKEND_URL), or the embedded
 * back-end (SQLite under DATA_DIR, or DATABASE_URL) in a worker thread or on this thread (BACKEND_TRANSPORT).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { backendFile, createBackend } from '../backend/index.ts';
import type { MessageCatalog } from '../backend/copybooks/index.ts';
import type { StoreLocation } from '../backend/store/open.ts';
import type { StoreSettings } from '../backend/store/settings.ts';
import { inquiryMatcher } from '../backend/message.ts';
import type { LogLevel } from '../logging/settings.ts';
import { seedsEmptyStore } from '../settings/production-mode.ts';
import { ConfigError } from '../settings/schema.ts';
import { openProgramHost, type CobolProgramSettings } from './cobol-host.ts';
import { buildCobolHost } from './cobol-host/build.ts';
import { inProcessTransport } from './in-process.ts';
import { splitReads } from './read-split.ts';
import type { TlsFiles, TransportSettings } from './settings.ts';
import { openTlsTransport } from './tcp/client.ts';
import type { Transport } from './transport.ts';
import { openWorkerTransport } from './worker.ts';

const STARTUP_CONNECT_MS = 3000;

/** What opening the back-end needs of the configuration (Config has it). */
export interface BackendConfig {
  dataDir: string;
  logLevel: LogLevel;
  /** Production mode: an empty store is left empty (src/settings/production-mode.ts). */
  production: boolean;
  backend: TransportSettings & StoreSettings;
}

export async function openBackendTransport(
  config: BackendConfig,
  logger: Logger,
  catalog: MessageCatalog,
): Promise<Transport> {
  if (config.backend.urls.length === 0) return openEmbeddedBackend(config, logger, catalog);
  const tls = readTlsFiles(config.backend.clientTls);
  const { urls, connections, callTimeoutMs } = config.backend;
  logger.info({ backends: urls, connections }, 'calling back-end services over mutual TLS');
  const transport = openTlsTransport({ urls, ...tls, connectionsPerBackend: connections, callTimeoutMs, log: logger });
  // Not a condition to start (readiness says 503 until one is up), but a normal start should not answer
  // its first requests 503 while the connections are still being made.
  if (!(await transport.connected(STARTUP_CONNECT_MS))) {
    logger.warn({ backends: urls }, 'no back-end service reachable yet; retrying in the background');
  }
  return transport;
}

/** The PEM contents; a file that cannot be read stops startup, named by its setting. */
export function readTlsFiles(files: TlsFiles): { ca: Buffer; cert: Buffer; key: Buffer } {
  const read = (variable: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      const hint = missing ? ' (make development certificates with `npm run certs`, or set it)' : '';
      throw new ConfigError(variable, `names a file that cannot be read: ${file}${hint}`);
    }
  };
  return {
    ca: read('BACKEND_TLS_CA', files.caFile),
    cert: read('BACKEND_TLS_CERT', files.certFile),
    key: read('BACKEND_TLS_KEY', files.keyFile),
  };
}

/** Compiles the COBOL programs chosen with PROGRAMS_COBOL (and their host) under DATA_DIR/cobol. */
async function cobolSettings(config: BackendConfig, logger: Logger): Promise<CobolProgramSettings | undefined> {
  const programs = config.backend.cobolPrograms;
  if (programs.length === 0) return undefined;
  const sourceDir = config.backend.cobolSourceDir;
  const build = await buildCobolHost({
    outDir: join(config.dataDir, 'cobol'),
    programs,
    ...(sourceDir ? { programsDir: sourceDir } : {}),
  });
  logger.info({ programs, libraryPath: build.libraryPath }, 'COBOL programs built');
  return { programs, ...build, processes: config.backend.cobolHosts, callTimeoutMs: config.backend.cobolCallTimeoutMs };
}

/** Where the back-end's store is: PostgreSQL (DATABASE_URL) or the SQLite file under DATA_DIR. */
export function storeLocation(config: BackendConfig): StoreLocation {
  const { databaseUrl, databasePoolSize } = config.backend;
  return { file: backendFile(config.dataDir), databaseUrl, poolSize: databasePoolSize };
}

export async function openEmbeddedBackend(
  config: BackendConfig,
  logger: Logger,
  catalog: MessageCatalog,
): Promise<Transport> {
  const location = storeLocation(config);
  const seedWhenEmpty = seedsEmptyStore(config.production);
  const cobol = await cobolSettings(config, logger);
  if (config.backend.transport === 'in-process') {
    const linkHost = cobol ? { linkHost: openProgramHost(cobol, logger) } : {};
    return inProcessTransport(await createBackend({ ...location, log: logger, catalog, seedWhenEmpty, ...linkHost }));
  }
  const worker = await openWorkerTransport({
    ...location,
    logLevel: config.logLevel,
    logger,
    seedWhenEmpty,
    ...(cobol ? { cobol } : {}),
  });
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

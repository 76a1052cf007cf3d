/**
 * How the API reaches the back-end (BACKEND_*), the back-end service's listener, and the COBOL program
 * host (PROGRAMS_COBOL, COBOL_*).
 */
import { resolve } from 'node:path';
import { isLinkedProgram, LINKED_PROGRAMS, type LinkedProgramName } from '../backend/copybooks/index.ts';
import { DEV_API_CLIENT_NAME, devPkiFiles } from '../tls/dev-files.ts';
import { ConfigError, choice, integer, listItems, parsed, read, section, text, type Env } from '../settings/schema.ts';

export type BackendTransportKind = 'worker' | 'in-process';
export type BackendReads = 'api-thread' | 'worker';

/** PEM files of one side of a mutual-TLS hop: its own certificate and key, and the CA it trusts for the other side. */
export interface TlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** `tls://host:port` of a back-end service; throws naming the URL otherwise. */
export function parseBackendUrl(url: string): { host: string; port: number } {
  const parsedUrl = URL.canParse(url) ? new URL(url) : null;
  if (
    !parsedUrl ||
    parsedUrl.protocol !== 'tls:' ||
    !parsedUrl.hostname ||
    !parsedUrl.port ||
    parsedUrl.pathname !== '' ||
    parsedUrl.search ||
    parsedUrl.username
  ) {
    throw new Error(`"${url}" is not tls://host:port`);
  }
  return { host: parsedUrl.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsedUrl.port) };
}

export const TRANSPORT_SETTINGS = section('The back-end', {
  BACKEND_TRANSPORT: choice<BackendTransportKind>(['worker', 'in-process'], {
    default: 'worker',
    description: "where the embedded back-end runs: a worker thread, or the API's own thread",
  }),
  BACKEND_READS: choice<BackendReads>(['api-thread', 'worker'], {
    default: 'api-thread',
    description: 'with the worker: where inquiries read the SQLite store',
  }),
  BACKEND_URL: parsed({
    allowed: 'tls://host:port, comma-separated',
    description: 'back-end services over mutual TLS: tls://host:7443[,tls://…]',
    parse(value, name) {
      const urls = listItems(value);
      for (const url of urls) {
        try {
          parseBackendUrl(url);
        } catch (error) {
          throw new ConfigError(name, `lists ${(error as Error).message}`);
        }
      }
      return urls;
    },
  }),
  BACKEND_TLS_CA: text({ allowed: 'PEM file', description: 'default DATA_DIR/certs/ca.crt' }),
  BACKEND_TLS_CERT: text({
    allowed: 'PEM file',
    description: 'default DATA_DIR/certs/api.crt (backend.crt for `npm run backend`)',
  }),
  BACKEND_TLS_KEY: text({
    allowed: 'PEM file',
    description: 'default DATA_DIR/certs/api.key (backend.key for `npm run backend`)',
  }),
  BACKEND_CONNECTIONS: integer({
    default: 2,
    min: 1,
    max: 64,
    description: 'connections kept open to each back-end service',
  }),
  BACKEND_CALL_TIMEOUT_MS: integer({
    default: 4000,
    min: 10,
    max: 600_000,
    description: 'time limit of one call to a back-end service; over it, 504',
  }),
});

export const BACKEND_SERVICE_SETTINGS = section('The back-end service (`npm run backend`)', {
  BACKEND_LISTEN: parsed({
    default: '127.0.0.1:7443',
    allowed: 'host:port',
    description: 'where it listens for API instances',
    parse(value, name) {
      const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(value);
      if (!match || Number(match[2]) > 65535) throw new ConfigError(name, `must be host:port, got "${value}"`);
      return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
    },
  }),
  BACKEND_ALLOWED_CLIENTS: parsed({
    default: DEV_API_CLIENT_NAME,
    allowed: 'certificate SAN names, comma-separated',
    description: 'client certificates (SAN DNS or URI entry, never the CN) allowed to call',
    parse: (value) => new Set(listItems(value)),
  }),
  BACKEND_API_CLIENTS: parsed({
    default: DEV_API_CLIENT_NAME,
    allowed: 'certificate SAN names, comma-separated',
    description:
      'those of them that are API instances: they may call for any user and as SYSTEM; any other allowed client only as itself',
    parse: (value) => new Set(listItems(value)),
  }),
});

export const COBOL_SETTINGS = section('COBOL', {
  PROGRAMS_COBOL: parsed({
    allowed: 'linked program names, comma-separated',
    description: 'e.g. LNDECIDE: run as compiled GnuCOBOL (needs cobc)',
    parse(value, name) {
      const names = listItems(value).map((n) => n.toUpperCase());
      for (const n of names) {
        if (!isLinkedProgram(n)) {
          const known = Object.keys(LINKED_PROGRAMS).join(', ');
          throw new ConfigError(name, `names no linked program: "${n}" (known: ${known})`);
        }
      }
      return [...new Set(names)] as LinkedProgramName[];
    },
  }),
  COBOL_SOURCE_DIR: parsed({
    allowed: 'directory',
    description: 'their <PROGRAM>.cbl sources; default src/backend/cobol',
    parse: (value) => (value ? resolve(value) : null),
  }),
  COBOL_HOSTS: integer({
    default: 2,
    min: 1,
    max: 64,
    description: 'host processes, so COBOL calls in flight at once',
  }),
  COBOL_CALL_TIMEOUT_MS: integer({
    default: 2000,
    min: 10,
    max: 600_000,
    description: 'time limit of one COBOL program call; over it, 504',
  }),
});

export interface TransportSettings {
  /**
   * How the API reaches the embedded back-end: `worker` (default) runs it in a worker thread, off the
   * API's event loop, with group commit; `in-process` runs it on the API's thread (tests, debugging).
   */
  transport: BackendTransportKind;
  /**
   * With the worker: where inquiries run. `api-thread` reads from a read-only SQLite connection on the
   * API's thread (no thread crossing; WAL readers do not wait for the writer); `worker` sends them too.
   */
  reads: BackendReads;
  /**
   * Linked programs that run as compiled GnuCOBOL in the COBOL program host instead of their TypeScript
   * version (PROGRAMS_COBOL, e.g. `LNDECIDE`); empty: all TypeScript, no cobc needed.
   */
  cobolPrograms: readonly LinkedProgramName[];
  /** Where their sources (`<PROGRAM>.cbl`) are (COBOL_SOURCE_DIR); null: those Corebridge ships, src/backend/cobol. */
  cobolSourceDir: string | null;
  /** Host processes, so COBOL calls in flight at once (COBOL_HOSTS). */
  cobolHosts: number;
  /** Time limit of one COBOL program call (COBOL_CALL_TIMEOUT_MS); a call over it answers 504. */
  cobolCallTimeoutMs: number;
  /**
   * Back-end services this API calls over mutual TLS (BACKEND_URL, tls://host:port, several round-robin);
   * empty: the embedded back-end, and the settings above apply here.
   */
  urls: readonly string[];
  /** This API's client certificate and the CA of the back-ends (BACKEND_TLS_*; default the development PKI). */
  clientTls: TlsFiles;
  /** Connections kept open to each back-end service (BACKEND_CONNECTIONS). */
  connections: number;
  /** Time limit of one call to a back-end service (BACKEND_CALL_TIMEOUT_MS); over it, 504. */
  callTimeoutMs: number;
}

/** The back-end service role (`corebridge backend serve`). */
export interface BackendServiceSettings {
  /** Where it listens for API instances (BACKEND_LISTEN, host:port). */
  host: string;
  port: number;
  /** Its server certificate and the CA its clients' certificates must chain to (BACKEND_TLS_*). */
  tls: TlsFiles;
  /** Client certificate SAN names (DNS or URI) allowed to call (BACKEND_ALLOWED_CLIENTS). */
  allowedClients: ReadonlySet<string>;
  /**
   * Those of them that are API instances (BACKEND_API_CLIENTS): they state the caller of each call, any user or
   * SYSTEM. Every other allowed client calls only as itself.
   */
  apiClients: ReadonlySet<string>;
}

/** BACKEND_TLS_* when set, else the development PKI's files for this role (`npm run certs`). */
function tlsFiles(env: Env, dataDir: string, role: 'api' | 'backend'): TlsFiles {
  const dev = devPkiFiles(dataDir);
  const certFile = read(env, TRANSPORT_SETTINGS, 'BACKEND_TLS_CERT');
  const keyFile = read(env, TRANSPORT_SETTINGS, 'BACKEND_TLS_KEY');
  if (!certFile !== !keyFile) {
    throw new ConfigError(certFile ? 'BACKEND_TLS_KEY' : 'BACKEND_TLS_CERT', 'must be set together with the other one');
  }
  return {
    caFile: resolve(read(env, TRANSPORT_SETTINGS, 'BACKEND_TLS_CA') || dev.caCert),
    certFile: resolve(certFile || (role === 'api' ? dev.apiCert : dev.backendCert)),
    keyFile: resolve(keyFile || (role === 'api' ? dev.apiKey : dev.backendKey)),
  };
}

/** `dataDir`: where the development PKI's files are, the default certificates. */
export function loadTransportSettings(env: Env, dataDir: string): TransportSettings {
  return {
    transport: read(env, TRANSPORT_SETTINGS, 'BACKEND_TRANSPORT'),
    reads: read(env, TRANSPORT_SETTINGS, 'BACKEND_READS'),
    cobolPrograms: read(env, COBOL_SETTINGS, 'PROGRAMS_COBOL'),
    cobolSourceDir: read(env, COBOL_SETTINGS, 'COBOL_SOURCE_DIR'),
    cobolHosts: read(env, COBOL_SETTINGS, 'COBOL_HOSTS'),
    cobolCallTimeoutMs: read(env, COBOL_SETTINGS, 'COBOL_CALL_TIMEOUT_MS'),
    urls: read(env, TRANSPORT_SETTINGS, 'BACKEND_URL'),
    clientTls: tlsFiles(env, dataDir, 'api'),
    connections: read(env, TRANSPORT_SETTINGS, 'BACKEND_CONNECTIONS'),
    // Below the request's own time limit (REQUEST_TIMEOUT_MS, 5 s), so the client learns it was the back-end.
    callTimeoutMs: read(env, TRANSPORT_SETTINGS, 'BACKEND_CALL_TIMEOUT_MS'),
  };
}

export function loadBackendServiceSettings(env: Env, dataDir: string): BackendServiceSettings {
  const allowedClients = read(env, BACKEND_SERVICE_SETTINGS, 'BACKEND_ALLOWED_CLIENTS');
  const apiClients = read(env, BACKEND_SERVICE_SETTINGS, 'BACKEND_API_CLIENTS');
  // Said at start-up rather than as every call of that API refused: an allowlist renamed without this one.
  const outside = [...apiClients].filter((name) => !allowedClients.has(name));
  if (outside.length > 0) {
    throw new ConfigError(
      'BACKEND_API_CLIENTS',
      `names ${outside.join(', ')}, not on BACKEND_ALLOWED_CLIENTS (${[...allowedClients].join(', ') || 'empty'}): name the API instances' client certificates on both`,
    );
  }
  return {
    ...read(env, BACKEND_SERVICE_SETTINGS, 'BACKEND_LISTEN'),
    tls: tlsFiles(env, dataDir, 'backend'),
    allowedClients,
    apiClients,
  };
}

/**
 * Back-end services over mutual TLS for tests: a PKI made at run time (never a committed key), the real
 * back-end behind the real TLS listener, and the API's real TLS transport to it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createServer, type TLSSocket } from 'node:tls';
import { pino, type Logger } from 'pino';
import { loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { devPkiFiles, DEV_API_CLIENT_NAME } from '../../src/tls/dev-files.ts';
import {
  createCertificateAuthority,
  createDevelopmentPki,
  issueServicePair,
  type CertificateAuthority,
  type IssuedCertificate,
} from '../../src/tls/dev-pki.ts';
import { openTlsTransport, type TlsTransport } from '../../src/transport/tcp/client.ts';
import { encodeFrame, FRAME_KIND, FrameReader, type Frame } from '../../src/transport/tcp/frames.ts';
import { serveBackend, type BackendService } from '../../src/transport/tcp/server.ts';
import type { CallOptions, Transport } from '../../src/transport/transport.ts';
import { openWorkerTransport } from '../../src/transport/worker.ts';

export interface TestPki {
  ca: IssuedCertificate;
  backend: IssuedCertificate;
  api: IssuedCertificate;
  /** Signed by the same CA, but not on the default allowlist (a CN only, no SAN). */
  intruder: IssuedCertificate;
  /** Signed by the same CA, the API's name as its CN but no SAN: allowlists match SAN entries only. */
  cnOnly: IssuedCertificate;
  /** Signed by the same CA, SAN `reports.internal`: a client that is not an API instance. */
  reports: IssuedCertificate;
  /** A client certificate from another CA. */
  foreign: IssuedCertificate;
}

let shared: Promise<TestPki> | undefined;

/**
 * One PKI per test file: making keys is cheap, loading the x509 library is not. Under TEST_PRODUCTION its CA is an
 * operator's own (production mode refuses the development CA's certificates), the rest alike.
 */
export function testPki(): Promise<TestPki> {
  shared ??= (async () => {
    const dev = process.env['TEST_PRODUCTION'] === '1' ? await operatorPki() : await createDevelopmentPki({ days: 1 });
    const other = await createCertificateAuthority({ commonName: 'Some other CA', days: 1 });
    return {
      ca: dev.ca,
      backend: dev.backend,
      api: dev.api,
      intruder: await dev.ca.issue({ commonName: 'intruder', usage: 'client', days: 1 }),
      cnOnly: await dev.ca.issue({ commonName: DEV_API_CLIENT_NAME, usage: 'client', days: 1 }),
      reports: await dev.ca.issue({
        commonName: 'reports.internal',
        usage: 'client',
        dnsNames: ['reports.internal'],
        days: 1,
      }),
      foreign: await other.issue({ commonName: DEV_API_CLIENT_NAME, usage: 'client', days: 1 }),
    };
  })();
  return shared;
}

/** The development set's certificates, names and SANs, from a CA of another name. */
async function operatorPki(): Promise<{
  ca: CertificateAuthority;
  backend: IssuedCertificate;
  api: IssuedCertificate;
}> {
  const ca = await createCertificateAuthority({ commonName: 'Corebridge test operator CA', days: 1 });
  return { ca, ...(await issueServicePair(ca, 1)) };
}

/**
 * Writes the PKI where the configuration looks by default (DATA_DIR/certs), as `npm run certs` does. With
 * `client`, the API calls the back-end with that certificate instead: it is written beside them, and the
 * settings naming it are returned (for startApp's `beforeBuild`).
 */
export function writeDevPki(
  dataDir: string,
  pki: TestPki,
  options: { client?: IssuedCertificate } = {},
): Record<string, string> {
  const files = devPkiFiles(dataDir);
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  const clientCert = join(files.dir, 'client.crt');
  const clientKey = join(files.dir, 'client.key');
  for (const [file, content] of [
    [files.caCert, pki.ca.cert],
    [files.backendCert, pki.backend.cert],
    [files.backendKey, pki.backend.key],
    [files.apiCert, pki.api.cert],
    [files.apiKey, pki.api.key],
    ...(options.client
      ? ([
          [clientCert, options.client.cert],
          [clientKey, options.client.key],
        ] as const)
      : []),
  ] as const)
    writeFileSync(file, content, { mode: 0o600 });
  return options.client ? { BACKEND_TLS_CERT: clientCert, BACKEND_TLS_KEY: clientKey } : {};
}

export interface RunningService {
  url: string;
  service: BackendService;
  /** The back-end runtime it serves (a worker transport on the file, unless one was given). */
  inner: Transport;
  /** Calls that reached the runtime: a call the service refused is not among them. */
  readonly calls: number;
  /** Readiness checks that reached the runtime (each client ping, a connection's first one included). */
  readonly pings: number;
  /** Stops the listener and the runtime (idempotent). */
  stop(): Promise<void>;
}

/** Without `inner` or `file`: a worker runtime on a fresh store, removed after the test. */
export async function startBackendService(
  t: TestContext,
  options: {
    file?: string;
    inner?: Transport;
    port?: number;
    allowedClients?: string[];
    apiClients?: string[];
    log?: Logger;
  } = {},
): Promise<RunningService> {
  const pki = await testPki();
  const inner =
    options.inner ??
    (await openWorkerTransport({
      file: options.file ?? freshStore(t),
      logLevel: 'silent',
      logger: pino({ level: 'silent' }),
    }));
  const counts = { calls: 0, pings: 0 };
  const counted: Transport = {
    call(message: Buffer, callOptions?: CallOptions) {
      counts.calls++;
      return inner.call(message, callOptions);
    },
    ready() {
      counts.pings++;
      return inner.ready();
    },
    close: () => inner.close(),
  };
  const service = await serveBackend(counted, {
    host: '127.0.0.1',
    port: options.port ?? 0,
    cert: pki.backend.cert,
    key: pki.backend.key,
    ca: pki.ca.cert,
    allowedClients: new Set(options.allowedClients ?? [DEV_API_CLIENT_NAME]),
    apiClients: new Set(options.apiClients ?? [DEV_API_CLIENT_NAME]),
    catalog: loadMessageCatalog(),
    log: options.log ?? pino({ level: 'silent' }),
  });
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= service.close().then(() => inner.close()));
  t.after(stop);
  return {
    url: `tls://127.0.0.1:${service.port}`,
    service,
    inner,
    get calls() {
      return counts.calls;
    },
    get pings() {
      return counts.pings;
    },
    stop,
  };
}

function freshStore(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-backend-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'backend.sqlite');
}

/** The API side: a TLS transport with the API's (or the given) client certificate. */
export async function connectTls(
  t: TestContext,
  urls: string[],
  options: { client?: IssuedCertificate; connectionsPerBackend?: number; callTimeoutMs?: number; log?: Logger } = {},
): Promise<TlsTransport> {
  const pki = await testPki();
  const client = options.client ?? pki.api;
  const transport = openTlsTransport({
    urls,
    ca: pki.ca.cert,
    cert: client.cert,
    key: client.key,
    connectionsPerBackend: options.connectionsPerBackend ?? 2,
    callTimeoutMs: options.callTimeoutMs ?? 5000,
    log: options.log ?? pino({ level: 'silent' }),
  });
  t.after(() => transport.close());
  return transport;
}

/**
 * A TLS peer with the back-end's certificate that speaks the frame format but is not our service: for
 * back-ends that answer late or never. Pings get "ready"; `onFrame` decides what (and when) to answer to calls.
 */
export async function startTlsPeer(
  t: TestContext,
  onFrame: (frame: Frame, socket: TLSSocket) => void,
): Promise<string> {
  const pki = await testPki();
  const sockets = new Set<TLSSocket>();
  const server = createServer(
    { cert: pki.backend.cert, key: pki.backend.key, ca: pki.ca.cert, requestCert: true, minVersion: 'TLSv1.3' },
    (socket) => {
      sockets.add(socket);
      const reader = new FrameReader();
      socket.on('data', (chunk: Buffer) => {
        for (const frame of reader.push(chunk)) {
          // Pings (the client's first one included) are answered "ready"; calls are the test's.
          if (frame.kind === FRAME_KIND.PING)
            socket.write(encodeFrame(FRAME_KIND.PONG, frame.callId, Uint8Array.of(1)));
          else onFrame(frame, socket);
        }
      });
      socket.on('error', () => {});
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return `tls://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/**
 * The back-end as a service (`corebridge backend serve`): serves the embedded back-end to API instances over
 * TCP with TLS 1.3 and mutual TLS, to clients whose certificate chains to BACKEND_TLS_CA and is named on
 * BACKEND_ALLOWED_CLIENTS.
 */
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { certificateNames } from '../../tls/certificate-names.ts';
import { CallNotStartedError, type Transport } from '../transport.ts';
import { encodeFrame, FRAME_KIND, onFrames } from './frames.ts';

export interface BackendServiceOptions {
  host: string;
  port: number;
  /** PEM: this service's certificate and key, and the CA its clients' certificates must chain to. */
  cert: string | Buffer;
  key: string | Buffer;
  ca: string | Buffer;
  /** Certificate names (subject CN or SAN DNS/URI) allowed to call. */
  allowedClients: ReadonlySet<string>;
  log: Logger;
}

export interface BackendService {
  /** The port it listens on (useful with port 0). */
  port: number;
  /** Stops accepting, answers the calls in flight, closes the connections. The transport is the caller's. */
  close(): Promise<void>;
}

const HANDSHAKE_TIMEOUT_MS = 10_000;

export async function serveBackend(transport: Transport, options: BackendServiceOptions): Promise<BackendService> {
  const { log } = options;
  const sockets = new Set<TLSSocket>();
  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | null = null;

  const server: Server = createServer({
    cert: options.cert,
    key: options.key,
    ca: options.ca,
    minVersion: 'TLSv1.3',
    requestCert: true,
    rejectUnauthorized: true,
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
  });

  // A certificate that does not chain to the CA never gets here: the handshake fails (logged at debug,
  // since scanners make them all day; the client sees "unknown ca" or "certificate required").
  server.on('tlsClientError', (error, socket) => {
    log.debug({ err: error, remoteAddress: socket.remoteAddress }, 'TLS handshake refused');
  });

  server.on('secureConnection', (socket) => {
    const names = certificateNames(socket);
    const identity = names.find((name) => options.allowedClients.has(name));
    const peer = { remoteAddress: socket.remoteAddress, remotePort: socket.remotePort, certificate: names };
    if (!identity) {
      log.warn(peer, 'back-end client refused: its certificate is not on BACKEND_ALLOWED_CLIENTS');
      socket.end(
        encodeFrame(
          FRAME_KIND.REFUSED,
          0,
          Buffer.from(`certificate ${names.join(', ') || '(no name)'} is not allowed to call this back-end`),
        ),
      );
      socket.destroySoon();
      return;
    }
    sockets.add(socket);
    log.info({ ...peer, client: identity }, 'back-end client connected');
    socket.setNoDelay(true);
    onFrames(
      socket,
      (frames) => {
        for (const frame of frames) {
          if (frame.kind === FRAME_KIND.CALL) handleCall(socket, frame.callId, frame.payload);
          else if (frame.kind === FRAME_KIND.PING) {
            void transport
              .ready()
              .then((ready) => write(socket, encodeFrame(FRAME_KIND.PONG, frame.callId, Uint8Array.of(ready ? 1 : 0))));
          } else {
            log.warn({ ...peer, kind: frame.kind }, 'back-end client sent an unknown frame kind; disconnected');
            socket.destroy();
            return;
          }
        }
      },
      (error) => {
        log.warn({ ...peer, err: error }, 'back-end client sent a broken frame; disconnected');
        socket.destroy();
      },
    );
    socket.on('error', (error) => log.debug({ ...peer, err: error }, 'back-end client connection error'));
    socket.on('close', () => {
      sockets.delete(socket);
      log.info({ ...peer, client: identity }, 'back-end client disconnected');
    });
  });

  /** Sockets corked until the end of this tick: the replies of one group commit leave in one TLS record. */
  const corked = new Set<TLSSocket>();
  function write(socket: TLSSocket, frame: Buffer): void {
    if (socket.destroyed || !socket.writable) return;
    if (!corked.has(socket)) {
      corked.add(socket);
      socket.cork();
      process.nextTick(() => {
        corked.delete(socket);
        socket.uncork();
      });
    }
    socket.write(frame);
  }

  function handleCall(socket: TLSSocket, callId: number, message: Buffer): void {
    // Shutting down: not started here, so the API may send it to another back-end at once.
    if (closing)
      return write(socket, encodeFrame(FRAME_KIND.NOT_STARTED, callId, Buffer.from('the back-end is shutting down')));
    inFlight++;
    // The transport answers only after the commit is durable; a reply to a client gone meanwhile is dropped
    // (the client retries with its idempotency key and gets the stored outcome).
    transport
      .call(message)
      .then(
        (reply) => write(socket, encodeFrame(FRAME_KIND.REPLY, callId, reply)),
        (error: unknown) => {
          log.error({ err: error, callId }, 'back-end runtime did not handle a call');
          // Only a call that never reached the runtime may be run elsewhere; one it held may have committed.
          if (error instanceof CallNotStartedError)
            write(socket, encodeFrame(FRAME_KIND.NOT_STARTED, callId, Buffer.from(error.message)));
          else
            write(
              socket,
              encodeFrame(FRAME_KIND.FAILED, callId, Buffer.from('the back-end runtime stopped during the call')),
            );
        },
      )
      .finally(() => {
        if (--inFlight === 0) drained?.();
      });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;

  let closed: Promise<void> | undefined;
  return {
    port,
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
        // Each connection's own close (and its log line) before this resolves.
        const connectionsClosed = [...sockets].map((socket) => new Promise((resolve) => socket.once('close', resolve)));
        for (const socket of sockets) socket.end();
        // Clients close their side on end; one that does not is cut off.
        const cutOff = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 2000);
        await Promise.all([stopped, ...connectionsClosed]);
        clearTimeout(cutOff);
      })();
      return closed;
    },
  };
}

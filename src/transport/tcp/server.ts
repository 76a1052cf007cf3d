/**
 * The back-end as a service (`corebridge backend serve`): serves the embedded back-end to API instances over
 * TCP with TLS 1.3 and mutual TLS, to clients whose certificate chains to BACKEND_TLS_CA and is named (by a SAN
 * entry) on BACKEND_ALLOWED_CLIENTS. Only those also on BACKEND_API_CLIENTS state the caller of a call freely;
 * any other allowed client calls as itself or not at all.
 */
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { BLANK_HEADER, RC, readHeader, writeMessage, type MessageHeader } from '../../backend/message.ts';
import { certificateNames, certificateSubject } from '../../tls/certificate-names.ts';
import { CallNotStartedError, type Transport } from '../transport.ts';
import { encodeFrame, FRAME_KIND, onFrames } from './frames.ts';

export interface BackendServiceOptions {
  host: string;
  port: number;
  /** PEM: this service's certificate and key, and the CA its clients' certificates must chain to. */
  cert: string | Buffer;
  key: string | Buffer;
  ca: string | Buffer;
  /** Certificate SAN names (DNS or URI) allowed to call. */
  allowedClients: ReadonlySet<string>;
  /** Those of them that are API instances: they may call for any principal, SYSTEM included. */
  apiClients: ReadonlySet<string>;
  /** To read the caller a plain client's call states, and to answer a refused one. */
  catalog: MessageCatalog;
  log: Logger;
}

export interface BackendService {
  /** The port it listens on (useful with port 0). */
  port: number;
  /** Stops accepting, answers the calls in flight, closes the connections. The transport is the caller's. */
  close(): Promise<void>;
}

const HANDSHAKE_TIMEOUT_MS = 10_000;

/** The reason code of a call whose stated caller its client may not claim; the call is answered, never run. */
export const CALLER_NOT_ALLOWED = 'CALLER_NOT_ALLOWED';

/**
 * Why a client that is not an API instance may not make this call (with the header it states), or null if it
 * may: it calls only as itself (its certificate name the principal), never as SYSTEM, and never for a customer,
 * whose ID is another identity.
 */
function claimRefusal(
  catalog: MessageCatalog,
  identity: string,
  message: Buffer,
): { reason: string; header: MessageHeader } | null {
  let header: MessageHeader;
  try {
    ({ header } = readHeader(catalog, message));
  } catch {
    return { reason: 'its header is unreadable', header: { ...BLANK_HEADER } };
  }
  if (header.role === 'SYSTEM')
    return { reason: 'only an API instance (BACKEND_API_CLIENTS) may call as SYSTEM', header };
  if (header.principal !== identity || header.role === 'CUSTOMER' || header.customerId.trim() !== '') {
    const reason = `this client may call only as itself (${identity}); acting for others is for BACKEND_API_CLIENTS`;
    return { reason, header };
  }
  return null;
}

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
    const subject = certificateSubject(socket);
    // An API identity first: a certificate that names both acts as the API.
    const identity =
      names.find((name) => options.apiClients.has(name) && options.allowedClients.has(name)) ??
      names.find((name) => options.allowedClients.has(name));
    const peer = { remoteAddress: socket.remoteAddress, remotePort: socket.remotePort, certificate: names, subject };
    if (!identity) {
      log.warn(peer, 'back-end client refused: its certificate is not on BACKEND_ALLOWED_CLIENTS');
      const named = names.length > 0 ? names.join(', ') : `CN=${subject ?? ''} (no SAN DNS or URI name)`;
      socket.end(
        encodeFrame(FRAME_KIND.REFUSED, 0, Buffer.from(`certificate ${named} is not allowed to call this back-end`)),
      );
      socket.destroySoon();
      return;
    }
    const api = options.apiClients.has(identity);
    sockets.add(socket);
    log.info({ ...peer, client: identity, api }, 'back-end client connected');
    socket.setNoDelay(true);
    onFrames(
      socket,
      (frames) => {
        for (const frame of frames) {
          if (frame.kind === FRAME_KIND.CALL) {
            const refusal = api ? null : claimRefusal(options.catalog, identity, frame.payload);
            if (refusal === null) handleCall(socket, frame.callId, frame.payload);
            else refuseCall(socket, frame.callId, { ...peer, client: identity }, refusal);
          } else if (frame.kind === FRAME_KIND.PING) {
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

  /** Answers a call its client may not make, as the back-end answers any refused call: nothing runs. */
  function refuseCall(
    socket: TLSSocket,
    callId: number,
    peer: object,
    { reason, header }: { reason: string; header: MessageHeader },
  ): void {
    log.warn(
      { ...peer, tran: header.tranCode, principal: header.principal, role: header.role, reason },
      'back-end call refused: caller not allowed for this client',
    );
    // An abend, not invalid input: an API instance that gets this is misconfigured (its certificate is not on
    // BACKEND_API_CLIENTS), and its users should see a 500, not the back-end's configuration.
    const reply = {
      ...header,
      returnCode: RC.ABEND,
      reasonCode: CALLER_NOT_ALLOWED,
      reasonText: reason.slice(0, 120),
    };
    write(socket, encodeFrame(FRAME_KIND.REPLY, callId, writeMessage(options.catalog, reply, null, undefined)));
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

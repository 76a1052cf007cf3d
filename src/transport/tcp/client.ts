/**
 * The API's transport to back-end services over TCP with TLS 1.3 and mutual TLS (BACKEND_URL): a pool of
 * connections per back-end, calls round-robin and matched to replies by call id; a call is sent once.
 */
import { connect, type TLSSocket } from 'node:tls';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { roundRobin } from '../../round-robin.ts';
import { parseBackendUrl } from '../settings.ts';
import { CallNotStartedError, ping, TransportError, TransportTimeoutError, type Transport } from '../transport.ts';
import { encodeFrame, FRAME_KIND, onFrames } from './frames.ts';

export interface TlsTransportOptions {
  /** tls://host:port of each back-end service. */
  urls: readonly string[];
  /** PEM: the CA the back-ends' certificates chain to, and this API's client certificate and key. */
  ca: string | Buffer;
  cert: string | Buffer;
  key: string | Buffer;
  /** Connections kept open to each back-end. */
  connectionsPerBackend: number;
  /** Time limit of one call, ms. */
  callTimeoutMs: number;
  log: Logger;
}

const PING_TIMEOUT_MS = 1000;
const HELLO_ID = 0;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;
/** How long a back-end whose runtime is down gets no new calls (on this connection). */
const AVOID_FAILED_MS = 1000;

/** A call in flight, on the connection it was last sent on. */
interface Call {
  message: Buffer;
  resolve(reply: Buffer): void;
  reject(error: Error): void;
  where: Connection | null;
  id: number;
  /** Sent to a second back-end after the first did not start it. */
  resent: boolean;
}

interface Connection {
  readonly url: string;
  up: boolean;
  /** After it answered NOT_STARTED or FAILED (its runtime is down), new calls avoid it until then (Date.now() ms). */
  avoidUntil: number;
  send(call: Call): void;
  forget(callId: number): void;
  /** Calls sent and not answered yet. */
  inFlight(): number;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface TlsTransport extends Transport {
  /** Resolves true once a connection to some back-end is up, false after `timeoutMs` without one. */
  connected(timeoutMs: number): Promise<boolean>;
}

export function openTlsTransport(options: TlsTransportOptions): TlsTransport {
  const { log } = options;
  let closing = false;

  function openConnection(url: string, onNotStarted: (call: Call) => void): Connection {
    const { host, port } = parseBackendUrl(url);
    const pending = new Map<number, Call>();
    const pings = new Map<number, (ready: boolean) => void>();
    let socket: TLSSocket | null = null;
    let corked = false;
    let nextId = 1;
    let retryMs = FIRST_RETRY_MS;
    let retryTimer: NodeJS.Timeout | undefined;
    /** Logged once per outage, not on every retry. */
    let failureLogged = false;
    let refusalLogged = false;

    /** Call ids run 1…2³²−1 and wrap: 0 is the first ping of each connection. */
    const takeId = () => {
      const id = nextId;
      nextId = nextId === 0xffffffff ? 1 : nextId + 1;
      return id;
    };
    const self: Connection = {
      url,
      up: false,
      avoidUntil: 0,
      send(call) {
        call.where = self;
        call.id = takeId();
        pending.set(call.id, call);
        // The calls of one event-loop turn leave in one TLS record and one system call, not one each.
        const current = socket!;
        if (!corked) {
          corked = true;
          current.cork();
          setImmediate(() => {
            corked = false;
            current.uncork();
          });
        }
        current.write(encodeFrame(FRAME_KIND.CALL, call.id, call.message));
      },
      forget(callId) {
        pending.delete(callId);
      },
      inFlight: () => pending.size,
      ping() {
        if (!self.up) return Promise.resolve(false);
        const id = takeId();
        return ping(pings, id, PING_TIMEOUT_MS, () => socket!.write(encodeFrame(FRAME_KIND.PING, id)));
      },
      close() {
        clearTimeout(retryTimer);
        const current = socket;
        if (!current || current.destroyed) return Promise.resolve();
        return new Promise<void>((resolve) => {
          current.once('close', () => resolve());
          current.end();
          setTimeout(() => current.destroy(), 2000).unref();
        });
      },
    };

    function dial(): void {
      if (closing) return;
      const current = connect({
        host,
        port,
        ca: options.ca,
        cert: options.cert,
        key: options.key,
        minVersion: 'TLSv1.3',
        // SNI carries host names only; an IP address is still checked against the certificate's IP entries.
        ...(isIP(host) ? {} : { servername: host }),
      });
      socket = current;
      current.setNoDelay(true);
      // In TLS 1.3 the server checks the client's certificate after the client's handshake is done: the
      // connection is up only once the service answers a first ping (call id 0), not at secureConnect.
      current.on('secureConnect', () => current.write(encodeFrame(FRAME_KIND.PING, HELLO_ID)));
      onFrames(
        current,
        (frames) => {
          for (const frame of frames) {
            if (frame.kind === FRAME_KIND.REPLY) {
              const call = pending.get(frame.callId);
              pending.delete(frame.callId);
              call?.resolve(frame.payload);
            } else if (frame.kind === FRAME_KIND.NOT_STARTED) {
              const call = pending.get(frame.callId);
              pending.delete(frame.callId);
              self.avoidUntil = Date.now() + AVOID_FAILED_MS;
              if (call) onNotStarted(call);
              // Not resent: it may have committed, and only the client's retry with its idempotency key can tell.
            } else if (frame.kind === FRAME_KIND.FAILED) {
              const call = pending.get(frame.callId);
              pending.delete(frame.callId);
              self.avoidUntil = Date.now() + AVOID_FAILED_MS;
              call?.reject(new TransportError(`back-end ${url}: ${frame.payload.toString('utf8')}`));
            } else if (frame.kind === FRAME_KIND.PONG && frame.callId === HELLO_ID) {
              self.up = true;
              retryMs = FIRST_RETRY_MS;
              if (failureLogged) log.info({ backend: url }, 'back-end connection restored');
              failureLogged = false;
              refusalLogged = false;
            } else if (frame.kind === FRAME_KIND.PONG) {
              const answer = pings.get(frame.callId);
              pings.delete(frame.callId);
              answer?.(frame.payload[0] === 1);
            } else if (frame.kind === FRAME_KIND.REFUSED) {
              if (!refusalLogged)
                log.error(
                  { backend: url, reason: frame.payload.toString('utf8') },
                  'back-end refused this API instance; retrying every 5 s',
                );
              refusalLogged = true;
              failureLogged = true;
              retryMs = MAX_RETRY_MS;
            }
          }
        },
        (error) => {
          log.error({ backend: url, err: error }, 'back-end sent a broken frame; reconnecting');
          current.destroy();
        },
      );
      current.on('error', (error) => {
        if (!failureLogged) log.warn({ backend: url, err: error }, 'back-end connection failed; retrying with backoff');
        failureLogged = true;
      });
      current.on('close', () => {
        self.up = false;
        if (socket === current) socket = null;
        const lost = new TransportError(`connection to back-end ${url} lost`);
        for (const call of pending.values()) call.reject(lost);
        pending.clear();
        for (const answer of pings.values()) answer(false);
        pings.clear();
        if (closing) return;
        if (!failureLogged) log.warn({ backend: url }, 'back-end connection closed; reconnecting');
        failureLogged = true;
        // Jitter: API instances that lost the same back-end do not all come back in the same millisecond.
        retryTimer = setTimeout(dial, retryMs * (0.5 + Math.random() / 2));
        retryTimer.unref();
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      });
    }

    dial();
    return self;
  }

  const connections: Connection[] = [];
  for (let i = 0; i < options.connectionsPerBackend; i++) {
    for (const url of options.urls) connections.push(openConnection(url, resendElsewhere));
  }
  const nextConnection = roundRobin(connections);

  /**
   * The next connection that is up, round-robin, preferring those not avoided; `except` skips one back-end.
   * An avoided one is still used when nothing else is up: its runtime may be back.
   */
  function pick(except?: string): Connection | undefined {
    const now = Date.now();
    return nextConnection(
      (c) => c.up && c.url !== except,
      (c) => c.avoidUntil > now,
    );
  }

  function resendElsewhere(call: Call): void {
    const from = call.where!.url;
    const other = call.resent ? undefined : pick(from);
    if (!other) return call.reject(new CallNotStartedError(`back-end ${from} could not handle the call`));
    call.resent = true;
    other.send(call);
  }

  return {
    call(request, { signal } = {}) {
      if (closing) return Promise.reject(new CallNotStartedError('transport closed'));
      if (signal?.aborted) return Promise.reject(new TransportError('call aborted'));
      const first = pick();
      if (!first) return Promise.reject(new CallNotStartedError('no back-end is reachable'));
      return new Promise<Buffer>((resolve, reject) => {
        const settle = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        const call: Call = {
          message: request,
          where: null,
          id: 0,
          resent: false,
          resolve(reply) {
            settle();
            resolve(reply);
          },
          reject(error) {
            settle();
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          call.where?.forget(call.id);
          call.reject(
            new TransportTimeoutError(`back-end ${call.where?.url} did not answer within ${options.callTimeoutMs} ms`),
          );
        }, options.callTimeoutMs);
        const onAbort = () => {
          call.where?.forget(call.id);
          call.reject(new TransportError('call aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        first.send(call);
      });
    },

    async connected(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!closing && !connections.some((c) => c.up)) {
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return !closing;
    },

    async ready() {
      if (closing) return false;
      const answers = await Promise.all(connections.filter((c) => c.up).map((c) => c.ping()));
      return answers.some(Boolean);
    },

    async close() {
      closing = true;
      // The calls already sent are answered (or time out) before the connections close.
      while (connections.some((c) => c.up && c.inFlight() > 0)) await new Promise((resolve) => setTimeout(resolve, 10));
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}

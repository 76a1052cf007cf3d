/**
 * The back-end in a worker thread, so SQLite work and its fsyncs leave the API's event loop and the worker can
 * group-commit; only bytes cross, and a dead worker is restarted.
 */
import { Worker } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import type { StoreLocation } from '../backend/store/open.ts';
import type { LogLevel } from '../logging/settings.ts';
import type { CobolProgramSettings } from './cobol-host.ts';
import { CallNotStartedError, ping, TransportError, type Transport } from './transport.ts';

export interface WorkerTransportOptions extends StoreLocation {
  logLevel: LogLevel;
  /** The main thread's logger: the worker's log lines are written, unchanged, to its destination. */
  logger: Logger;
  /** Load the demo data when the store is new (default true). */
  seedWhenEmpty?: boolean;
  /** Linked programs the worker runs in the COBOL program host (it starts the host processes). */
  cobol?: CobolProgramSettings;
}

export interface WorkerTransport extends Transport {
  /** For tests and operators: stops the current worker abruptly (like a crash); the transport restarts it. */
  terminateWorker(): Promise<void>;
}

/** What the worker entry receives as workerData. */
export interface BackendWorkerData {
  file: string;
  databaseUrl: string | null;
  poolSize: number | null;
  logLevel: LogLevel;
  seedWhenEmpty: boolean;
  cobol: CobolProgramSettings | null;
}

/**
 * Main thread → worker. The calls of one turn cross together: their messages back to back in one
 * transferred buffer, each ending at its `ends` entry (one buffer to hand over, not one per call).
 */
export type ToWorker =
  | { type: 'calls'; ids: number[]; ends: number[]; bytes: ArrayBuffer }
  | { type: 'ping'; id: number }
  | { type: 'close' };

/** Worker → main thread; replies packed as calls are. */
export type FromWorker =
  | { type: 'opened' }
  | { type: 'replies'; ids: number[]; ends: number[]; bytes: ArrayBuffer }
  | { type: 'pong'; id: number; ready: boolean }
  | { type: 'log'; line: string };

/**
 * The messages back to back in one fresh ArrayBuffer, to transfer (a Buffer may be a slice of Node's shared
 * pool, which must not be transferred), and where each ends: one transfer per batch, not one per message.
 */
export function packMessages(messages: readonly Uint8Array[]): { ends: number[]; bytes: ArrayBuffer } {
  let length = 0;
  for (const m of messages) length += m.length;
  const bytes = new ArrayBuffer(length);
  const into = new Uint8Array(bytes);
  const ends: number[] = [];
  let at = 0;
  for (const m of messages) {
    into.set(m, at);
    at += m.length;
    ends.push(at);
  }
  return { ends, bytes };
}

/** The messages of a packed batch, each a Buffer over its part of `bytes` (no copy). */
export function unpackMessages(ends: readonly number[], bytes: ArrayBuffer): Buffer[] {
  let start = 0;
  return ends.map((end) => {
    const message = Buffer.from(bytes, start, end - start);
    start = end;
    return message;
  });
}

const ENTRY = new URL('./backend-worker.ts', import.meta.url);
/**
 * The back-end thread's young generation, below V8's default (semi-spaces up to 8 MB, not 16). V8 starts marking
 * once the old generation's room below its limit is no larger than the young generation, and this thread's old
 * generation is small: with the default it ran mark-compact after mark-compact while its calls waited on a link.
 */
const BACKEND_YOUNG_GENERATION_MB = 24;
const PING_TIMEOUT_MS = 1000;
/** The longest a call that joins the next batch waits for one (CallOptions.joinNextBatch). */
export const JOIN_NEXT_BATCH_MS = 10;
const FIRST_RESTART_DELAY_MS = 50;
const MAX_RESTART_DELAY_MS = 5000;

interface PendingCall {
  resolve(reply: Buffer): void;
  reject(error: Error): void;
}

export async function openWorkerTransport(options: WorkerTransportOptions): Promise<WorkerTransport> {
  const { logger } = options;
  const data: BackendWorkerData = {
    file: options.file,
    databaseUrl: options.databaseUrl ?? null,
    poolSize: options.poolSize ?? null,
    logLevel: options.logLevel,
    seedWhenEmpty: options.seedWhenEmpty ?? true,
    cobol: options.cobol ?? null,
  };
  // pino keeps its destination under this symbol; worker lines bypass formatting but share the stream.
  const destination = Reflect.get(logger, pino.symbols.streamSym) as { write(line: string): unknown };
  const calls = new Map<number, PendingCall>();
  const pings = new Map<number, (ready: boolean) => void>();
  let nextId = 1;
  /** The running worker (maybe still opening the store), and the same one once it has opened it. */
  let current: Worker | null = null;
  let live: Worker | null = null;
  let restartDelay = FIRST_RESTART_DELAY_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  let closing = false;
  let closed: Promise<void> | undefined;
  /** Settled by the first worker: openWorkerTransport waits for it, and does not restart a first worker that fails. */
  let first: { resolve(): void; reject(error: unknown): void } | null = null;

  function failInFlight(): void {
    const error = new TransportError('back-end worker stopped');
    for (const call of calls.values()) call.reject(error);
    calls.clear();
    for (const answer of pings.values()) answer(false);
    pings.clear();
  }

  function spawn(): void {
    const worker = new Worker(ENTRY, {
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: BACKEND_YOUNG_GENERATION_MB },
    });
    current = worker;
    let opened = false;
    let failure: unknown;
    worker.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'log':
          destination.write(message.line);
          break;
        case 'opened':
          opened = true;
          live = worker;
          restartDelay = FIRST_RESTART_DELAY_MS;
          if (first) first.resolve();
          else logger.info('back-end worker restarted');
          first = null;
          break;
        case 'replies': {
          const replies = unpackMessages(message.ends, message.bytes);
          message.ids.forEach((id, i) => {
            const call = calls.get(id);
            calls.delete(id);
            call?.resolve(replies[i]!);
          });
          break;
        }
        case 'pong': {
          const answer = pings.get(message.id);
          pings.delete(message.id);
          answer?.(message.ready);
          break;
        }
      }
    });
    worker.on('error', (error) => {
      failure = error;
      live = null;
      failInFlight();
    });
    worker.on('exit', (exitCode) => {
      current = null;
      live = null;
      failInFlight();
      if (closing) return;
      if (first) {
        first.reject(failure ?? new Error(`back-end worker exited with code ${exitCode} before opening the store`));
        first = null;
        closing = true;
        return;
      }
      logger.error({ exitCode, err: failure }, 'back-end worker stopped; restarting it');
      // A worker that dies before opening the store will likely die again: back off.
      if (!opened) restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
      restartTimer = setTimeout(spawn, restartDelay);
      restartTimer.unref();
    });
  }

  await new Promise<void>((resolve, reject) => {
    first = { resolve, reject };
    spawn();
  });

  // Calls made in one turn of the event loop cross in one message: a postMessage (serialise, wake the
  // other thread) costs about as much as a whole inquiry, so under load it is paid per batch, not per call.
  let outgoing: { ids: number[]; messages: Buffer[] } | null = null;
  let flushScheduled = false;
  /** Sends calls that joined the next batch when no other call came to take them along. */
  let joinTimer: NodeJS.Timeout | null = null;
  function flush(): void {
    flushScheduled = false;
    if (joinTimer) clearTimeout(joinTimer);
    joinTimer = null;
    const batch = outgoing;
    outgoing = null;
    if (!batch) return;
    if (!live) return failInFlight();
    // Calls aborted (or failed by a worker's death) since they were made are not sent at all.
    const ids: number[] = [];
    const messages: Buffer[] = [];
    batch.ids.forEach((id, i) => {
      if (!calls.has(id)) return;
      ids.push(id);
      messages.push(batch.messages[i]!);
    });
    if (ids.length === 0) return;
    const { ends, bytes } = packMessages(messages);
    live.postMessage({ type: 'calls', ids, ends, bytes } satisfies ToWorker, [bytes]);
  }

  return {
    async call(request, { signal, joinNextBatch = false } = {}) {
      if (signal?.aborted) throw new TransportError('call aborted');
      if (closing) throw new CallNotStartedError('transport closed');
      // Restarting: fail at once, the API answers 503 + Retry-After rather than holding the request.
      if (!live) throw new CallNotStartedError('back-end worker not running');
      const id = nextId++;
      return new Promise<Buffer>((resolve, reject) => {
        // The worker may still run an aborted call; its reply is then dropped.
        const onAbort = () => {
          calls.delete(id);
          reject(new TransportError('call aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        calls.set(id, {
          resolve(reply) {
            signal?.removeEventListener('abort', onAbort);
            resolve(reply);
          },
          reject(error) {
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        });
        // Copied into the batch's buffer when the turn ends (flush).
        outgoing ??= { ids: [], messages: [] };
        outgoing.ids.push(id);
        outgoing.messages.push(request);
        if (flushScheduled) return;
        if (!joinNextBatch) {
          flushScheduled = true;
          setImmediate(flush);
        } else {
          joinTimer ??= setTimeout(flush, JOIN_NEXT_BATCH_MS);
        }
      });
    },

    async ready() {
      const worker = live;
      if (closing || !worker) return false;
      const id = nextId++;
      // A worker busy for longer than this is not ready to serve.
      return ping(pings, id, PING_TIMEOUT_MS, () => worker.postMessage({ type: 'ping', id } satisfies ToWorker));
    },

    close() {
      closed ??= new Promise<void>((resolve) => {
        flush();
        closing = true;
        clearTimeout(restartTimer);
        const worker = current;
        if (!worker) return resolve();
        worker.once('exit', () => resolve());
        // After the calls already posted: the worker answers them, closes the store and ends.
        worker.postMessage({ type: 'close' } satisfies ToWorker);
      });
      return closed;
    },

    async terminateWorker() {
      await current?.terminate();
    },
  };
}

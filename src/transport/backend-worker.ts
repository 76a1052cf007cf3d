/**
 * Entry of the back-end worker thread (started by src/transport/worker.ts): owns the store and the
 * programs. Group commit: every call that arrived since the last drain runs in one handleBatch (one
 * transaction, one fsync'd COMMIT), and no reply is posted before that commit returns.
 */
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { createBackend } from '../backend/index.ts';
import { createLogger } from '../logger.ts';
import { openProgramHost } from './cobol-host.ts';
import { packMessages, unpackMessages, type BackendWorkerData, type FromWorker, type ToWorker } from './worker.ts';

const port = parentPort;
if (!port) throw new Error('backend-worker.ts runs only as a worker thread');
const options = workerData as BackendWorkerData;

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

// Log lines go to the main thread, which writes them unchanged to its own destination (one log stream).
const lines = new Writable({
  decodeStrings: false,
  write(chunk: string | Buffer, _encoding, done) {
    post({ type: 'log', line: String(chunk) });
    done();
  },
});
const log = createLogger({ logLevel: options.logLevel }, lines);
// A failure here ends the thread with the error, which rejects openWorkerTransport (or retries a restart).
const backend = await createBackend({
  file: options.file,
  databaseUrl: options.databaseUrl,
  ...(options.poolSize ? { poolSize: options.poolSize } : {}),
  log,
  seedWhenEmpty: options.seedWhenEmpty,
  ...(options.cobol ? { linkHost: openProgramHost(options.cobol, log) } : {}),
});

let queue: Array<{ id: number; message: Buffer }> = [];
let drainScheduled = false;
/** Batches not answered yet: with PostgreSQL, several run at once. */
const draining = new Set<Promise<void>>();

function drain(): void {
  drainScheduled = false;
  if (queue.length === 0) return;
  const batch = queue;
  queue = [];
  const answered = answer(batch);
  draining.add(answered);
  // A failed COMMIT comes back as ABEND replies; were it to reject, the rejection ends the thread, and the transport
  // fails these calls.
  void answered.finally(() => draining.delete(answered));
}

function postReplies(ids: number[], messages: Buffer[]): void {
  const { ends, bytes } = packMessages(messages);
  post({ type: 'replies', ids, ends, bytes }, [bytes]);
}

/** Replies of calls that waited for a linked program, posted together at the end of the turn they came in. */
let late: { ids: number[]; messages: Buffer[] } | null = null;
function postLate(id: number, reply: Buffer): void {
  if (!late) {
    late = { ids: [], messages: [] };
    setImmediate(flushLate);
  }
  late.ids.push(id);
  late.messages.push(reply);
}
function flushLate(): void {
  if (!late) return;
  const { ids, messages } = late;
  late = null;
  postReplies(ids, messages);
}

async function answer(batch: Array<{ id: number; message: Buffer }>): Promise<void> {
  const replies = await backend.handleBatch(batch.map((call) => call.message));
  // One message back for the whole batch (see the main side for why); a call waiting for a linked
  // program in another process is answered once that answer is in and its transaction committed, with the
  // others that were answered in the same turn.
  const ids: number[] = [];
  const messages: Buffer[] = [];
  replies.forEach((reply, i) => {
    const id = batch[i]!.id;
    if (Buffer.isBuffer(reply)) {
      ids.push(id);
      messages.push(reply);
    } else {
      void reply.then((answered) => postLate(id, answered));
    }
  });
  if (ids.length > 0) postReplies(ids, messages);
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'calls': {
      const messages = unpackMessages(message.ends, message.bytes);
      message.ids.forEach((id, i) => queue.push({ id, message: messages[i]! }));
      if (!drainScheduled) {
        drainScheduled = true;
        // After the messages already delivered in this turn: they join the same batch.
        setImmediate(drain);
      }
      break;
    }
    case 'ping':
      void backend.ready().then((ready) => post({ type: 'pong', id: message.id, ready }));
      break;
    case 'close':
      // Port order: every call posted before the close is already queued; answer them (and the calls
      // waiting for a linked program), then end the thread.
      drain();
      void Promise.all(draining)
        .then(() => backend.idle())
        .then(() => backend.close())
        .finally(() => {
          flushLate();
          port.close();
        });
      break;
  }
});

post({ type: 'opened' });

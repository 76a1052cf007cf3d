/**
 * The operation runner: runs requests callers asked to have run later (Prefer: respond-async), claimed from the
 * back-end's durable queue (OPNXT) and recorded once (OPDONE); the idempotency key makes a repeated run harmless.
 */
import type { Logger } from 'pino';
import { decodeResponse, type BackendClient } from '../client/backend-client.ts';
import { isTransientFailure } from '../client/return-codes.ts';
import { systemCaller } from '../client/system-caller.ts';
import {
  isAsyncTransaction,
  TRANSACTIONS,
  type AsyncTranCode,
  type MessageCatalog,
  type TranCode,
} from '../backend/copybooks/index.ts';
import {
  BLANK_HEADER,
  RC,
  readHeader,
  REPLAYED_REASON,
  segmentReader,
  writeMessage,
  type MessageHeader,
} from '../backend/message.ts';
import { startBackgroundLoop } from '../background-loop.ts';
import type { Metrics } from '../observability/metrics.ts';
import { countOutcome } from '../observability/outcomes.ts';
import { openRabbitOperationQueue, type OperationQueue } from './rabbitmq-queue.ts';

export interface OperationRunnerOptions {
  backend: BackendClient;
  catalog: MessageCatalog;
  log: Logger;
  pollMs: number;
  /** After an operation ran (its events are for the relay). */
  onCompleted?: () => void;
  /** RabbitMQ (BROKER_URL): claimed operations go through its queues; null: they run here at once. */
  brokerUrl?: string | null;
  /** The app's metrics: a run's business outcome, as for a call made at once. */
  metrics?: Metrics;
}

export interface OperationRunner {
  /** An operation was submitted: look now. */
  kick(): void;
  close(): Promise<void>;
}

const BATCH = 16;
/**
 * Longer than a run: a runner that died lets its claims go after it. Through the broker, longer than a queue's wait.
 */
const LEASE_SECONDS = 30;
const BROKER_LEASE_SECONDS = 300;

interface Task {
  operationId: string;
  tran: AsyncTranCode;
  /** The transaction message, as the synchronous call sends it. */
  message: Buffer;
}

export function startOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const { backend, catalog } = options;
  const log = options.log.child({ component: 'operations' });
  const system = systemCaller(backend, 'corebridge-operations');

  async function claim(): Promise<Task[]> {
    const out = await system('OPNXT', {
      opnMaxItems: BATCH,
      opnLeaseSeconds: options.brokerUrl ? BROKER_LEASE_SECONDS : LEASE_SECONDS,
    });
    const read = segmentReader(catalog, out.segments);
    return Array.from({ length: out.body.seglItemCount }, () => {
      const t = read('OPTASK');
      const tran = t.optTranCode;
      if (!isAsyncTransaction(tran)) throw new Error(`operation ${t.optOperationId} names transaction ${tran}`);
      const header: MessageHeader = {
        ...BLANK_HEADER,
        tranCode: tran,
        correlationId: t.optCorrelationId,
        principal: t.optPrincipal,
        role: t.optRole,
        customerId: t.optCustomerId,
        idempotencyKey: t.optIdempotencyKey,
        // The run continues the submitting request's trace (its back-end line names it).
        traceparent: t.optTraceparent,
      };
      return {
        operationId: t.optOperationId,
        tran,
        message: writeMessage(catalog, header, catalog.request(tran), read(TRANSACTIONS[tran].request)),
      };
    });
  }

  /** Runs an operation's message and records its outcome; leaves it pending when the back-end could not take it. */
  async function run(operationId: string, message: Buffer): Promise<void> {
    const request = readHeader(catalog, message).header;
    const tran = request.tranCode as TranCode;
    const { header, body } = await backend.send({}, tran, message);
    if (isTransientFailure(header)) {
      log.warn({ operationId, reason: header.reasonCode }, 'operation could not run now; it stays pending');
      // From the broker: not acknowledged, so it comes again (after a pause, not in a tight loop).
      if (queue) {
        await new Promise((r) => setTimeout(r, 1000));
        throw new Error(`operation ${operationId} could not run now (${header.reasonCode})`);
      }
      return;
    }
    const answered = header.returnCode === RC.OK || header.returnCode === RC.REJECTED;
    // A run that finds its effect already made (REPLAYED_REASON) was counted when that effect was.
    if (answered && header.reasonCode !== REPLAYED_REASON && options.metrics)
      countOutcome(options.metrics, tran, decodeResponse(catalog, tran, body).body);
    await system(
      'OPDONE',
      {
        opdOperationId: operationId,
        opdReturnCode: header.returnCode,
        opdReasonCode: header.reasonCode,
        opdReasonText: header.reasonText,
        opdResultRecord: answered ? TRANSACTIONS[tran].response : '',
      },
      answered ? body : undefined,
    );
    options.onCompleted?.();
  }

  /** Claims pending operations and runs them, or passes them to the broker's queue; true when there may be more. */
  async function turn(): Promise<boolean> {
    // Through the broker only while connected to it (claims are held for it a while).
    const tasks = queue && !queue.ready() ? [] : await claim();
    const runs = await Promise.allSettled(
      tasks.map(async (task) => {
        if (!queue) return run(task.operationId, task.message);
        try {
          await queue.send(task.operationId, task.tran, task.message);
        } catch (error) {
          // Not confirmed by the broker: run here rather than leave it waiting for its claim to run out.
          log.warn({ err: error, operationId: task.operationId }, 'operation not queued on the broker; it runs here');
          await run(task.operationId, task.message);
        }
      }),
    );
    for (const r of runs)
      if (r.status === 'rejected')
        log.warn({ err: r.reason }, 'operation run failed; it is tried again when its claim runs out');
    return tasks.length === BATCH;
  }

  const queue: OperationQueue | null = options.brokerUrl
    ? openRabbitOperationQueue(options.brokerUrl, log, run, BATCH)
    : null;
  const loop = startBackgroundLoop({ log, what: 'claiming pending operations', pollMs: options.pollMs, turn });
  return {
    kick: () => loop.kick(),
    async close() {
      await loop.close();
      await queue?.close();
    },
  };
}

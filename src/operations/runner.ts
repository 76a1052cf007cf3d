/**
 * The operation runner: runs the requests callers asked to have run later (Prefer: respond-async). It claims
 * pending operations from the back-end's durable queue (OPNXT, as the SYSTEM caller, under a lease), sends each
 * one's request record to its transaction exactly as the synchronous call would (the same header: caller,
 * correlation id, idempotency key), and records the answer (OPDONE: the return and reason codes, and the
 * response record passed on as it came). Exactly once: an operation completes once (OPDONE changes nothing the
 * second time), and a run repeated after a crash, with the same idempotency key, finds the first run's effect.
 * A run the back-end could not take (its store or a program away) is left pending and tried again.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { decodeResponse, isTransientFailure } from '../api/backend-client.ts';
import { isAsyncTransaction, TRANSACTIONS, type MessageCatalog, type TranCode } from '../backend/copybooks/index.ts';
import { BLANK_HEADER, RC, readHeader, segmentReader, writeMessage, type MessageHeader } from '../backend/message.ts';
import type { Transport } from '../transport/transport.ts';

export interface OperationRunnerOptions {
  transport: Transport;
  catalog: MessageCatalog;
  log: Logger;
  pollMs: number;
  /** After an operation ran (its events are for the relay). */
  onCompleted?: () => void;
}

export interface OperationRunner {
  /** An operation was submitted: look now. */
  kick(): void;
  close(): Promise<void>;
}

const BATCH = 16;
/** Longer than a run: a runner that died lets its claims go after it. */
const LEASE_SECONDS = 30;

interface Task {
  operationId: string;
  header: MessageHeader;
  record: Record<string, unknown>;
}

export function startOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const { transport, catalog } = options;
  const log = options.log.child({ component: 'operations' });
  let closed = false;
  let kicked = false;
  let wake: (() => void) | null = null;
  let calls = 0;

  async function system(tran: TranCode, record: Record<string, unknown>, segment?: Buffer) {
    const head = writeMessage(
      catalog, { ...BLANK_HEADER, tranCode: tran, correlationId: `operations-${++calls}-${randomUUID()}`, principal: 'corebridge-operations', role: 'SYSTEM' },
      catalog.request(tran), record,
    );
    const { header, body } = readHeader(catalog, await transport.call(segment ? Buffer.concat([head, segment]) : head));
    if (header.returnCode !== RC.OK) throw new Error(`${tran} answered ${header.returnCode} ${header.reasonCode}: ${header.reasonText}`);
    return decodeResponse(catalog, tran, body);
  }

  async function claim(): Promise<Task[]> {
    const out = await system('OPNXT', { opnMaxItems: BATCH, opnLeaseSeconds: LEASE_SECONDS });
    const read = segmentReader(catalog, out.segments);
    return Array.from({ length: Number(out.body['seglItemCount']) }, () => {
      const t = read('OPTASK');
      const tran = String(t['optTranCode']);
      if (!isAsyncTransaction(tran)) throw new Error(`operation ${String(t['optOperationId'])} names transaction ${tran}`);
      return {
        operationId: String(t['optOperationId']),
        header: {
          ...BLANK_HEADER, tranCode: tran, correlationId: String(t['optCorrelationId']), principal: String(t['optPrincipal']),
          role: String(t['optRole']), customerId: String(t['optCustomerId']), idempotencyKey: String(t['optIdempotencyKey']),
        },
        record: read(TRANSACTIONS[tran].request),
      };
    });
  }

  async function run(task: Task): Promise<void> {
    const tran = task.header.tranCode as TranCode;
    const { header, body } = readHeader(catalog, await transport.call(writeMessage(catalog, task.header, catalog.request(tran), task.record)));
    if (isTransientFailure(header)) {
      log.warn({ operationId: task.operationId, reason: header.reasonCode }, 'operation could not run now; it stays pending');
      return;
    }
    const answered = header.returnCode === RC.OK || header.returnCode === RC.REJECTED;
    await system('OPDONE', {
      opdOperationId: task.operationId, opdReturnCode: header.returnCode, opdReasonCode: header.reasonCode, opdReasonText: header.reasonText,
      opdResultRecord: answered ? TRANSACTIONS[tran].response : '',
    }, answered ? body : undefined);
    options.onCompleted?.();
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  async function loop(): Promise<void> {
    let failures = 0;
    while (!closed) {
      kicked = false;
      let claimed = 0;
      try {
        const tasks = await claim();
        claimed = tasks.length;
        const runs = await Promise.allSettled(tasks.map(run));
        for (const r of runs) if (r.status === 'rejected') log.warn({ err: r.reason }, 'operation run failed; it is tried again when its claim runs out');
        failures = 0;
      } catch (error) {
        failures++;
        if (failures === 1 || failures % 10 === 0) log.warn({ err: error, failures }, 'could not claim pending operations');
      }
      if (closed) break;
      if (failures > 0) await sleep(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
      else if (claimed < BATCH && !kicked) await sleep(options.pollMs);
    }
  }

  const running = loop();
  return {
    kick() {
      kicked = true;
      wake?.();
    },
    async close() {
      closed = true;
      wake?.();
      await running;
    },
  };
}

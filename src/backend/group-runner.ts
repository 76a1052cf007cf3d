/**
 * The group runner: runs the calls of a batch as one store group (one group-committed transaction on SQLite)
 * and gives each its reply from its outcome, once the group's changes are durable.
 */
import type { Logger } from 'pino';
import { ABEND_REPLY, type Call, type ProgramCall } from './calls.ts';
import { READ_ONLY_TRANSACTIONS } from './copybooks/index.ts';
import { Refusal, type CallRunner } from './dispatch.ts';
import { LinkFailure, NeedsLink } from './links.ts';
import { RC } from './message.ts';
import type { ProgramReply } from './program.ts';
import { STORE_UNAVAILABLE, StoreUnavailableError, type BackendStore } from './store/tx.ts';

/**
 * Runs the calls not yet answered as one group. Each gets its reply, or `needs` when its program asked for a
 * link that must be made elsewhere first (the link coordinator then runs it again).
 */
export type GroupRunner = (calls: readonly Call[]) => Promise<void>;

function awaitsRun(call: Call): call is ProgramCall {
  return call.tran !== undefined && call.reply === undefined;
}

export function groupRunner(store: BackendStore, run: CallRunner, log: Logger): GroupRunner {
  /** The reply of a call whose run threw: what the client may be told of why. */
  function failedReply(call: ProgramCall, error: unknown): ProgramReply {
    const fields = { err: error, requestId: call.header.correlationId, tran: call.tran };
    if (error instanceof StoreUnavailableError) {
      log.error(fields, 'database unavailable');
      return { returnCode: RC.ABEND, reasonCode: STORE_UNAVAILABLE, reasonText: 'the database is not available' };
    }
    if (error instanceof LinkFailure) {
      log.error(fields, 'linked program failed');
      const reasonText = 'a program of this transaction did not complete';
      return { returnCode: RC.ABEND, reasonCode: error.reason, reasonText };
    }
    log.error(fields, 'transaction abended');
    return ABEND_REPLY;
  }

  return async (calls) => {
    const runnable = calls.filter(awaitsRun);
    if (runnable.length === 0) return;
    const readOnly = runnable.every((call) => READ_ONLY_TRANSACTIONS.has(call.tran));
    let results;
    try {
      results = await store.group(runnable, run, { readOnly });
    } catch (error) {
      // The commit failed: nothing of the group was kept, so no one may be told it was.
      log.error({ err: error, size: runnable.length }, 'group commit failed');
      for (const call of runnable) call.reply = ABEND_REPLY;
      return;
    }
    results.forEach((result, i) => {
      const call = runnable[i]!;
      if (result.ok) call.reply = result.value;
      else if (result.error instanceof Refusal) call.reply = result.error.reply;
      else if (result.error instanceof NeedsLink) call.needs = result.error;
      else call.reply = failedReply(call, result.error);
    });
  };
}

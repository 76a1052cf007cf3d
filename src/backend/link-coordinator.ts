/**
 * The link coordinator: for a call whose program asked for a program in the host (NeedsLink, links.ts), makes
 * that call there and runs the call again with the answer, until it completes.
 */
import type { Logger } from 'pino';
import type { CallCodec, ProgramCall } from './calls.ts';
import type { GroupRunner } from './group-runner.ts';
import { LINK_FAILURE, type LinkHost } from './links.ts';
import { RC } from './message.ts';

/** A program that keeps needing new answers from a linked program (its data keeps changing) gives up. */
const MAX_LINK_ROUNDS = 3;

export interface LinkCoordinator {
  /** The reply message of a call that needs a link, once the links are made and it has run again. */
  complete(call: ProgramCall, started: number): Promise<Buffer>;
  /** Resolves once no reply is waiting for a linked program. */
  idle(): Promise<void>;
}

export function linkCoordinator(options: {
  host: LinkHost | undefined;
  runGroup: GroupRunner;
  codec: CallCodec;
  log: Logger;
}): LinkCoordinator {
  const { host, runGroup, codec, log } = options;
  const inFlight = new Set<Promise<Buffer>>();

  // Calls whose link answers came in during one turn run again together: one group commit, one fsync.
  let again: Array<{ call: ProgramCall; done(): void }> = [];
  function runAgain(call: ProgramCall): Promise<void> {
    return new Promise((done) => {
      if (again.length === 0) setImmediate(() => void runAgainNow());
      again.push({ call, done });
    });
  }
  async function runAgainNow(): Promise<void> {
    const batch = again;
    again = [];
    await runGroup(batch.map((b) => b.call));
    for (const b of batch) b.done();
  }

  /** Makes the links a call asked for, running it again after each answer, until it completes. */
  async function completeWithLinks(call: ProgramCall, started: number): Promise<Buffer> {
    for (let round = 1; call.needs; round++) {
      const { program, message } = call.needs;
      call.needs = undefined;
      if (round > MAX_LINK_ROUNDS) {
        call.reply = {
          returnCode: RC.CONFLICT,
          reasonCode: 'CHANGED_DURING_DECISION',
          reasonText: 'the data this transaction reads kept changing; try again',
        };
        break;
      }
      let reply: Buffer;
      try {
        if (!host?.available()) throw new Error(`no host for ${program} is running`);
        reply = await host.call(message);
      } catch (error) {
        const timedOut = (error as { timedOut?: unknown }).timedOut === true;
        const fields = { err: error, requestId: call.header.correlationId, tran: call.tran, program };
        log.error(fields, 'linked program could not be called');
        call.reply = {
          returnCode: RC.ABEND,
          reasonCode: timedOut ? LINK_FAILURE.TIMEOUT : LINK_FAILURE.UNAVAILABLE,
          reasonText: 'a program of this transaction is not available',
        };
        break;
      }
      (call.answered ??= []).push({ request: message, reply });
      await runAgain(call);
    }
    return codec.write(call, started);
  }

  return {
    complete(call, started) {
      const answer = completeWithLinks(call, started);
      inFlight.add(answer);
      void answer.finally(() => inFlight.delete(answer));
      return answer;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

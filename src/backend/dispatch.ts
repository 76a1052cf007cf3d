/** Dispatch: runs a call's program, the one of its transaction code, with its context over the group's Tx. */
import type { Logger } from 'pino';
import type { ProgramCall } from './calls.ts';
import type { MessageCatalog, TranCode } from './copybooks/index.ts';
import type { LinkResolver } from './links.ts';
import { RC, segmentReader, type MessageHeader } from './message.ts';
import type { Program, ProgramReply } from './program.ts';
import { PROGRAMS } from './programs/index.ts';
import type { Tx } from './store/tx.ts';
import { isoNow } from '../iso-time.ts';
import { traceLogFields } from '../observability/trace-log.ts';

/** Signals that a program refused: its unit of the group rolls back, the reply still goes out. */
export class Refusal {
  readonly reply: ProgramReply;
  constructor(reply: ProgramReply) {
    this.reply = reply;
  }
}

/** Runs a call's program; rejects with Refusal when its outcome keeps no writes. */
export type CallRunner = (tx: Tx, call: ProgramCall) => Promise<ProgramReply>;

/** The program of a transaction, typed by it: PROGRAMS ties each code to the program of its records. */
function programOf<T extends TranCode>(tran: T): Program<T> {
  return PROGRAMS[tran];
}

export function callRunner(catalog: MessageCatalog, options: { log: Logger; link: LinkResolver }): CallRunner {
  const { log, link } = options;

  // A child logger per transaction costs an allocation per call: only made when debug lines are wanted.
  function programLog(header: MessageHeader): Logger {
    return log.isLevelEnabled('debug')
      ? log.child({ requestId: header.correlationId, tran: header.tranCode, ...traceLogFields(header.traceparent) })
      : log;
  }

  return async (tx, call) => {
    const { header } = call;
    const reply = await programOf(call.tran)(
      {
        tx,
        tranCode: call.tran,
        caller: call.caller,
        correlationId: header.correlationId,
        traceparent: header.traceparent,
        idempotencyKey: header.idempotencyKey,
        now: isoNow(),
        log: programLog(header),
        link: (program, record) => link(header, call.answered, program, record),
        segment: segmentReader(catalog, call.segments),
      },
      call.request,
    );
    // Only OK and business REJECTED outcomes keep their writes: anything else rolls back its unit.
    if (reply.returnCode !== RC.OK && reply.returnCode !== RC.REJECTED) throw new Refusal(reply);
    return reply;
  };
}

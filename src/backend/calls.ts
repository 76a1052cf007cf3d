/**
 * Message handling, both ends of a call: a message read into a call (header decoded, caller checked, request
 * record decoded) and the call's reply written back as a message.
 */
import type { Logger } from 'pino';
import { parseRole, type Caller } from './caller.ts';
import {
  decodeRecord,
  isTranCode,
  READ_ONLY_TRANSACTIONS,
  SYSTEM_TRANSACTIONS,
  type MessageCatalog,
  type RequestRecord,
  type TranCode,
} from './copybooks/index.ts';
import type { LinkAnswer, NeedsLink } from './links.ts';
import {
  BLANK_HEADER,
  encodeSegments,
  RC,
  readHeader,
  writeMessage,
  type MessageHeader,
  type ReturnCode,
} from './message.ts';
import type { ProgramReply } from './program.ts';
import { traceLogFields } from '../observability/trace-log.ts';

/** A message answered without running a program: unreadable, unknown, or refused before it ran. */
export interface AnsweredCall {
  readonly header: MessageHeader;
  readonly tran?: undefined;
  readonly reply: ProgramReply;
}

/** A message read and checked, for its program to run; `reply` is set once a run completes it. */
export interface ProgramCall {
  readonly header: MessageHeader;
  readonly tran: TranCode;
  readonly caller: Caller;
  readonly request: RequestRecord<TranCode>;
  /** The bytes after a fixed-length request record: its segments. */
  readonly segments: Buffer;
  reply?: ProgramReply;
  /** The link its last run could not make here (links.ts). */
  needs?: NeedsLink;
  /** Answers of links made for it elsewhere, for its next run. */
  answered?: LinkAnswer[];
}

export type Call = AnsweredCall | ProgramCall;

/** The reply of a call that failed in a way the client is not told about. */
export const ABEND_REPLY: ProgramReply = { returnCode: RC.ABEND, reasonCode: 'ABEND', reasonText: 'internal error' };

export interface CallCodec {
  /** The call a message asks for; never throws: what cannot run comes back answered. */
  read(message: Buffer): Call;
  /** The reply message of a call (ABEND when it has no reply); logs its end, timed from `started`. */
  write(call: Call, started: number): Buffer;
}

/** A call answered at once, its program not run. */
function refused(header: MessageHeader, returnCode: ReturnCode, reasonCode: string, reasonText: string): AnsweredCall {
  return { header, reply: { returnCode, reasonCode, reasonText } };
}

/** `readOnly`: an instance that serves inquiries only refuses every other transaction. */
export function callCodec(catalog: MessageCatalog, options: { log: Logger; readOnly: boolean }): CallCodec {
  const { log, readOnly } = options;

  function read(message: Buffer): Call {
    let header: MessageHeader;
    let body: Buffer;
    try {
      ({ header, body } = readHeader(catalog, message));
    } catch (error) {
      log.error({ err: error }, 'unreadable message header');
      // write() fills in the return and reason codes from the reply.
      return refused({ ...BLANK_HEADER }, RC.INVALID_INPUT, 'MALFORMED_HEADER', 'unreadable header');
    }
    const tran = header.tranCode;
    if (!isTranCode(tran)) {
      return refused(header, RC.UNKNOWN_TRAN, 'UNKNOWN_TRANSACTION', `unknown transaction ${tran}`);
    }
    if (readOnly && !READ_ONLY_TRANSACTIONS.has(tran)) {
      log.error({ requestId: header.correlationId, tran }, 'a change was sent to a read-only back-end');
      return refused(header, RC.ABEND, 'READ_ONLY_BACKEND', 'this back-end instance serves inquiries only');
    }
    const role = parseRole(header.role);
    // The service's own transactions (event relay, webhook dispatcher, operation runner) take the SYSTEM caller,
    // and it nothing else.
    const callerFits = role !== undefined && (role === 'SYSTEM') === SYSTEM_TRANSACTIONS.has(tran);
    if (!role || !callerFits || !header.principal || (role === 'CUSTOMER' && !header.customerId)) {
      return refused(header, RC.INVALID_INPUT, 'INVALID_CALLER', 'the header names no valid caller');
    }
    const caller: Caller = {
      principal: header.principal,
      role,
      customerId: role === 'CUSTOMER' ? header.customerId : null,
    };
    try {
      const layout = catalog.request(tran);
      const fixed = layout.minLength === layout.maxLength && body.length > layout.maxLength;
      const request = decodeRecord<RequestRecord<TranCode>>(layout, fixed ? body.subarray(0, layout.maxLength) : body);
      return { header, tran, caller, request, segments: fixed ? body.subarray(layout.maxLength) : Buffer.alloc(0) };
    } catch (error) {
      log.warn({ err: error, requestId: header.correlationId, tran }, 'malformed request record');
      return refused(header, RC.INVALID_INPUT, 'MALFORMED_RECORD', 'the request record does not match its copybook');
    }
  }

  function answer(header: MessageHeader, reply: ProgramReply): Buffer {
    const out: MessageHeader = {
      ...header,
      returnCode: reply.returnCode,
      reasonCode: reply.reasonCode ?? '',
      reasonText: (reply.reasonText ?? '').slice(0, 120),
    };
    const layout = isTranCode(header.tranCode) && reply.body ? catalog.response(header.tranCode) : null;
    const message = writeMessage(catalog, out, layout, reply.body);
    if (!layout || !reply.segments?.length) return message;
    return Buffer.concat([message, ...encodeSegments(catalog, reply.segments)]);
  }

  function write(call: Call, started: number): Buffer {
    let reply = call.reply ?? ABEND_REPLY;
    let out: Buffer;
    try {
      out = answer(call.header, reply);
    } catch (error) {
      const { correlationId, tranCode } = call.header;
      log.error({ err: error, requestId: correlationId, tran: tranCode }, 'response record could not be encoded');
      reply = ABEND_REPLY;
      out = answer(call.header, reply);
    }
    if (log.isLevelEnabled('debug')) {
      log.debug(
        {
          requestId: call.header.correlationId,
          tran: call.header.tranCode,
          rc: reply.returnCode,
          reason: reply.reasonCode || undefined,
          ms: Math.round((performance.now() - started) * 100) / 100,
          ...traceLogFields(call.header.traceparent),
        },
        'transaction ended',
      );
    }
    return out;
  }

  return { read, write };
}

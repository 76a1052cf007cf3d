/**
 * The back-end client: builds the CBHDR header from a plain call context, encodes the transaction record, sends
 * it over the transport and reads the answer. It measures each transaction (duration metric, CLIENT span) and
 * counts the business outcomes its answers decide, for every caller alike.
 */
import type { Span } from '@opentelemetry/api';
import { ROLE_CODES } from '../auth/roles.ts';
import { principalIdFor, principalWidth } from '../auth/principal-id.ts';
import {
  decodeRecord,
  TRANSACTIONS,
  type AsyncTranCode,
  type MessageCatalog,
  type RequestRecord,
  type ResponseRecord,
  type TranCode,
} from '../backend/copybooks/index.ts';
import { RC, readHeader, REPLAYED_REASON, writeMessage, type MessageHeader } from '../backend/message.ts';
import { ApiError } from '../errors.ts';
import type { Observability } from '../observability/index.ts';
import { countOutcome } from '../observability/outcomes.ts';
import { formatTraceparent } from '../observability/trace-context.ts';
import { TransportTimeoutError, type CallOptions, type Transport } from '../transport/transport.ts';
import type { CallContext, CallFacts } from './call-context.ts';
import { encodeOrRefuse, type RecordPointers } from './refusal.ts';
import { errorFor, RETRY_SOON } from './return-codes.ts';

export interface BackendOutcome<R> {
  /** true for a business rejection (RC 04): HTTP 200 with the reason in the body. */
  rejected: boolean;
  reasonCode: string;
  /** The response record, typed by its copybook. */
  body: R;
  /** The bytes after a fixed-length response record: its segments (an event list's events), if any. */
  segments: Buffer;
}

export interface CallExtras {
  /** Where each record field's value came from in the request (RecordPointers). */
  pointers?: RecordPointers;
  /** A record sent after the request record (OPDONE's result). */
  segment?: Buffer;
}

export interface BackendClient extends MessageSender {
  /** The transaction's request record, typed by its copybook, and its answer; anything but OK or REJECTED throws. */
  call<T extends TranCode>(
    ctx: CallContext,
    tran: T,
    record: RequestRecord<T>,
    extras?: CallExtras,
  ): Promise<BackendOutcome<ResponseRecord<T>>>;
  /** The same request, put on the back-end's queue to run later (OPSUBM): answers the operation (OPREC). */
  submit<T extends AsyncTranCode>(
    ctx: CallContext,
    tran: T,
    record: RequestRecord<T>,
    pointers?: RecordPointers,
  ): Promise<BackendOutcome<ResponseRecord<'OPSUBM'>>>;
}

/** What sending a message already encoded takes of a call context: its header is in the message. */
export type ExchangeContext = Pick<CallContext, 'facts' | 'log' | 'deadline' | 'joinNextBatch'>;

/** What a message crosses: the transport, the catalog its header is read with, and what measures the call. */
interface Wire {
  catalog: Pick<MessageCatalog, 'header'>;
  transport: Transport;
  observability: Observability;
}

export interface BackendClientOptions extends Wire {
  catalog: MessageCatalog;
}

/** Sends messages already encoded (a COBOL program's COMMAREA, with the host's own header layout). */
export interface MessageSender {
  send(ctx: ExchangeContext, tran: string, message: Buffer): Promise<{ header: MessageHeader; body: Buffer }>;
}

// The message's header was written by the caller, trace context included: no span of the client's own.
export function createMessageSender(wire: Wire): MessageSender {
  return { send: (ctx, tran, message) => exchange(wire, ctx, tran, message, null) };
}

/** The response record, and the segments after it where the record is of fixed length. */
export function decodeResponse<T extends TranCode>(
  catalog: MessageCatalog,
  tran: T,
  bytes: Buffer,
): { body: ResponseRecord<T>; segments: Buffer } {
  const layout = catalog.response(tran);
  const fixed = layout.minLength === layout.maxLength && bytes.length > layout.maxLength;
  const body = decodeRecord<ResponseRecord<T>>(layout, fixed ? bytes.subarray(0, layout.maxLength) : bytes);
  return { body, segments: fixed ? bytes.subarray(layout.maxLength) : Buffer.alloc(0) };
}

export function createBackendClient(wire: BackendClientOptions): BackendClient {
  const {
    catalog,
    observability: { metrics, tracing },
  } = wire;
  const width = principalWidth(catalog.header);

  /** The record header of a call: its correlation id, the caller, the idempotency key, and its trace. */
  function headerFor(ctx: CallContext, tran: string, traceparent: string): MessageHeader {
    return {
      tranCode: tran,
      correlationId: ctx.correlationId,
      principal: principalIdFor(ctx.caller.subject, width),
      role: ROLE_CODES[ctx.caller.role],
      customerId: ctx.caller.customerId ?? '',
      idempotencyKey: ctx.idempotencyKey ?? '',
      returnCode: 0,
      reasonCode: '',
      reasonText: '',
      traceparent,
    };
  }

  /** The CLIENT span of a call made under a span of the caller's, when tracing is on. */
  function spanFor(ctx: CallContext, tran: string): Span | null {
    return tracing && ctx.span ? tracing.startTransaction(ctx.span, tran) : null;
  }

  /** Encodes the request under the call's span (ended at once when the record cannot hold a value). */
  function encode(
    ctx: CallContext,
    tran: string,
    span: Span | null,
    write: (header: MessageHeader) => Buffer,
    pointers: RecordPointers,
  ): Buffer {
    const traceparent = span ? formatTraceparent(span.spanContext()) : (ctx.traceparent ?? '');
    try {
      return encodeOrRefuse(() => write(headerFor(ctx, tran, traceparent)), pointers);
    } catch (error) {
      if (span) tracing?.endTransaction(span, 'refused', '');
      throw error;
    }
  }

  async function answer<T extends TranCode>(
    ctx: CallContext,
    tran: T,
    request: Buffer,
    span: Span | null,
  ): Promise<BackendOutcome<ResponseRecord<T>>> {
    const { header, body } = await exchange(wire, ctx, tran, request, span);
    if (header.returnCode !== RC.OK && header.returnCode !== RC.REJECTED) {
      // The service's own transactions keep the back-end's words for the log; a client's are told in its words.
      if (ctx.caller.role === 'system') {
        throw new Error(`${tran} answered ${header.returnCode} ${header.reasonCode}: ${header.reasonText}`);
      }
      throw errorFor(header, ctx.log);
    }
    const decoded = decodeResponse(catalog, tran, body);
    // A replay tells of an outcome counted when it was decided.
    if (header.reasonCode !== REPLAYED_REASON) countOutcome(metrics, tran, decoded.body);
    return { rejected: header.returnCode === RC.REJECTED, reasonCode: header.reasonCode, ...decoded };
  }

  return {
    call(ctx, tran, record, extras = {}) {
      const span = spanFor(ctx, tran);
      const request = encode(
        ctx,
        tran,
        span,
        (header) => {
          const head = writeMessage(catalog, header, catalog.request(tran), record);
          return extras.segment ? Buffer.concat([head, extras.segment]) : head;
        },
        extras.pointers ?? {},
      );
      return answer(ctx, tran, request, span);
    },
    submit(ctx, tran, record, pointers = {}) {
      const span = spanFor(ctx, 'OPSUBM');
      // The request record as the synchronous call would send it, after OPSUBI, under the same header.
      const request = encode(
        ctx,
        'OPSUBM',
        span,
        (header) =>
          Buffer.concat([
            writeMessage(catalog, header, catalog.request('OPSUBM'), { opsTranCode: tran }),
            catalog.segment(TRANSACTIONS[tran].request).encode(record),
          ]),
        pointers,
      );
      return answer(ctx, 'OPSUBM', request, span);
    },
    ...createMessageSender(wire),
  };
}

/**
 * Sends a message and reads the answer's header, recording the call's facts as far as it got and its duration
 * by transaction and return code. A transport that does not answer is told in the client's words: 504 past
 * its time limit, else 503 to retry.
 */
async function exchange(wire: Wire, ctx: ExchangeContext, tran: string, message: Buffer, span: Span | null) {
  const {
    catalog,
    transport,
    observability: { metrics, tracing },
  } = wire;
  const facts: CallFacts = ctx.facts ?? { tran, rc: null, reason: undefined, ms: 0 };
  facts.tran = tran;
  const options: CallOptions = {};
  if (ctx.joinNextBatch) options.joinNextBatch = true;
  if (ctx.deadline !== undefined) options.signal = AbortSignal.timeout(Math.max(0, ctx.deadline - Date.now()));
  const started = performance.now();
  let response: Buffer;
  try {
    response = await transport.call(message, options);
  } catch (error) {
    const failure = error instanceof TransportTimeoutError ? 'timeout' : 'unavailable';
    metrics.observeTransaction(tran, failure, (performance.now() - started) / 1000);
    if (span) tracing?.endTransaction(span, failure, '');
    ctx.log?.error({ err: error }, 'back-end call failed');
    if (failure === 'timeout') throw new ApiError('BACKEND_TIMEOUT', undefined, RETRY_SOON);
    throw new ApiError('BACKEND_UNAVAILABLE', undefined, RETRY_SOON);
  } finally {
    facts.ms = Math.round((performance.now() - started) * 100) / 100;
  }
  const read = readHeader(catalog, response);
  facts.rc = read.header.returnCode;
  facts.reason = read.header.reasonCode || undefined;
  metrics.observeTransaction(tran, facts.rc, facts.ms / 1000);
  if (span) tracing?.endTransaction(span, facts.rc, read.header.reasonCode);
  return read;
}

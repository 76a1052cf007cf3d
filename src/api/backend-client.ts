/**
 * The API's side of the transport: builds the CBHDR header from the request (correlation id, caller,
 * idempotency key, traceparent), encodes the transaction record, and maps the back-end's return codes to
 * HTTP. It measures each transaction (duration metric, CLIENT span) and counts the business outcomes its
 * answers decide, in one place for every route.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import {
  READ_ONLY_TRANSACTIONS, TRANSACTIONS, type AsyncTranCode, type MessageCatalog, type RequestRecord, type ResponseRecord, type TranCode,
} from '../backend/copybooks/index.ts';
import { LINK_FAILURE } from '../backend/links.ts';
import { STORE_UNAVAILABLE } from '../backend/store/tx.ts';
import { BLANK_HEADER, RC, readHeader, writeMessage, type MessageHeader } from '../backend/message.ts';
import { TransportTimeoutError, type CallOptions, type Transport } from '../transport/transport.ts';
import { principalIdFor, principalWidth } from './auth/principal-id.ts';
import { ApiError } from './errors.ts';
import type { BackendCallFacts } from './fastify-types.ts';
import { RecordEncodeError, type EncodeLimit } from '../records/index.ts';
import { requestTraceparent } from '../observability/index.ts';
import { countOutcome } from '../observability/outcomes.ts';
import { formatTraceparent } from '../observability/trace-context.ts';
import type { Span } from '@opentelemetry/api';

export interface BackendOutcome<R> {
  /** true for a business rejection (RC 04): HTTP 200 with the reason in the body. */
  rejected: boolean;
  reasonCode: string;
  /** The response record, typed by its copybook. */
  body: R;
  /** The bytes after a fixed-length response record: its segments (an event list's events), if any. */
  segments: Buffer;
}

export interface BackendClient {
  /**
   * The transaction's request record, typed by its copybook, and its answer. `pointers`: where each record
   * field's value came from in the request (RecordPointers).
   */
  call<T extends TranCode>(tran: T, req: FastifyRequest, record: RequestRecord<T>, pointers?: RecordPointers): Promise<BackendOutcome<ResponseRecord<T>>>;
  /** The same request, put on the back-end's queue to run later (OPSUBM): answers the operation (OPREC). */
  submit<T extends AsyncTranCode>(tran: T, req: FastifyRequest, record: RequestRecord<T>, pointers?: RecordPointers): Promise<BackendOutcome<ResponseRecord<'OPSUBM'>>>;
}

/**
 * A back-end that did not answer (503) or not in time (504): retrying is safe with the same Idempotency-Key,
 * and worth it soon: a restarted back-end or another instance takes over within a second or two.
 */
const RETRY_SOON = { headers: { 'retry-after': '1' } };

export const ROLE_CODES = { customer: 'CUSTOMER', agent: 'AGENT', partner: 'PARTNER' } as const;

/**
 * Sends a message and reads the answer's header, recording the call's facts for the request's log line as
 * far as it got, and its duration by transaction and return code; ends the transaction's span when given
 * one. A transport that does not answer is told in the client's words: 504 past its time limit, else 503
 * to retry.
 */
export async function callAndRead(
  req: FastifyRequest, transport: Transport, tran: string, message: Buffer, catalog: Pick<MessageCatalog, 'header'>, span: Span | null = null,
): Promise<{ header: MessageHeader; body: Buffer }> {
  const { metrics, tracing } = req.server.observability;
  const facts: BackendCallFacts = { tran, rc: null, reason: undefined, ms: 0 };
  req.backendCall = facts;
  const started = performance.now();
  let response: Buffer;
  try {
    response = await transport.call(message);
  } catch (error) {
    const failure = error instanceof TransportTimeoutError ? 'timeout' : 'unavailable';
    metrics.observeTransaction(tran, failure, (performance.now() - started) / 1000);
    if (span) tracing?.endTransaction(span, failure, '');
    req.log.error({ err: error }, 'back-end call failed');
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

/** The response record, and the segments after it where the record is of fixed length. */
export function decodeResponse<T extends TranCode>(catalog: MessageCatalog, tran: T, bytes: Buffer): { body: ResponseRecord<T>; segments: Buffer } {
  const layout = catalog.response(tran);
  const fixed = layout.minLength === layout.maxLength && bytes.length > layout.maxLength;
  // The one place a decoded answer meets its type: the layout decoded it from the copybook records.ts is generated from.
  const body = layout.decode(fixed ? bytes.subarray(0, layout.maxLength) : bytes) as unknown as ResponseRecord<T>;
  return { body, segments: fixed ? bytes.subarray(layout.maxLength) : Buffer.alloc(0) };
}

/** A back-end answer other than OK or REJECTED, in the client's words: the error the API answers with. */
export function errorFor(header: Pick<MessageHeader, 'returnCode' | 'reasonCode' | 'reasonText'>, log?: FastifyRequest['log']): ApiError {
  const reason = header.reasonCode || undefined;
  const text = header.reasonText || undefined;
  switch (header.returnCode) {
    case RC.NOT_FOUND:
      return new ApiError('NOT_FOUND', text, { reason });
    case RC.CONFLICT:
      if (reason === 'IDEMPOTENCY_KEY_REUSED') return new ApiError('IDEMPOTENCY_KEY_REUSED', text, { reason });
      return new ApiError('CONFLICT', text, { reason });
    case RC.RULE_FAILED:
      return new ApiError('BUSINESS_RULE_VIOLATION', text, { reason });
    case RC.INVALID_INPUT:
      return new ApiError('VALIDATION_FAILED', text, { reason });
    case RC.STALE_VERSION:
      return new ApiError('PRECONDITION_FAILED', text, { reason });
    default:
      log?.error({ rc: header.returnCode, reason }, 'back-end abended');
      // A linked program's failure, told in the client's words: no program names, no return codes.
      if (reason === LINK_FAILURE.FAILED) return new ApiError('BACKEND_PROGRAM_FAILED');
      if (reason === LINK_FAILURE.TIMEOUT) return new ApiError('BACKEND_TIMEOUT', undefined, RETRY_SOON);
      // The program, or the back-end's database, cannot be reached: nothing was kept, or a retry finds what was.
      if (isTransientFailure(header)) return new ApiError('BACKEND_UNAVAILABLE', undefined, RETRY_SOON);
      return new ApiError('INTERNAL_ERROR');
  }
}

/** An abend a retry may get past: the store or a linked program was not there, or not in time. */
export function isTransientFailure(header: Pick<MessageHeader, 'returnCode' | 'reasonCode'>): boolean {
  return header.returnCode === RC.ABEND
    && (header.reasonCode === LINK_FAILURE.UNAVAILABLE || header.reasonCode === LINK_FAILURE.TIMEOUT || header.reasonCode === STORE_UNAVAILABLE);
}

/** The record header of a request: its correlation id, the caller, the idempotency key, and the trace it belongs to. */
function requestHeader(tran: string, req: FastifyRequest, principalWidth: number, traceparent: string): MessageHeader {
  const principal = req.principal;
  if (!principal) throw new Error('back-end call without an authenticated caller');
  return {
    tranCode: tran,
    correlationId: req.id,
    principal: principalIdFor(principal.subject, principalWidth),
    role: ROLE_CODES[principal.role],
    customerId: principal.customerId ?? '',
    idempotencyKey: req.idempotency?.key ?? '',
    returnCode: 0,
    reasonCode: '',
    reasonText: '',
    traceparent,
  };
}

/** What each record code page holds, in a client's words. */
const CHARACTER_SETS: Record<string, string> = {
  cp1140: 'text holds the Western European (Latin-1) letters, digits and punctuation, and €',
  cp037: 'text holds the Western European (Latin-1) letters, digits and punctuation',
  ascii: 'text holds ASCII characters only',
  latin1: 'text holds the Western European (Latin-1) characters only',
};

/** A limit of the record, in the client's words (the codec names pictures and code pages). */
export function refusalDetail(limit: EncodeLimit | undefined): string {
  switch (limit?.kind) {
    case 'length': return `must have at most ${limit.max} characters`;
    case 'decimals': return `must have at most ${limit.max} decimal place${limit.max === 1 ? '' : 's'}`;
    case 'range': return `must be between ${limit.min} and ${limit.max}`;
    case 'character': return `character "${limit.character}" cannot be stored: ${CHARACTER_SETS[limit.charset] ?? 'it is not in the back-end\'s character set'}`;
    default: return 'is not a value this field can hold';
  }
}

/**
 * `pointers`: record field path (`cusaAddr.cusaAddrLine1`) → the request's JSON pointer it came from, for
 * every field a client's value reaches. A value the record cannot hold is reported at that pointer.
 */
export type RecordPointers = Record<string, string>;

/** Encodes a record, telling a value it cannot hold against the JSON pointer the client sent it at. */
function encodeOrRefuse(encode: () => Buffer, pointers: RecordPointers): Buffer {
  try {
    return encode();
  } catch (error) {
    if (!(error instanceof RecordEncodeError)) throw error;
    const pointer = pointers[error.path] ?? pointers[error.path.split(/[.[]/)[0] ?? ''] ?? '';
    const detail = refusalDetail(error.limit);
    throw new ApiError('VALIDATION_FAILED', `${pointer || 'a value'} ${detail}`, { violations: [{ pointer, in: 'body', detail }] });
  }
}

/** `afterChange`: called with the transaction code when one that changes data has been answered (the event relay looks at once). */
export function createBackendClient(catalog: MessageCatalog, transport: Transport, afterChange?: (tran: TranCode) => void): BackendClient {
  const width = principalWidth(catalog.header);
  async function exchange<T extends TranCode>(tran: T, req: FastifyRequest, request: Buffer, span: Span | null): Promise<BackendOutcome<ResponseRecord<T>>> {
    const { header, body } = await callAndRead(req, transport, tran, request, catalog, span);
    if (header.returnCode !== RC.OK && header.returnCode !== RC.REJECTED) throw errorFor(header, req.log);
    if (afterChange && !READ_ONLY_TRANSACTIONS.has(tran)) afterChange(tran);
    const decoded = decodeResponse(catalog, tran, body);
    countOutcome(req.server.observability.metrics, tran, decoded.body);
    return { rejected: header.returnCode === RC.REJECTED, reasonCode: header.reasonCode, ...decoded };
  }
  return {
    call(tran, req, record, pointers = {}) {
      const span = transactionSpan(req, tran);
      const traceparent = span ? formatTraceparent(span.spanContext()) : requestTraceparent(req);
      let request: Buffer;
      try {
        request = encodeOrRefuse(() => writeMessage(catalog, requestHeader(tran, req, width, traceparent), catalog.request(tran), record), pointers);
      } catch (error) {
        if (span) req.server.observability.tracing?.endTransaction(span, 'refused', '');
        throw error;
      }
      return exchange(tran, req, request, span);
    },
    submit(tran, req, record, pointers = {}) {
      const span = transactionSpan(req, 'OPSUBM');
      const traceparent = span ? formatTraceparent(span.spanContext()) : requestTraceparent(req);
      let request: Buffer;
      try {
        // The request record as the synchronous call would send it, after OPSUBI, under the same header.
        request = encodeOrRefuse(() => Buffer.concat([
          writeMessage(catalog, requestHeader('OPSUBM', req, width, traceparent), catalog.request('OPSUBM'), { opsTranCode: tran }),
          catalog.segment(TRANSACTIONS[tran].request).encode(record),
        ]), pointers);
      } catch (error) {
        if (span) req.server.observability.tracing?.endTransaction(span, 'refused', '');
        throw error;
      }
      return exchange('OPSUBM', req, request, span);
    },
  };
}

/** The CLIENT span of a transaction, when tracing is on: its context goes in the header, so the back-end's line names it. */
function transactionSpan(req: FastifyRequest, tran: string): Span | null {
  const tracing = req.server.observability.tracing;
  return tracing ? tracing.startTransaction(req.traceSpan, tran) : null;
}

/**
 * The service's own transactions (the event relay's, the webhook dispatcher's, the operation runner's), sent as
 * the SYSTEM caller under `principal`: anything but OK is an error. `segment`: a record after the request record.
 * `callOptions` go with every call (the relay's and the webhook dispatcher's join the next batch).
 */
export function systemCaller(transport: Transport, catalog: MessageCatalog, principal: string, callOptions: CallOptions = {}) {
  let calls = 0;
  const prefix = `${principal}-${randomUUID()}`;
  return async <T extends TranCode>(tran: T, record: RequestRecord<T>, segment?: Buffer) => {
    const head = writeMessage(catalog, { ...BLANK_HEADER, tranCode: tran, correlationId: `${prefix}-${++calls}`, principal, role: 'SYSTEM' }, catalog.request(tran), record);
    const { header, body } = readHeader(catalog, await transport.call(segment ? Buffer.concat([head, segment]) : head, callOptions));
    if (header.returnCode !== RC.OK) throw new Error(`${tran} answered ${header.returnCode} ${header.reasonCode}: ${header.reasonText}`);
    return decodeResponse(catalog, tran, body);
  };
}

/**
 * A transaction message is the CBHDR header record followed by the transaction's own record.
 * Both sides use these helpers; only bytes cross the transport.
 */
import {
  decodeRecord,
  READ_ONLY_TRANSACTIONS,
  type CopybookRecords,
  type MessageCatalog,
  type SegmentRecordName,
  type TranCode,
} from './copybooks/index.ts';
import type { CbHeader } from './copybooks/records.ts';

export const RC = {
  OK: 0,
  REJECTED: 4,
  NOT_FOUND: 8,
  CONFLICT: 12,
  RULE_FAILED: 16,
  INVALID_INPUT: 20,
  STALE_VERSION: 24,
  UNKNOWN_TRAN: 90,
  ABEND: 99,
} as const;

export type ReturnCode = (typeof RC)[keyof typeof RC];

/**
 * The reason code of an OK reply to a request already done under the same idempotency key: the reply tells what
 * was done then, and nothing ran again. The API answers it with Idempotent-Replayed: true.
 */
export const REPLAYED_REASON = 'REPLAYED';

/** The reason code of the CONFLICT reply to a key the caller already used for another request. */
export const KEY_REUSED_REASON = 'IDEMPOTENCY_KEY_REUSED';

/** The header in plain terms (record field names are mapped here, once). */
export interface MessageHeader {
  tranCode: string;
  correlationId: string;
  principal: string;
  role: string;
  customerId: string;
  idempotencyKey: string;
  returnCode: number;
  reasonCode: string;
  reasonText: string;
  /** The call's W3C traceparent (src/observability/trace-context.ts); empty: the call is part of no trace. */
  traceparent: string;
}

/** A header with nothing in it, to fill in. */
export const BLANK_HEADER: Readonly<MessageHeader> = {
  tranCode: '',
  correlationId: '',
  principal: '',
  role: '',
  customerId: '',
  idempotencyKey: '',
  returnCode: 0,
  reasonCode: '',
  reasonText: '',
  traceparent: '',
};

export function headerToRecord(h: MessageHeader): CbHeader {
  return {
    hdrTranCode: h.tranCode,
    hdrCorrelationId: h.correlationId,
    hdrCaller: { hdrPrincipal: h.principal, hdrRole: h.role, hdrCustomerId: h.customerId },
    hdrIdempotencyKey: h.idempotencyKey,
    hdrReturnCode: h.returnCode,
    hdrReasonCode: h.reasonCode,
    hdrReasonText: h.reasonText,
    hdrTraceparent: h.traceparent,
  };
}

export function headerFromRecord(r: CbHeader): MessageHeader {
  return {
    tranCode: r.hdrTranCode,
    correlationId: r.hdrCorrelationId,
    principal: r.hdrCaller.hdrPrincipal,
    role: r.hdrCaller.hdrRole,
    customerId: r.hdrCaller.hdrCustomerId,
    idempotencyKey: r.hdrIdempotencyKey,
    returnCode: r.hdrReturnCode ?? RC.ABEND,
    reasonCode: r.hdrReasonCode,
    reasonText: r.hdrReasonText,
    traceparent: r.hdrTraceparent,
  };
}

export class MessageFormatError extends Error {}

/** Splits a message into its decoded header and the raw bytes of the record after it. */
export function readHeader(
  catalog: Pick<MessageCatalog, 'header'>,
  message: Buffer,
): { header: MessageHeader; body: Buffer } {
  const length = catalog.header.maxLength;
  if (message.length < length)
    throw new MessageFormatError(`message of ${message.length} bytes is shorter than the header`);
  const header = headerFromRecord(decodeRecord<CbHeader>(catalog.header, message.subarray(0, length)));
  return { header, body: message.subarray(length) };
}

export function writeMessage(
  catalog: Pick<MessageCatalog, 'header'>,
  header: MessageHeader,
  bodyLayout: { encode(json: unknown): Buffer } | null,
  body: unknown,
): Buffer {
  const head = catalog.header.encode(headerToRecord(header));
  return bodyLayout && body !== undefined ? Buffer.concat([head, bodyLayout.encode(body)]) : head;
}

/**
 * A message for a program called CICS style: the header, then the COMMAREA, which holds the request record
 * padded with spaces to the larger of the program's two records (the program leaves its answer there).
 */
export function writeCommareaMessage(
  catalog: Pick<MessageCatalog, 'header'>,
  header: MessageHeader,
  records: { request: { encode(json: unknown): Buffer; maxLength: number }; response: { maxLength: number } },
  request: unknown,
): Buffer {
  const message = writeMessage(catalog, header, records.request, request);
  const length = catalog.header.maxLength + Math.max(records.request.maxLength, records.response.maxLength);
  return message.length >= length ? message : Buffer.concat([message, Buffer.alloc(length - message.length, 0x20)]);
}

export type { TranCode };

/** A record that follows the response record (see EVTLSTO): its copybook and its content. */
export interface Segment {
  name: SegmentRecordName;
  body: CopybookRecords[SegmentRecordName];
}

/** A segment whose content is checked against the copybook it names. */
export function recordSegment<N extends SegmentRecordName>(name: N, body: CopybookRecords[N]): Segment {
  return { name, body };
}

export function encodeSegments(catalog: Pick<MessageCatalog, 'segment'>, segments: readonly Segment[]): Buffer[] {
  return segments.map((s) => catalog.segment(s.name).encode(s.body));
}

/** Reads the next segment as the record of copybook `name`; read-only, as it came. */
export type SegmentReader = <N extends SegmentRecordName>(name: N) => Readonly<CopybookRecords[N]>;

/**
 * Reads segments one after another from the bytes after a fixed-length response record; the caller names
 * each one's copybook (an event header says which record follows it).
 */
export function segmentReader(catalog: Pick<MessageCatalog, 'segment'>, bytes: Buffer): SegmentReader {
  let offset = 0;
  return <N extends SegmentRecordName>(name: N) => {
    const layout = catalog.segment(name);
    if (offset + layout.maxLength > bytes.length) {
      throw new MessageFormatError(
        `segment ${name} at byte ${offset} needs ${layout.maxLength} bytes; ${bytes.length - offset} are left`,
      );
    }
    const record = decodeRecord<CopybookRecords[N]>(layout, bytes.subarray(offset, offset + layout.maxLength));
    offset += layout.maxLength;
    return record;
  };
}

/**
 * A router's look at a message, like a CICS terminal-owning region's: is it an inquiry? Compares the
 * header's transaction-code bytes with those of the read-only transactions, encoded once by the codec,
 * so nothing else of the message is decoded.
 */
export function inquiryMatcher(catalog: MessageCatalog): (message: Uint8Array) => boolean {
  const field = catalog.header.root.children?.find((item) => item.cobolName === 'HDR-TRAN-CODE');
  if (!field) throw new Error('CBHDR has no HDR-TRAN-CODE');
  const { offset, length } = field;
  const codes = new Set(
    [...READ_ONLY_TRANSACTIONS].map((tranCode) =>
      catalog.header.encode(headerToRecord({ ...BLANK_HEADER, tranCode })).toString('latin1', offset, offset + length),
    ),
  );
  return (message) =>
    message.length >= offset + length &&
    codes.has(Buffer.from(message.buffer, message.byteOffset + offset, length).toString('latin1'));
}

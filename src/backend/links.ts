/**
 * LINK: a transaction's program calls another program for part of its work, CICS style, here in TypeScript
 * or in the COBOL program host (src/transport/cobol-host.ts); both take and give the same COMMAREA bytes.
 */
import { decodeRecord, isLinkedProgram, type LinkCatalog, type LinkedProgramName } from './copybooks/index.ts';
import { RC, readHeader, writeCommareaMessage, writeMessage, type MessageHeader } from './message.ts';
import type { LinkRequestRecord, LinkResponseRecord } from './program.ts';
import { decideLoanRecord } from './programs/loan-decision.ts';

/** The TypeScript implementation of each linked program: response record from request record. */
export const LOCAL_PROGRAMS: { [P in LinkedProgramName]: (request: LinkRequestRecord<P>) => LinkResponseRecord<P> } = {
  LNDECIDE: decideLoanRecord,
};

/**
 * Where linked programs that do not run here are called: the COBOL program host's transport
 * (src/transport/cobol-host.ts). `call` rejects when the program did not answer; with `timedOut: true` on
 * the error when it ran out of time.
 */
export interface LinkHost {
  call(message: Buffer): Promise<Buffer>;
  /** Can it take calls now (a host process running)? */
  available(): boolean;
  close(): Promise<void>;
}

/** How a link that did not answer is told to the client (reason codes of RC 99, mapped by the API). */
export const LINK_FAILURE = {
  /** The program abended, or the host knows no such program: 502. */
  FAILED: 'PROGRAM_FAILED',
  /** No host is running, or it died during the call: 503 with Retry-After. */
  UNAVAILABLE: 'PROGRAM_UNAVAILABLE',
  /** The program did not answer in time: 504. */
  TIMEOUT: 'PROGRAM_TIMEOUT',
} as const;

export type LinkFailureReason = (typeof LINK_FAILURE)[keyof typeof LINK_FAILURE];

export class LinkFailure extends Error {
  override readonly name = 'LinkFailure';
  readonly reason: LinkFailureReason;
  constructor(reason: LinkFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Thrown by `ctx.link` when the answer must come from the host first: programs stay synchronous inside their
 * unit, so it rolls back, the call is made (link-coordinator.ts), and the program runs again from the start.
 */
export class NeedsLink {
  readonly program: LinkedProgramName;
  readonly message: Buffer;
  constructor(program: LinkedProgramName, message: Buffer) {
    this.program = program;
    this.message = message;
  }
}

/** The answer a link got elsewhere, kept for the calling program's next run. */
export interface LinkAnswer {
  request: Buffer;
  reply: Buffer;
}

/** `ctx.link` of one run: the caller's header, the answers its earlier runs got elsewhere, the link asked for. */
export type LinkResolver = <P extends LinkedProgramName>(
  caller: MessageHeader,
  answered: readonly LinkAnswer[] | undefined,
  program: P,
  record: LinkRequestRecord<P>,
) => LinkResponseRecord<P>;

/**
 * Answers a link with an earlier answer to the same bytes, else throws NeedsLink when the program runs in the
 * host (`hostPrograms`), else runs its TypeScript implementation here.
 */
export function linkResolver(
  catalog: LinkCatalog,
  hostPrograms: ReadonlySet<LinkedProgramName> | undefined,
): LinkResolver {
  return (caller, answered, program, record) => {
    const message = linkMessage(catalog, program, caller, record);
    const earlier = answered?.find((a) => a.request.equals(message));
    if (earlier) return readLinkReply(catalog, program, earlier.reply);
    if (hostPrograms?.has(program)) throw new NeedsLink(program, message);
    return readLinkReply(catalog, program, runLocalProgram(catalog, message));
  };
}

/** The link message: CBHDR naming the program (the caller's header otherwise), then the COMMAREA. */
export function linkMessage<P extends LinkedProgramName>(
  catalog: LinkCatalog,
  program: P,
  caller: MessageHeader,
  record: LinkRequestRecord<P>,
): Buffer {
  const header: MessageHeader = {
    ...caller,
    tranCode: program,
    idempotencyKey: '',
    returnCode: RC.OK,
    reasonCode: '',
    reasonText: '',
  };
  const records = { request: catalog.request(program), response: catalog.response(program) };
  return writeCommareaMessage(catalog, header, records, record);
}

/**
 * Runs a TypeScript linked program on a link message, as the COBOL host runs a COBOL one: the answer is
 * the same header and COMMAREA bytes, the response record written over the request.
 */
export function runLocalProgram(catalog: LinkCatalog, message: Buffer): Buffer {
  const { header, body } = readHeader(catalog, message);
  const reply = Buffer.from(message);
  const headerLength = catalog.header.maxLength;
  if (!isLinkedProgram(header.tranCode)) {
    const unknown = {
      ...header,
      returnCode: RC.UNKNOWN_TRAN,
      reasonCode: 'UNKNOWN_PROGRAM',
      reasonText: 'no such program on this host',
    };
    writeMessage(catalog, unknown, null, undefined).copy(reply);
    return reply;
  }
  const response = catalog.response(header.tranCode).encode(runLocal(catalog, header.tranCode, body));
  writeMessage(catalog, { ...header, returnCode: RC.OK }, null, undefined).copy(reply);
  response.copy(reply, headerLength);
  return reply;
}

/** A TypeScript linked program's response record from the COMMAREA's request record. */
function runLocal<P extends LinkedProgramName>(
  catalog: LinkCatalog,
  program: P,
  commarea: Buffer,
): LinkResponseRecord<P> {
  const layout = catalog.request(program);
  const request = decodeRecord<LinkRequestRecord<P>>(layout, commarea.subarray(0, layout.maxLength));
  return LOCAL_PROGRAMS[program](request);
}

/** The response record of a link's answer, or LinkFailure when the program did not complete. */
export function readLinkReply<P extends LinkedProgramName>(
  catalog: LinkCatalog,
  program: P,
  reply: Buffer,
): LinkResponseRecord<P> {
  const { header, body } = readHeader(catalog, reply);
  if (header.returnCode !== RC.OK) {
    const outcome = `${header.returnCode} ${header.reasonCode}: ${header.reasonText}`;
    throw new LinkFailure(LINK_FAILURE.FAILED, `program ${program} ended with return code ${outcome}`.trim());
  }
  const layout = catalog.response(program);
  return decodeRecord<LinkResponseRecord<P>>(layout, body.subarray(0, layout.maxLength));
}

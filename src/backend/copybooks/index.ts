/**
 * The message catalogue: the common header and, per transaction code, the copybooks of its request
 * and response records. Both sides of the transport compile the same copybook text, as a caller and a
 * mainframe program share copybooks.
 */
import type { CopybookRecords } from './records.ts';
export type * from './records.ts';
import { readFileSync } from 'node:fs';
import { compileCopybook, type ProfileName, type RecordLayout } from '@corebridge/records';

/**
 * A record decoded by a layout compiled from one of these copybooks, as that copybook's generated type: the one place
 * the codec's untyped answer meets records.ts (a test fails when records.ts no longer matches the copybooks).
 */
export function decodeRecord<T>(layout: RecordLayout, bytes: Uint8Array): T {
  // eslint-disable-next-line no-restricted-syntax -- the layout and the type are made from the same copybook
  return layout.decode(bytes) as unknown as T;
}

export const TRANSACTIONS = {
  ORDCRT: { request: 'ORDCRTI', response: 'ORDREC' },
  ORDINQ: { request: 'ORDKEYI', response: 'ORDREC' },
  ORDLST: { request: 'ORDLSTI', response: 'ORDLSTO' },
  ORDUPD: { request: 'ORDUPDI', response: 'ORDREC' },
  ORDCAN: { request: 'ORDKEYI', response: 'ORDREC' },
  CUSINQ: { request: 'CUSKEYI', response: 'CUSREC' },
  CUSADD: { request: 'CUSADDI', response: 'CUSREC' },
  CUSUPD: { request: 'CUSUPDI', response: 'CUSREC' },
  ACCBAL: { request: 'ACCKEYI', response: 'ACCBALO' },
  ACCLST: { request: 'ACCLSTI', response: 'SEGLSTO' },
  PAYCRT: { request: 'PAYCRTI', response: 'PAYREC' },
  PAYINQ: { request: 'PAYKEYI', response: 'PAYREC' },
  PAYLST: { request: 'PAYLSTI', response: 'SEGLSTO' },
  LNAPPL: { request: 'LOANREQI', response: 'LOANREC' },
  LNINQ: { request: 'LOANKEYI', response: 'LOANREC' },
  LNLST: { request: 'LOANLSTI', response: 'SEGLSTO' },
  EVTLST: { request: 'EVTLSTI', response: 'EVTLSTO' },
  EVTNXT: { request: 'EVTNXTI', response: 'EVTLSTO' },
  EVTINQ: { request: 'EVTKEYI', response: 'EVTLSTO' },
  WHKCRT: { request: 'WHKCRTI', response: 'WHKREC' },
  WHKINQ: { request: 'WHKKEYI', response: 'WHKREC' },
  WHKLST: { request: 'WHKLSTI', response: 'SEGLSTO' },
  WHKDEL: { request: 'WHKKEYI', response: 'WHKREC' },
  WHKUPD: { request: 'WHKUPDI', response: 'WHKREC' },
  WHKROT: { request: 'WHKROTI', response: 'WHKROTO' },
  WHDLST: { request: 'WHDLSTI', response: 'SEGLSTO' },
  WHDRTY: { request: 'WHKKEYI', response: 'WHDREC' },
  WHDDUE: { request: 'WHDDUEI', response: 'SEGLSTO' },
  WHDINQ: { request: 'WHKKEYI', response: 'WHDREC' },
  WHALST: { request: 'WHALSTI', response: 'SEGLSTO' },
  WHKRCV: { request: 'WHKRCVI', response: 'WHKRCVO' },
  WHKTST: { request: 'WHKKEYI', response: 'WHDREC' },
  OPSUBM: { request: 'OPSUBI', response: 'OPREC' },
  OPINQ: { request: 'OPKEYI', response: 'OPREC' },
  OPNXT: { request: 'OPNXTI', response: 'SEGLSTO' },
  OPDONE: { request: 'OPDONEI', response: 'OPREC' },
} as const;

export type TranCode = keyof typeof TRANSACTIONS;

/** The record a transaction takes and the one it answers, as the copybooks type them (records.ts). */
export type RequestRecord<T extends TranCode> = CopybookRecords[(typeof TRANSACTIONS)[T]['request']];
export type ResponseRecord<T extends TranCode> = CopybookRecords[(typeof TRANSACTIONS)[T]['response']];

/**
 * Programs that transactions call for part of their work (CICS LINK), each with its request and response
 * copybook: the caller's request record is the COMMAREA, and the program leaves its answer there.
 */
export const LINKED_PROGRAMS = {
  LNDECIDE: { request: 'LNDECI', response: 'LNDECO' },
} as const;

export type LinkedProgramName = keyof typeof LINKED_PROGRAMS;

export function isLinkedProgram(name: string): name is LinkedProgramName {
  return Object.hasOwn(LINKED_PROGRAMS, name);
}

/** Inquiries change nothing. */
export const READ_ONLY_TRANSACTIONS: ReadonlySet<TranCode> = new Set([
  'ORDINQ',
  'ORDLST',
  'CUSINQ',
  'ACCBAL',
  'ACCLST',
  'PAYINQ',
  'PAYLST',
  'LNINQ',
  'LNLST',
  'EVTLST',
  'EVTINQ',
  'WHKINQ',
  'WHKLST',
  'WHDLST',
  'WHDINQ',
  'WHALST',
  'OPINQ',
]);

/**
 * Transactions whose programs keep the caller's idempotency key with their effect, in the same transaction, and
 * answer a retry under it with what they did then (reason REPLAYED): the API need not keep their answers.
 */
export const KEY_KEEPING_TRANSACTIONS: ReadonlySet<string> = new Set<TranCode>([
  'PAYCRT',
  'ORDCRT',
  'LNAPPL',
  'WHKTST',
  'WHKRCV',
  'OPSUBM',
]);

/** Transactions only the service itself calls (caller role SYSTEM), and that no other caller may. */
export const SYSTEM_TRANSACTIONS: ReadonlySet<TranCode> = new Set(['EVTNXT', 'WHDDUE', 'OPNXT', 'OPDONE']);

/** The resources' records: an event carries one (after its EVTREC), an operation's outcome one (after OPREC). */
export const RESOURCE_RECORDS = ['ORDREC', 'PAYREC', 'LOANREC', 'CUSREC', 'WHKREC'] as const;
export type ResourceRecordName = (typeof RESOURCE_RECORDS)[number];
/**
 * Transactions a caller may also have run later (Prefer: respond-async): their request and response records travel as
 * segments.
 */
export const ASYNC_TRANSACTIONS = ['PAYCRT', 'LNAPPL'] as const;
export type AsyncTranCode = (typeof ASYNC_TRANSACTIONS)[number];

export function isAsyncTransaction(code: string): code is AsyncTranCode {
  return (ASYNC_TRANSACTIONS as readonly string[]).includes(code);
}

type AsyncRequestRecord = (typeof TRANSACTIONS)[AsyncTranCode]['request'];

/**
 * Records that travel as segments after a message's own record (message.ts): these (ACCBALO: an account in
 * the ACCLST list), the async requests' and the resources'.
 */
const OWN_SEGMENT_RECORDS = ['EVTREC', 'WHKREC', 'WHDREC', 'WHDTASK', 'OPTASK', 'ACCBALO', 'WHDAREC'] as const;
export type SegmentRecordName = (typeof OWN_SEGMENT_RECORDS)[number] | AsyncRequestRecord | ResourceRecordName;

export function isResourceRecord(name: string): name is ResourceRecordName {
  return (RESOURCE_RECORDS as readonly string[]).includes(name);
}

export function isTranCode(code: string): code is TranCode {
  return Object.hasOwn(TRANSACTIONS, code);
}

export interface MessageCatalog {
  header: RecordLayout;
  request(tran: TranCode): RecordLayout;
  response(tran: TranCode): RecordLayout;
  /** A record that travels as a segment; each is of fixed length. */
  segment(name: SegmentRecordName): RecordLayout;
}

function copybookSource(name: string): string {
  return readFileSync(new URL(`./${name}.cpy`, import.meta.url), 'utf8');
}

function layoutCache(profile: ProfileName): (name: string) => RecordLayout {
  const cache = new Map<string, RecordLayout>();
  return (name) => {
    let compiled = cache.get(name);
    if (!compiled) {
      compiled = compileCopybook(copybookSource(name), { fileName: `${name}.cpy`, profile });
      cache.set(name, compiled);
    }
    return compiled;
  };
}

/** Compiles every copybook once (z/OS profile: EBCDIC text, packed decimals). */
export function loadMessageCatalog(): MessageCatalog {
  const layout = layoutCache('zos');
  const header = layout('CBHDR');
  for (const t of Object.values(TRANSACTIONS)) {
    layout(t.request);
    layout(t.response);
  }
  for (const name of [
    ...OWN_SEGMENT_RECORDS,
    ...ASYNC_TRANSACTIONS.map((t) => TRANSACTIONS[t].request),
    ...RESOURCE_RECORDS,
  ]) {
    const segment = layout(name);
    if (segment.minLength !== segment.maxLength)
      throw new Error(`${name} is a segment record and must be of fixed length`);
  }
  return {
    header,
    request: (tran) => layout(TRANSACTIONS[tran].request),
    response: (tran) => layout(TRANSACTIONS[tran].response),
    segment: (name) => layout(name),
  };
}

export interface LinkCatalog {
  header: RecordLayout;
  request(program: LinkedProgramName): RecordLayout;
  response(program: LinkedProgramName): RecordLayout;
}

/**
 * The linked programs' records as the COBOL program host on this machine lays them out (GnuCOBOL on
 * Linux: ASCII text, native binary). Programs written in TypeScript get the same bytes, so either kind
 * answers a link with byte-identical records.
 */
export function loadLinkCatalog(): LinkCatalog {
  const layout = layoutCache('gnucobol');
  for (const p of Object.values(LINKED_PROGRAMS)) {
    layout(p.request);
    layout(p.response);
  }
  return {
    header: layout('CBHDR'),
    request: (program) => layout(LINKED_PROGRAMS[program].request),
    response: (program) => layout(LINKED_PROGRAMS[program].response),
  };
}

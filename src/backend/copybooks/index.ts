/**
 * The message catalogue: the common header and, per transaction code, the copybooks of its request
 * and response records. Both sides of the transport compile the same copybook text, as a caller and a
 * mainframe program share copybooks.
 */
import { readFileSync } from 'node:fs';
import { compileCopybook } from '../../records/index.ts';
import type { RecordLayout } from '../../records/types.ts';

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
  PAYCRT: { request: 'PAYCRTI', response: 'PAYREC' },
  PAYINQ: { request: 'PAYKEYI', response: 'PAYREC' },
  LNAPPL: { request: 'LOANREQI', response: 'LOANREC' },
  LNINQ: { request: 'LOANKEYI', response: 'LOANREC' },
} as const;

export type TranCode = keyof typeof TRANSACTIONS;

/** Inquiries change nothing. */
export const READ_ONLY_TRANSACTIONS: ReadonlySet<TranCode> = new Set(['ORDINQ', 'ORDLST', 'CUSINQ', 'ACCBAL', 'PAYINQ', 'LNINQ']);

export function isTranCode(code: string): code is TranCode {
  return Object.hasOwn(TRANSACTIONS, code);
}

export interface MessageCatalog {
  header: RecordLayout;
  request(tran: TranCode): RecordLayout;
  response(tran: TranCode): RecordLayout;
}

function copybookSource(name: string): string {
  return readFileSync(new URL(`./${name}.cpy`, import.meta.url), 'utf8');
}

/** Compiles every copybook once (z/OS profile: EBCDIC text, packed decimals). */
export function loadMessageCatalog(): MessageCatalog {
  const cache = new Map<string, RecordLayout>();
  const layout = (name: string): RecordLayout => {
    let compiled = cache.get(name);
    if (!compiled) {
      compiled = compileCopybook(copybookSource(name), { fileName: `${name}.cpy`, profile: 'zos' });
      cache.set(name, compiled);
    }
    return compiled;
  };
  const header = layout('CBHDR');
  for (const t of Object.values(TRANSACTIONS)) {
    layout(t.request);
    layout(t.response);
  }
  return {
    header,
    request: (tran) => layout(TRANSACTIONS[tran].request),
    response: (tran) => layout(TRANSACTIONS[tran].response),
  };
}

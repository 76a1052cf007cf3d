/** A value the record cannot hold, refused at the JSON pointer the client sent it at, in the client's words. */
import type { TranCode } from '../backend/copybooks/index.ts';
import { ApiError, type Violation } from '../errors.ts';
import { RecordEncodeError, type EncodeLimit } from '@corebridge/records';

/**
 * Record field path (`cusaAddr.cusaAddrLine1`) → the request's JSON pointer it came from, for every field a
 * client's value reaches.
 */
export type RecordPointers = Record<string, string>;

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
    case 'length':
      return `must have at most ${limit.max} characters`;
    case 'decimals':
      return `must have at most ${limit.max} decimal place${limit.max === 1 ? '' : 's'}`;
    case 'range':
      return `must be between ${limit.min} and ${limit.max}`;
    case 'character': {
      const holds = CHARACTER_SETS[limit.charset] ?? "it is not in the back-end's character set";
      return `character "${limit.character}" cannot be stored: ${holds}`;
    }
    default:
      return 'is not a value this field can hold';
  }
}

/** Encodes a record, telling a value it cannot hold against the JSON pointer the client sent it at. */
export function encodeOrRefuse(encode: () => Buffer, pointers: RecordPointers): Buffer {
  try {
    return encode();
  } catch (error) {
    if (!(error instanceof RecordEncodeError)) throw error;
    const pointer = pointers[error.path] ?? pointers[error.path.split(/[.[]/)[0] ?? ''] ?? '';
    const detail = refusalDetail(error.limit);
    throw new ApiError('VALIDATION_FAILED', `${pointer || 'a value'} ${detail}`, {
      violations: [{ pointer, in: 'body', detail }],
    });
  }
}

/**
 * Where a value the back-end refuses (RC INVALID_INPUT) was sent in the request, by transaction and reason code:
 * the programs name record rules, the client needs the place to fix. A string is a JSON pointer into the body.
 */
export const REFUSAL_POINTERS: {
  readonly [T in TranCode]?: Readonly<Record<string, string | Pick<Violation, 'in' | 'pointer'>>>;
} = {
  ORDCRT: { QUANTITY_OUT_OF_RANGE: '/quantity' },
  ORDUPD: { QUANTITY_OUT_OF_RANGE: '/quantity' },
  CUSADD: { NAME_REQUIRED: '/name', INVALID_BIRTH_DATE: '/dateOfBirth' },
  CUSUPD: {
    NAME_REQUIRED: '/name',
    EMAIL_REQUIRED: '/email',
    INVALID_BIRTH_DATE: '/dateOfBirth',
    ADDRESS_INCOMPLETE: '/address',
  },
  PAYCRT: {
    IDEMPOTENCY_KEY_REQUIRED: { in: 'header', pointer: '/idempotency-key' },
    INVALID_AMOUNT: '/amount',
    AMOUNT_OUT_OF_RANGE: '/amount',
    SAME_ACCOUNT: '/creditorAccount',
  },
  LNAPPL: { INVALID_AMOUNT: '/amount', AMOUNT_OUT_OF_RANGE: '/amount', INSTALLMENTS_OUT_OF_RANGE: '/installments' },
  WHKCRT: { URL_REQUIRED: '/url', INVALID_EVENT_TYPES: '/eventTypes', EVENT_TYPES_NOT_RECEIVED: '/eventTypes' },
  WHKUPD: {
    URL_REQUIRED: '/url',
    INVALID_EVENT_TYPES: '/eventTypes',
    EVENT_TYPES_NOT_RECEIVED: '/eventTypes',
    INVALID_STATUS: '/status',
  },
  WHKRCV: { INVALID_WINDOW: '/since' },
  WHKROT: { EXPIRE_IN_OUT_OF_RANGE: '/expireCurrentIn' },
  EVTLST: { INVALID_EVENT_TYPE: '/type', INVALID_SINCE: '/since' },
};

/**
 * A back-end refusal as the violation a client fixes: at the place the table names, or at the whole body
 * (pointer "") for a refusal no one member causes.
 */
export function refusalViolation(tranCode: string, reasonCode: string, detail: string): Violation {
  const place = REFUSAL_POINTERS[tranCode as TranCode]?.[reasonCode] ?? '';
  return typeof place === 'string' ? { pointer: place, in: 'body', detail } : { ...place, detail };
}

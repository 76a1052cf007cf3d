/**
 * Business outcomes, read from the decoded response records of the transactions that decide something
 * (an order confirmed or rejected, a payment completed or rejected, a loan approved or rejected): one table,
 * so no route counts them itself. Status and reason are the back-end's codes, never a caller's value.
 */
import type { ResponseRecord, TranCode } from '../backend/copybooks/index.ts';
import type { Metrics } from './metrics.ts';

type OutcomeOf<T extends TranCode> = (record: ResponseRecord<T>) => readonly [status: string, reason: string];

const OUTCOMES: { readonly [T in TranCode]?: OutcomeOf<T> } = {
  ORDCRT: (r) => [r.ordStatus, r.ordRejectReason],
  ORDUPD: (r) => [r.ordStatus, r.ordRejectReason],
  ORDCAN: (r) => [r.ordStatus, r.ordRejectReason],
  PAYCRT: (r) => [r.payStatus, r.payRejectReason],
  LNAPPL: (r) => [r.lnStatus, r.lnRejectReason],
};

/**
 * The status and reason code a transaction's answer decided, or null for a transaction that decides nothing (an
 * inquiry).
 */
export function outcomeOf<T extends TranCode>(
  tran: T,
  record: ResponseRecord<T>,
): readonly [status: string, reason: string] | null {
  const read = OUTCOMES[tran] as OutcomeOf<T> | undefined;
  return read ? read(record) : null;
}

/**
 * Counts what a transaction's answer decided, if it decides anything: the API's calls and the runs of operations alike.
 */
export function countOutcome<T extends TranCode>(metrics: Metrics, tran: T, record: ResponseRecord<T>): void {
  const outcome = outcomeOf(tran, record);
  if (outcome) metrics.countOutcome(tran, outcome[0], outcome[1]);
}

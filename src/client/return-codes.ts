/** The back-end's return codes in the client's words: the one place an answer becomes an HTTP error. */
import { LINK_FAILURE } from '../backend/links.ts';
import { KEY_REUSED_REASON, RC, type MessageHeader } from '../backend/message.ts';
import { STORE_UNAVAILABLE } from '../backend/store/tx.ts';
import { ApiError } from '../errors.ts';
import type { CallLog } from './call-context.ts';
import { refusalViolation } from './refusal.ts';

/**
 * A back-end that did not answer (503) or not in time (504): retrying is safe with the same Idempotency-Key,
 * and worth it soon: a restarted back-end or another instance takes over within a second or two.
 */
export const RETRY_SOON = { headers: { 'retry-after': '1' } };

/**
 * A back-end answer other than OK or REJECTED, in the client's words: the error the API answers with. The
 * transaction code places a refused value at its JSON pointer (REFUSAL_POINTERS).
 */
export function errorFor(
  header: Pick<MessageHeader, 'tranCode' | 'returnCode' | 'reasonCode' | 'reasonText'>,
  log?: CallLog,
): ApiError {
  const reason = header.reasonCode || undefined;
  const text = header.reasonText || undefined;
  switch (header.returnCode) {
    case RC.NOT_FOUND:
      return new ApiError('NOT_FOUND', text, { reason });
    case RC.CONFLICT:
      if (reason === KEY_REUSED_REASON) return new ApiError('IDEMPOTENCY_KEY_REUSED', text, { reason });
      return new ApiError('CONFLICT', text, { reason });
    case RC.RULE_FAILED:
      return new ApiError('BUSINESS_RULE_VIOLATION', text, { reason });
    case RC.INVALID_INPUT: {
      const violation = refusalViolation(header.tranCode, header.reasonCode, text ?? 'is not valid');
      return new ApiError('VALIDATION_FAILED', text, { reason, violations: [violation] });
    }
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
  if (header.returnCode !== RC.ABEND) return false;
  const reason = header.reasonCode;
  return reason === LINK_FAILURE.UNAVAILABLE || reason === LINK_FAILURE.TIMEOUT || reason === STORE_UNAVAILABLE;
}

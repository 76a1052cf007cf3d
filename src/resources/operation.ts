/** An operation run later (Prefer: respond-async) as the API shows it: pending, or the outcome of its request. */
import { Type } from 'typebox';
import type { Role } from '../auth/roles.ts';
import { isResourceRecord, type MessageCatalog, type OperationRecord } from '../backend/copybooks/index.ts';
import { RC, segmentReader } from '../backend/message.ts';
import { errorFor } from '../client/return-codes.ts';
import { toProblem } from '../errors.ts';
import { resourceView } from './by-record.ts';

export const OperationId = Type.String({
  pattern: '^OP-[0-9A-F]{16}$',
  maxLength: 19,
  description: 'Operation identifier',
});
const OperationStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

/** The 202 of a request that runs later. */
export const OperationAccepted = Type.Object({ operationId: OperationId, status: OperationStatus });

export const Operation = Type.Object({
  operationId: OperationId,
  status: OperationStatus,
  result: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'When succeeded: the body the synchronous call answers (a Payment, a LoanDecision)',
    }),
  ),
  problem: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'When failed: the problem+json the synchronous call answers',
    }),
  ),
});

export interface OperationView {
  operationId: string;
  status: 'pending' | 'succeeded' | 'failed';
  result?: object;
  problem?: object;
}

/**
 * OPREC (and the result record after it) → API operation: `result` exactly as the synchronous call answers it
 * to the role, or `problem` as it would have failed at `instance`.
 */
export function operationFromRecord(
  catalog: MessageCatalog,
  r: OperationRecord,
  segments: Buffer,
  role: Role,
  instance: string,
): OperationView {
  const operationId = r.oprOperationId;
  const status = r.oprStatus as OperationView['status'];
  if (status === 'pending') return { operationId, status };
  const returnCode = r.oprReturnCode;
  const recordName = r.oprResultRecord;
  if ((returnCode === RC.OK || returnCode === RC.REJECTED) && isResourceRecord(recordName)) {
    return {
      operationId,
      status,
      result: resourceView(recordName, segmentReader(catalog, segments)(recordName), role),
    };
  }
  const error = errorFor({
    tranCode: r.oprTranCode,
    returnCode,
    reasonCode: r.oprReasonCode,
    reasonText: r.oprReasonText,
  });
  return { operationId, status, problem: toProblem(error, instance, r.oprCorrelationId) };
}

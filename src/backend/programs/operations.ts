/**
 * Operations run later (Prefer: respond-async): OPSUBM queues a request, OPINQ reads it, the runner's OPNXT and
 * OPDONE claim and complete it. Each runs under the caller and key it came with: a repeated run has one effect.
 */
import { mayUseCustomerData, type Caller } from '../caller.ts';
import { isAsyncTransaction, isResourceRecord, TRANSACTIONS } from '../copybooks/index.ts';
import { newId } from '../ids.ts';
import type { OperationRecord } from '../copybooks/records.ts';
import { KEY_REUSED_REASON, RC, recordSegment, type Segment } from '../message.ts';
import { fail, ok, replayed, text, type Program, type ProgramReply } from '../program.ts';
import {
  claimOperations,
  completeOperation,
  findOperation,
  findOperationByKey,
  insertOperation,
  type Operation,
} from '../store/operations.ts';
import { pageSize } from './lists.ts';

function operationReply(o: Operation): ProgramReply<OperationRecord> {
  const resultRecord = o.resultRecord && isResourceRecord(o.resultRecord) && o.result ? o.resultRecord : null;
  return {
    ...ok<OperationRecord>({
      oprOperationId: o.operationId,
      oprTranCode: o.tranCode,
      oprStatus: o.status,
      oprReturnCode: o.returnCode ?? 0,
      oprReasonCode: o.reasonCode ?? '',
      oprReasonText: (o.reasonText ?? '').slice(0, 120),
      oprCorrelationId: o.correlationId,
      oprCreatedAt: o.createdAt,
      oprCompletedAt: o.completedAt ?? '',
      oprResultRecord: resultRecord ?? '',
    }),
    segments: resultRecord ? [recordSegment(resultRecord, o.result!)] : [],
  };
}

/** The submitter, staff, and — for a customer's own operations — that customer (the rule of payments and loans). */
function maySeeOperation(caller: Caller, o: Operation): boolean {
  return caller.principal === o.ownerPrincipal || mayUseCustomerData(caller, o.ownerCustomerId);
}

export const submitOperation: Program<'OPSUBM'> = async (ctx, req) => {
  const tran = text(req.opsTranCode);
  if (!isAsyncTransaction(tran)) return fail(RC.INVALID_INPUT, 'NOT_ASYNC', `transaction ${tran} does not run later`);
  const request = ctx.segment(TRANSACTIONS[tran].request);
  if (ctx.idempotencyKey) {
    const earlier = await findOperationByKey(ctx.tx, ctx.caller.principal, ctx.idempotencyKey);
    if (earlier) {
      if (earlier.tranCode !== tran || JSON.stringify(earlier.request) !== JSON.stringify(request)) {
        return fail(RC.CONFLICT, KEY_REUSED_REASON, 'this idempotency key was used for a different request');
      }
      return replayed(operationReply(earlier));
    }
  }
  const operationId = newId('OP');
  const operation: Operation = {
    operationId,
    tranCode: tran,
    ownerPrincipal: ctx.caller.principal,
    ownerRole: ctx.caller.role,
    ownerCustomerId: ctx.caller.customerId,
    // Without a key of the caller's, the operation's own: its run, however often repeated, has one effect.
    idempotencyKey: ctx.idempotencyKey || `operation:${operationId}`,
    correlationId: ctx.correlationId,
    traceparent: ctx.traceparent,
    request,
    status: 'pending',
    returnCode: null,
    reasonCode: null,
    reasonText: null,
    resultRecord: null,
    result: null,
    createdAt: ctx.now,
    completedAt: null,
  };
  await insertOperation(ctx.tx, operation);
  return operationReply(operation);
};

export const inquireOperation: Program<'OPINQ'> = async (ctx, req) => {
  const o = await findOperation(ctx.tx, text(req.opkOperationId));
  if (!o || !maySeeOperation(ctx.caller, o)) return fail(RC.NOT_FOUND, 'OPERATION_NOT_FOUND', 'operation not found');
  return operationReply(o);
};

export const claimOperationsProgram: Program<'OPNXT'> = async (ctx, req) => {
  const max = pageSize(req.opnMaxItems, 1);
  const leaseSeconds = Math.max(Math.trunc(req.opnLeaseSeconds) || 30, 1);
  const leaseUntil = new Date(Date.parse(ctx.now) + leaseSeconds * 1000).toISOString();
  const claimed = await claimOperations(ctx.tx, ctx.now, leaseUntil, max);
  const segments = claimed.flatMap((o): Segment[] =>
    isAsyncTransaction(o.tranCode)
      ? [
          recordSegment('OPTASK', {
            optOperationId: o.operationId,
            optTranCode: o.tranCode,
            optPrincipal: o.ownerPrincipal,
            optRole: o.ownerRole,
            optCustomerId: o.ownerCustomerId ?? '',
            optIdempotencyKey: o.idempotencyKey,
            optCorrelationId: o.correlationId,
            optTraceparent: o.traceparent,
          }),
          recordSegment(TRANSACTIONS[o.tranCode].request, o.request),
        ]
      : [],
  );
  return { ...ok({ seglNextSeq: 0, seglItemCount: segments.length / 2 }), segments };
};

export const completeOperationProgram: Program<'OPDONE'> = async (ctx, req) => {
  const o = await findOperation(ctx.tx, text(req.opdOperationId), { forUpdate: true });
  if (!o) return fail(RC.NOT_FOUND, 'OPERATION_NOT_FOUND', 'operation not found');
  if (o.status !== 'pending') return operationReply(o); // completed once: a repeated outcome changes nothing
  const returnCode = Math.trunc(req.opdReturnCode);
  const resultRecord = text(req.opdResultRecord);
  const result = resultRecord && isResourceRecord(resultRecord) ? ctx.segment(resultRecord) : null;
  const outcome = {
    status: (returnCode === RC.OK || returnCode === RC.REJECTED ? 'succeeded' : 'failed') as Operation['status'],
    returnCode,
    reasonCode: text(req.opdReasonCode) || null,
    reasonText: text(req.opdReasonText) || null,
    resultRecord: result ? resultRecord : null,
    result,
  };
  await completeOperation(ctx.tx, o.operationId, outcome, ctx.now);
  return operationReply({ ...o, ...outcome, completedAt: ctx.now });
};

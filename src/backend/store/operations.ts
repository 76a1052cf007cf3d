/** Operations run later (migrations 005/004): the durable queue of requests and their outcomes. */
import type { AsyncTranCode, CopybookRecords, RequestRecord, ResourceRecordName } from '../copybooks/index.ts';
import type { Row, Tx } from './tx.ts';

export interface Operation {
  operationId: string;
  tranCode: string;
  ownerPrincipal: string;
  ownerRole: string;
  ownerCustomerId: string | null;
  idempotencyKey: string;
  correlationId: string;
  /** The W3C traceparent of the submitting request ('' for none): its run continues that trace. */
  traceparent: string;
  /** The request record of `tranCode`, as submitted. */
  request: RequestRecord<AsyncTranCode>;
  status: 'pending' | 'succeeded' | 'failed';
  returnCode: number | null;
  reasonCode: string | null;
  reasonText: string | null;
  resultRecord: string | null;
  /** The response record `resultRecord` names. */
  result: CopybookRecords[ResourceRecordName] | null;
  createdAt: string;
  completedAt: string | null;
}

function fromRow(row: Row): Operation {
  const text = (key: string) => (row[key] == null ? null : String(row[key]));
  return {
    operationId: String(row['operation_id']),
    tranCode: String(row['tran_code']),
    ownerPrincipal: String(row['owner_principal']),
    ownerRole: String(row['owner_role']),
    ownerCustomerId: text('owner_customer_id'),
    idempotencyKey: String(row['idempotency_key']),
    correlationId: String(row['correlation_id']),
    traceparent: String(row['traceparent']),
    request: JSON.parse(String(row['request_json'])) as RequestRecord<AsyncTranCode>,
    status: String(row['status']) as Operation['status'],
    returnCode: row['return_code'] == null ? null : Number(row['return_code']),
    reasonCode: text('reason_code'),
    reasonText: text('reason_text'),
    resultRecord: text('result_record'),
    result:
      row['result_json'] == null
        ? null
        : (JSON.parse(String(row['result_json'])) as CopybookRecords[ResourceRecordName]),
    createdAt: String(row['created_at']),
    completedAt: text('completed_at'),
  };
}

export async function insertOperation(tx: Tx, o: Operation): Promise<void> {
  await tx.run(
    `INSERT INTO operations (operation_id, tran_code, owner_principal, owner_role, owner_customer_id, idempotency_key, correlation_id, traceparent, request_json, status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
    o.operationId,
    o.tranCode,
    o.ownerPrincipal,
    o.ownerRole,
    o.ownerCustomerId,
    o.idempotencyKey,
    o.correlationId,
    o.traceparent,
    JSON.stringify(o.request),
    o.createdAt,
  );
}

export async function findOperation(
  tx: Tx,
  operationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Operation | undefined> {
  const row = await tx.get(
    `SELECT * FROM operations WHERE operation_id = ?${options.forUpdate ? tx.forUpdate : ''}`,
    operationId,
  );
  return row ? fromRow(row) : undefined;
}

export async function findOperationByKey(tx: Tx, principal: string, key: string): Promise<Operation | undefined> {
  const row = await tx.get(
    'SELECT * FROM operations WHERE owner_principal = ? AND idempotency_key = ?',
    principal,
    key,
  );
  return row ? fromRow(row) : undefined;
}

/**
 * The oldest pending operations nobody holds, held now until `leaseUntil` (a runner that died lets go when it runs
 * out).
 */
export async function claimOperations(tx: Tx, now: string, leaseUntil: string, max: number): Promise<Operation[]> {
  const rows = await tx.all(
    `SELECT * FROM operations WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < ?) ORDER BY seq LIMIT ?${tx.forUpdate}`,
    now,
    max,
  );
  for (const row of rows)
    await tx.run(
      'UPDATE operations SET lease_until = ? WHERE operation_id = ?',
      leaseUntil,
      String(row['operation_id']),
    );
  return rows.map(fromRow);
}

export async function completeOperation(
  tx: Tx,
  operationId: string,
  outcome: Pick<Operation, 'status' | 'returnCode' | 'reasonCode' | 'reasonText' | 'resultRecord' | 'result'>,
  at: string,
): Promise<void> {
  await tx.run(
    `UPDATE operations SET status = ?, return_code = ?, reason_code = ?, reason_text = ?, result_record = ?, result_json = ?, completed_at = ?, lease_until = NULL
     WHERE operation_id = ? AND status = 'pending'`,
    outcome.status,
    outcome.returnCode,
    outcome.reasonCode,
    outcome.reasonText,
    outcome.resultRecord,
    outcome.result ? JSON.stringify(outcome.result) : null,
    at,
    operationId,
  );
}

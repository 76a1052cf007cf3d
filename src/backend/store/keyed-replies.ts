/** Replies kept under a caller's idempotency key, for calls whose effect has no row of its own to hold the key. */
import type { Tx } from './tx.ts';

export interface KeyedReply {
  tranCode: string;
  requestHash: string;
  /** The response record as JSON. */
  replyJson: string;
}

export async function findKeyedReply(tx: Tx, principal: string, key: string): Promise<KeyedReply | undefined> {
  const row = await tx.get(
    'SELECT tran_code, request_hash, reply_json FROM keyed_replies WHERE principal = ? AND idempotency_key = ?',
    principal,
    key,
  );
  return row
    ? {
        tranCode: String(row['tran_code']),
        requestHash: String(row['request_hash']),
        replyJson: String(row['reply_json']),
      }
    : undefined;
}

export async function insertKeyedReply(
  tx: Tx,
  r: KeyedReply & { principal: string; idempotencyKey: string; createdAt: string },
): Promise<void> {
  await tx.run(
    `INSERT INTO keyed_replies (principal, idempotency_key, tran_code, request_hash, reply_json, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
    r.principal,
    r.idempotencyKey,
    r.tranCode,
    r.requestHash,
    r.replyJson,
    r.createdAt,
  );
}

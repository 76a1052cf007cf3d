/** Audit and outbox rows, written inside the business transaction they describe. */
import { randomUUID } from 'node:crypto';
import type { Tx } from './tx.ts';

export interface AuditEntry {
  tranCode: string;
  entity: string;
  entityId: string;
  action: string;
  principal: string;
  correlationId: string;
  at: string;
}

export async function writeAudit(tx: Tx, e: AuditEntry): Promise<void> {
  await tx.run(
    'INSERT INTO audit_log (tran_code, entity, entity_id, action, principal, correlation_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    e.tranCode, e.entity, e.entityId, e.action, e.principal, e.correlationId, e.at,
  );
}

export async function writeOutboxEvent(
  tx: Tx,
  e: { eventType: string; aggregateId: string; payload: unknown; correlationId: string; at: string },
): Promise<void> {
  await tx.run(
    'INSERT INTO outbox (event_id, event_type, aggregate_id, payload_json, correlation_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    randomUUID(), e.eventType, e.aggregateId, JSON.stringify(e.payload), e.correlationId, e.at,
  );
}

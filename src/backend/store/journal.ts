/** Audit and outbox rows, written inside the business transaction they describe. */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../../sqlite.ts';

export interface AuditEntry {
  tranCode: string;
  entity: string;
  entityId: string;
  action: string;
  principal: string;
  correlationId: string;
  at: string;
}

export function writeAudit(tx: Tx, e: AuditEntry): void {
  tx.statement(
    'INSERT INTO audit_log (tran_code, entity, entity_id, action, principal, correlation_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(e.tranCode, e.entity, e.entityId, e.action, e.principal, e.correlationId, e.at);
}

export function writeOutboxEvent(
  tx: Tx,
  e: { eventType: string; aggregateId: string; payload: unknown; correlationId: string; at: string },
): void {
  tx.statement(
    'INSERT INTO outbox (event_id, event_type, aggregate_id, payload_json, correlation_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(randomUUID(), e.eventType, e.aggregateId, JSON.stringify(e.payload), e.correlationId, e.at);
}

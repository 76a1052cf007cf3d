/** The resources a back-end record can carry in an event or an operation's result: their collection and their view. */
import type { Role } from '../auth/roles.ts';
import type { CopybookRecords, ResourceRecordName } from '../backend/copybooks/index.ts';
import { customerFromRecord } from './customer.ts';
import { loanForRole, loanFromRecord } from './loan.ts';
import { orderForRole, orderFromRecord } from './order.ts';
import { paymentForRole, paymentFromRecord } from './payment.ts';
import { subscriptionFromRecord } from './webhook-subscription.ts';

type RecordResources = {
  [N in ResourceRecordName]: { source: string; view(record: CopybookRecords[N], role: Role): object };
};

const RESOURCES: RecordResources = {
  ORDREC: { source: '/v1/orders', view: (r, role) => orderForRole(orderFromRecord(r), role) },
  PAYREC: { source: '/v1/payments', view: (r, role) => paymentForRole(paymentFromRecord(r), role) },
  LOANREC: { source: '/v1/loan-applications', view: (r, role) => loanForRole(loanFromRecord(r), role) },
  CUSREC: { source: '/v1/customers', view: (r, role) => customerFromRecord(r, role) },
  // Its owner's alone, whatever the role: never the secret (WHKREC has none).
  WHKREC: { source: '/v1/webhook-subscriptions', view: (r) => subscriptionFromRecord(r) },
};

/** The API collection a resource record belongs to (an event's `source`). */
export function collectionOf(recordName: ResourceRecordName): string {
  return RESOURCES[recordName].source;
}

/** A resource record as the API shows it to a role (what GET on its path answers). */
export function resourceView<N extends ResourceRecordName>(
  recordName: N,
  record: CopybookRecords[N],
  role: Role,
): object {
  return RESOURCES[recordName].view(record, role);
}

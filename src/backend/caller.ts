/**
 * The caller as the record header states it, and who may see what. Object-level checks live here,
 * in the system that owns the data, and fail closed: an object the caller may not see is "not found".
 */
import { roleOfCode, type RoleCode } from '../auth/roles.ts';
import { findAccount } from './store/accounts.ts';
import { isLinkedToPartner, type Customer } from './store/customers.ts';
import type { Payment, PaymentAudience } from './store/payments.ts';
import type { Tx } from './store/tx.ts';

/**
 * SYSTEM: the service itself (event relay, webhook dispatcher, runner), for its own transactions only
 * (SYSTEM_TRANSACTIONS).
 */
export type CallerRole = RoleCode;

export interface Caller {
  principal: string;
  role: CallerRole;
  /** Set for role CUSTOMER only. */
  customerId: string | null;
}

export function parseRole(raw: string): CallerRole | undefined {
  return roleOfCode(raw) === undefined ? undefined : (raw as CallerRole);
}

/**
 * A customer's record, and ordering against their credit limit: customers themselves, staff everyone, a
 * partner its own customers only — those it onboarded or was linked to (partner_customers).
 */
export async function maySeeCustomer(
  tx: Tx,
  caller: Caller,
  customer: Pick<Customer, 'customerId' | 'createdBy'>,
): Promise<boolean> {
  switch (caller.role) {
    case 'AGENT':
      return true;
    case 'CUSTOMER':
      return caller.customerId === customer.customerId;
    case 'PARTNER':
      return (
        customer.createdBy === caller.principal || (await isLinkedToPartner(tx, caller.principal, customer.customerId))
      );
    case 'SYSTEM':
      return false;
  }
}

export function mayChangeCustomer(caller: Caller, customerId: string): boolean {
  if (caller.role === 'AGENT') return true;
  return caller.role === 'CUSTOMER' && caller.customerId === customerId;
}

/** Orders: a customer's own, a partner's own creations, everything for staff. */
export function maySeeOrder(caller: Caller, order: { customerId: string; createdBy: string }): boolean {
  if (caller.role === 'AGENT') return true;
  if (caller.role === 'CUSTOMER') return caller.customerId === order.customerId;
  return caller.principal === order.createdBy;
}

/** Accounts, payments and loans: the owning customer and staff only. */
export function mayUseCustomerData(caller: Caller, ownerCustomerId: string | null): boolean {
  if (caller.role === 'AGENT') return ownerCustomerId !== null;
  return caller.role === 'CUSTOMER' && ownerCustomerId !== null && caller.customerId === ownerCustomerId;
}

/**
 * Payments: the payer's customer (the payment's owner) and staff, as every customer datum; and the payee's
 * customer once it completed, as a bank statement shows money received. A rejected payment never reached the
 * payee's account, and its reason (INSUFFICIENT_FUNDS) is the payer's business. The account list asks the
 * same in SQL (store/payments.ts), of an account the caller may use.
 */
export function paymentAudience(caller: Caller): PaymentAudience {
  if (caller.role === 'AGENT') return { kind: 'staff' };
  if (caller.role === 'CUSTOMER' && caller.customerId) return { kind: 'owner', customerId: caller.customerId };
  return { kind: 'none' };
}

export async function maySeePayment(
  tx: Tx,
  caller: Caller,
  payment: Pick<Payment, 'customerId' | 'status' | 'creditorAccount'>,
): Promise<boolean> {
  const audience = paymentAudience(caller);
  if (audience.kind !== 'owner') return mayUseCustomerData(caller, payment.customerId);
  if (payment.customerId === audience.customerId) return true;
  if (payment.status !== 'COMPLETED') return false;
  const payee = await findAccount(tx, payment.creditorAccount);
  return payee?.kind === 'CUSTOMER' && payee.customerId === audience.customerId;
}

/**
 * Events: who may read an event is who may read its resource through the API. Staff read every event; a
 * customer the events of their own orders, payments, loans and customer record; a partner the events of the
 * orders it placed and of the customers it onboarded (never payments or loans, which partners cannot read).
 * Customers merely linked to a partner (partner_customers) are not in its audience: deciding that needs a
 * lookup, and this answer is synchronous (the webhook fan-out asks it per event). Likewise a payment's events
 * go to its payer only: the payee's customer reads a completed payment received through the API
 * (maySeePayment), not through the feed, since an event has one owner column. Narrower than the API, never wider.
 */
export type EventAudience =
  | { kind: 'all' }
  | { kind: 'owner'; customerId: string }
  | { kind: 'creator'; principal: string; resources: readonly ('order' | 'customer')[] }
  | { kind: 'none' };

/** Does the audience admit this event? (The feed asks the same in SQL: store/events.ts.) */
export function audienceAdmits(
  audience: EventAudience,
  event: { resource: string; ownerCustomerId: string | null; createdBy: string | null },
): boolean {
  switch (audience.kind) {
    case 'all':
      return true;
    case 'owner':
      return event.ownerCustomerId === audience.customerId;
    case 'creator':
      return (
        event.createdBy === audience.principal && (audience.resources as readonly string[]).includes(event.resource)
      );
    case 'none':
      return false;
  }
}

/** Can the audience ever receive events about this kind of resource? (A subscription to others never fires.) */
export function audienceReceives(audience: EventAudience, resource: string): boolean {
  if (audience.kind === 'creator') return (audience.resources as readonly string[]).includes(resource);
  return audience.kind !== 'none';
}

export function eventAudience(caller: Caller): EventAudience {
  if (caller.role === 'AGENT') return { kind: 'all' };
  if (caller.role === 'CUSTOMER')
    return caller.customerId ? { kind: 'owner', customerId: caller.customerId } : { kind: 'none' };
  if (caller.role === 'PARTNER')
    return { kind: 'creator', principal: caller.principal, resources: ['order', 'customer'] };
  return { kind: 'none' };
}

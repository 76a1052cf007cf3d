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
 * Who receives which event: one rule, for the feed, GET /v1/events/{id}, the webhook fan-out and every re-reading.
 * An event is readable exactly when its resource is readable through the API by the reader at the time of
 * reading: staff every order, payment, loan and customer event; a customer the events of their own orders,
 * payments (as payer), loans and customer record; a partner the events of the orders it placed and of the
 * customers it onboarded or is linked to (partner_customers), never payments or loans. Events about a webhook
 * subscription (WebhookTest, WebhookSubscriptionDisabled) are its owner's alone, whatever the reader's role. The
 * rule is written once, as SQL over the events row (store/events.ts, RESOURCE_EVENTS_OF), which the feed, the
 * lookup by id and the fan-out all run.
 */
export type EventAudience =
  | { kind: 'staff'; principal: string }
  | { kind: 'customer'; principal: string; customerId: string }
  | { kind: 'partner'; principal: string }
  | { kind: 'none' };

/** The kinds of resource whose events a partner may read (as it may read them through the API). */
export const PARTNER_EVENT_RESOURCES = ['order', 'customer'] as const;

/** Can the audience ever receive events about this kind of resource? (A subscription to others never fires.) */
export function audienceReceives(audience: EventAudience, resource: string): boolean {
  if (audience.kind === 'partner') {
    return resource === 'subscription' || (PARTNER_EVENT_RESOURCES as readonly string[]).includes(resource);
  }
  return audience.kind !== 'none';
}

export function eventAudience(caller: Caller): EventAudience {
  switch (caller.role) {
    case 'AGENT':
      return { kind: 'staff', principal: caller.principal };
    case 'CUSTOMER':
      return caller.customerId
        ? { kind: 'customer', principal: caller.principal, customerId: caller.customerId }
        : { kind: 'none' };
    case 'PARTNER':
      return { kind: 'partner', principal: caller.principal };
    case 'SYSTEM':
      return { kind: 'none' };
  }
}

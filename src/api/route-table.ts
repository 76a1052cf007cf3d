/**
 * Every route of the API in one table: method, path, the scope it needs, the roles that may call it,
 * and its object-level (ownership) rule. Route files take their definitions from here; the auth
 * plugin refuses to start with a route that has no entry.
 */
import type { Role, Scope } from '../auth/roles.ts';

/**
 * - `customer-in-request`: a customer may only name their own customerId (path, query or body); the
 *   back-end checks again.
 * - `backend-owner`: the object's owner is known to the back-end only; it checks the caller from the
 *   record header and answers "not found" for objects the caller may not see.
 * - `caller-filtered`: a collection the back-end filters to what the caller may see.
 * - `none`: no object involved.
 */
export type Ownership = 'customer-in-request' | 'backend-owner' | 'caller-filtered' | 'none';

export interface RouteAccess {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  scope: Scope;
  roles: readonly Role[];
  ownership: Ownership;
  /** Idempotency-Key handling. */
  idempotency?: 'required' | 'optional';
  /**
   * A deprecated operation (docs/api.md, "Versioning and deprecation"): marked in the contract, and every
   * answer carries Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to what replaces it.
   */
  deprecated?: { since: string; sunset?: string; link?: string };
}

const EVERYONE: readonly Role[] = ['customer', 'agent', 'partner'];
const CUSTOMER_OR_STAFF: readonly Role[] = ['customer', 'agent'];
const STAFF_OR_PARTNER: readonly Role[] = ['agent', 'partner'];

export const ROUTES = {
  createOrder: {
    method: 'POST',
    url: '/v1/orders',
    scope: 'orders:write',
    roles: EVERYONE,
    ownership: 'customer-in-request',
    idempotency: 'optional',
  },
  getOrder: {
    method: 'GET',
    url: '/v1/orders/:orderId',
    scope: 'orders:read',
    roles: EVERYONE,
    ownership: 'backend-owner',
  },
  listOrders: { method: 'GET', url: '/v1/orders', scope: 'orders:read', roles: EVERYONE, ownership: 'caller-filtered' },
  updateOrder: {
    method: 'PUT',
    url: '/v1/orders/:orderId',
    scope: 'orders:write',
    roles: EVERYONE,
    ownership: 'backend-owner',
  },
  cancelOrder: {
    method: 'DELETE',
    url: '/v1/orders/:orderId',
    scope: 'orders:write',
    roles: EVERYONE,
    ownership: 'backend-owner',
  },
  getCustomer: {
    method: 'GET',
    url: '/v1/customers/:customerId',
    scope: 'customers:read',
    roles: EVERYONE,
    ownership: 'customer-in-request',
  },
  createCustomer: {
    method: 'POST',
    url: '/v1/customers',
    scope: 'customers:write',
    roles: ['agent', 'partner'],
    ownership: 'none',
  },
  updateCustomer: {
    method: 'PATCH',
    url: '/v1/customers/:customerId',
    scope: 'customers:write',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'customer-in-request',
  },
  getBalance: {
    method: 'GET',
    url: '/v1/accounts/:accountId/balance',
    scope: 'accounts:read',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'backend-owner',
  },
  listCustomerAccounts: {
    method: 'GET',
    url: '/v1/customers/:customerId/accounts',
    scope: 'accounts:read',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'customer-in-request',
  },
  createPayment: {
    method: 'POST',
    url: '/v1/payments',
    scope: 'payments:write',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'backend-owner',
    idempotency: 'required',
  },
  getPayment: {
    method: 'GET',
    url: '/v1/payments/:paymentId',
    scope: 'payments:read',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'backend-owner',
  },
  // The account named in the query is the object: one the caller may not use is not found.
  listPayments: {
    method: 'GET',
    url: '/v1/payments',
    scope: 'payments:read',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'backend-owner',
  },
  createLoanApplication: {
    method: 'POST',
    url: '/v1/loan-applications',
    scope: 'loans:write',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'customer-in-request',
    idempotency: 'optional',
  },
  listEvents: { method: 'GET', url: '/v1/events', scope: 'events:read', roles: EVERYONE, ownership: 'caller-filtered' },
  getEvent: {
    method: 'GET',
    url: '/v1/events/:eventId',
    scope: 'events:read',
    roles: EVERYONE,
    ownership: 'backend-owner',
  },
  sendWebhookTestEvent: {
    method: 'POST',
    url: '/v1/webhook-subscriptions/:subscriptionId/test',
    scope: 'webhooks:write',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
    // A retry after a lost answer gets the same test delivery, not a second one.
    idempotency: 'optional',
  },
  createWebhookSubscription: {
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    scope: 'webhooks:write',
    roles: STAFF_OR_PARTNER,
    ownership: 'none',
  },
  listWebhookSubscriptions: {
    method: 'GET',
    url: '/v1/webhook-subscriptions',
    scope: 'webhooks:read',
    roles: STAFF_OR_PARTNER,
    ownership: 'caller-filtered',
  },
  getWebhookSubscription: {
    method: 'GET',
    url: '/v1/webhook-subscriptions/:subscriptionId',
    scope: 'webhooks:read',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  updateWebhookSubscription: {
    method: 'PATCH',
    url: '/v1/webhook-subscriptions/:subscriptionId',
    scope: 'webhooks:write',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  deleteWebhookSubscription: {
    method: 'DELETE',
    url: '/v1/webhook-subscriptions/:subscriptionId',
    scope: 'webhooks:write',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  rotateWebhookSecret: {
    method: 'POST',
    url: '/v1/webhook-subscriptions/:subscriptionId/rotate-secret',
    scope: 'webhooks:write',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  listWebhookDeliveries: {
    method: 'GET',
    url: '/v1/webhook-subscriptions/:subscriptionId/deliveries',
    scope: 'webhooks:read',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  getWebhookDelivery: {
    method: 'GET',
    url: '/v1/webhook-subscriptions/:subscriptionId/deliveries/:deliveryId',
    scope: 'webhooks:read',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  listWebhookDeliveryAttempts: {
    method: 'GET',
    url: '/v1/webhook-subscriptions/:subscriptionId/deliveries/:deliveryId/attempts',
    scope: 'webhooks:read',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  retryWebhookDelivery: {
    method: 'POST',
    url: '/v1/webhook-subscriptions/:subscriptionId/deliveries/:deliveryId/retry',
    scope: 'webhooks:write',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
  },
  recoverWebhookSubscription: {
    method: 'POST',
    url: '/v1/webhook-subscriptions/:subscriptionId/recover',
    scope: 'webhooks:write',
    roles: STAFF_OR_PARTNER,
    ownership: 'backend-owner',
    // A retry after a lost answer does not queue the window a second time.
    idempotency: 'optional',
  },
  getOperation: {
    method: 'GET',
    url: '/v1/operations/:operationId',
    scope: 'operations:read',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'backend-owner',
  },
  getLoanApplication: {
    method: 'GET',
    url: '/v1/loan-applications/:loanId',
    scope: 'loans:read',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'backend-owner',
  },
  listLoanApplications: {
    method: 'GET',
    url: '/v1/loan-applications',
    scope: 'loans:read',
    roles: CUSTOMER_OR_STAFF,
    ownership: 'customer-in-request',
  },
} as const satisfies Record<string, RouteAccess>;

export type OperationId = keyof typeof ROUTES;

const ROLE_PLURALS: Record<Role, string> = { customer: 'customers', agent: 'agents', partner: 'partners' };

function wordList(words: readonly string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/**
 * The route's access rule as the reference shows it to a reader: who may call it and what each of them sees,
 * in plain words rather than the table's rule names.
 */
export function accessInWords(access: Pick<RouteAccess, 'scope' | 'roles' | 'ownership'>): string {
  const who = wordList(access.roles.map((role) => ROLE_PLURALS[role]));
  const call = `${who.charAt(0).toUpperCase()}${who.slice(1)} may call it, with scope \`${access.scope}\`.`;
  const has = (role: Role) => access.roles.includes(role);
  const own = [
    has('customer') ? 'customers see only their own' : '',
    has('agent') && has('customer') ? 'agents see all' : '',
    has('partner') && has('customer') ? 'partners only their own' : '',
  ].filter(Boolean);
  const sees = own.length > 0 ? own.join('; ') : 'each caller sees only their own';
  const sentence = `${sees.charAt(0).toUpperCase()}${sees.slice(1)}`;
  switch (access.ownership) {
    case 'none':
      return call;
    case 'customer-in-request': {
      const others = [has('agent') ? 'agents any' : '', has('partner') ? 'partners only their own customers' : ''];
      const rest = others.filter(Boolean).join('; ');
      return `${call} Customers may name only their own customer id${rest ? `; ${rest}` : ''}.`;
    }
    case 'caller-filtered':
      return `${call} The list holds only what the caller may see: ${sees}.`;
    case 'backend-owner':
      return `${call} ${sentence}; anything else answers 404 Not Found.`;
  }
}

/** Route config every route carries: its table entry, or `public` for health, discovery and docs. */
export type RouteAccessConfig = { operationId: OperationId; access: RouteAccess } | { public: true };

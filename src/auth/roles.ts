/** The scope catalogue, the roles, and the demo identities of the development issuer. */
export const SCOPES = [
  'orders:read',
  'orders:write',
  'customers:read',
  'customers:write',
  'accounts:read',
  'payments:read',
  'payments:write',
  'loans:read',
  'loans:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
  'operations:read',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Each scope in words: on the consent page, and in the OpenAPI document's OAuth 2.0 flows. */
export const SCOPE_DESCRIPTIONS: Record<Scope | 'openid', string> = {
  openid: 'Know who you are (your user name)',
  'orders:read': 'See orders',
  'orders:write': 'Place, change and cancel orders',
  'customers:read': 'See customer details',
  'customers:write': 'Register customers and change their details',
  'accounts:read': 'See accounts and their balances',
  'payments:read': 'See payments',
  'payments:write': 'Make payments from accounts',
  'loans:read': 'See loan applications and their decisions',
  'loans:write': 'Apply for loans',
  'events:read': 'Read the feed of events (what changed, in order)',
  'webhooks:read': 'See webhook subscriptions',
  'webhooks:write': 'Create, change and remove webhook subscriptions',
  'operations:read': 'See the progress and outcome of requests run later',
};

export const ROLES = ['customer', 'agent', 'partner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Each role as the record header names it (CBHDR HDR-ROLE); SYSTEM is the service itself, never a token's role. */
export const ROLE_CODES = { customer: 'CUSTOMER', agent: 'AGENT', partner: 'PARTNER', system: 'SYSTEM' } as const;
export type RoleCode = (typeof ROLE_CODES)[keyof typeof ROLE_CODES];

/** The role a header's role code names, if any. */
export function roleOfCode(code: string): Role | 'system' | undefined {
  for (const [role, roleCode] of Object.entries(ROLE_CODES)) if (roleCode === code) return role as Role | 'system';
  return undefined;
}

/** The most a token of each role may carry (least privilege: partners never touch money). */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  customer: SCOPES.filter((s) => !s.startsWith('webhooks:')),
  agent: SCOPES,
  partner: [
    'orders:read',
    'orders:write',
    'customers:read',
    'customers:write',
    'events:read',
    'webhooks:read',
    'webhooks:write',
  ],
};

export interface Principal {
  /** Token subject: a user name or a client id. */
  subject: string;
  role: Role;
  /** The customer a `customer` principal is bound to. */
  customerId: string | null;
  scopes: ReadonlySet<string>;
  /** Expiry, epoch seconds. */
  expiresAt: number;
}

export interface DemoIdentity {
  subject: string;
  kind: 'user' | 'client';
  role: Role;
  customerId?: string;
}

/** The identities the embedded provider and `npm run token` know, for development and tests. */
export const DEMO_IDENTITIES: readonly DemoIdentity[] = [
  { subject: 'ada', kind: 'user', role: 'customer', customerId: '1001' },
  { subject: 'alan', kind: 'user', role: 'customer', customerId: '1002' },
  { subject: 'grace', kind: 'user', role: 'customer', customerId: '1003' },
  { subject: 'clerk', kind: 'user', role: 'agent' },
  { subject: 'acme-shop', kind: 'client', role: 'partner' },
];

export function findDemoIdentity(subject: string): DemoIdentity | undefined {
  return DEMO_IDENTITIES.find((i) => i.subject === subject);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Field-level authorization (OWASP API3): which response fields each role receives, one explicit list per
 * resource. Routes build the full object from the back-end record and project it here; anything not listed
 * for a role is never sent to it. The OpenAPI document marks the restricted fields (`x-roles`).
 */
import type { Role } from '../auth/roles.ts';

export const CUSTOMER_FIELDS = {
  agent: ['customerId', 'name', 'email', 'phone', 'dateOfBirth', 'address', 'riskRating', 'monthlyIncome', 'orderCreditLimit', 'currency', 'createdAt', 'updatedAt'],
  customer: ['customerId', 'name', 'email', 'phone', 'dateOfBirth', 'address', 'createdAt', 'updatedAt'],
  partner: ['customerId', 'name'],
} as const satisfies Record<Role, readonly string[]>;

/** Roles that receive a field of a resource's list: what the OpenAPI document shows. */
export function rolesReceiving(fields: Record<Role, readonly string[]>, field: string): Role[] {
  return (Object.keys(fields) as Role[]).filter((role) => fields[role].includes(field));
}

/** The object with only the fields the role may see; a role without a list receives nothing. */
export function projectFields<T extends object>(value: T, fields: Record<Role, readonly string[]>, role: Role | undefined): Partial<T> {
  const allowed: readonly string[] = role === undefined ? [] : fields[role];
  const out: Partial<T> = {};
  for (const key of allowed) {
    if (key in value && (value as Record<string, unknown>)[key] !== undefined) {
      (out as Record<string, unknown>)[key] = (value as Record<string, unknown>)[key];
    }
  }
  return out;
}

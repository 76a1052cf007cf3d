/**
 * Field-level authorization (OWASP API3): each resource lists the response fields each role receives; anything
 * not listed for a role is never sent to it. The OpenAPI document marks the restricted fields (`x-roles`).
 */
import type { Role } from '../auth/roles.ts';

/** The fields of one resource that each role receives. */
export type FieldLists = Record<Role, readonly string[]>;

/** Roles that receive a field of a resource's list: what the OpenAPI document shows. */
export function rolesReceiving(fields: FieldLists, field: string): Role[] {
  return (Object.keys(fields) as Role[]).filter((role) => fields[role].includes(field));
}

/** The object with only the fields the role may see; a role without a list receives nothing. */
export function projectFields<T extends object>(value: T, fields: FieldLists, role: Role | undefined): Partial<T> {
  const allowed: readonly string[] = role === undefined ? [] : fields[role];
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of allowed) {
    if (Object.hasOwn(source, key) && source[key] !== undefined) out[key] = source[key];
  }
  return out as Partial<T>;
}

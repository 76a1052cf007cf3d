/**
 * The embedded provider's secrets, never committed: demo passwords, the partner client's secret, cookie keys.
 * Created at first start in an owner-only file under DATA_DIR, or supplied in it (tests write their own).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_IDENTITIES } from '../auth/roles.ts';
import { createOwnerOnlyFile } from '../owner-only-file.ts';

export interface IdentityCredentials {
  /** Demo user name → password. */
  passwords: Record<string, string>;
  /** Confidential client id → client secret. */
  clientSecrets: Record<string, string>;
  /** Keys that sign the provider's cookies (newest first). */
  cookieKeys: string[];
}

export function credentialsFile(dataDir: string): string {
  return join(dataDir, 'identity', 'demo-credentials.json');
}

function secret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

function generate(): IdentityCredentials {
  const passwords: Record<string, string> = {};
  const clientSecrets: Record<string, string> = {};
  for (const identity of DEMO_IDENTITIES) {
    if (identity.kind === 'user') passwords[identity.subject] = secret(12);
    else clientSecrets[identity.subject] = secret(32);
  }
  return { passwords, clientSecrets, cookieKeys: [secret(32)] };
}

/** Reads the credentials file, creating it on first start; `created` says whether it was just written. */
export function loadOrCreateCredentials(dataDir: string): {
  credentials: IdentityCredentials;
  file: string;
  created: boolean;
} {
  const file = credentialsFile(dataDir);
  const created = !existsSync(file) && createOwnerOnlyFile(file, `${JSON.stringify(generate(), null, 2)}\n`);
  return { credentials: JSON.parse(readFileSync(file, 'utf8')) as IdentityCredentials, file, created };
}

/**
 * The cookie keys alone, when the users and clients come from the accounts file: random, made at first start in
 * an owner-only file under DATA_DIR (instances that share sign-ins share the data directory, or this file).
 */
export function loadOrCreateCookieKeys(dataDir: string): string[] {
  const file = join(dataDir, 'identity', 'cookie-keys.json');
  if (!existsSync(file)) createOwnerOnlyFile(file, `${JSON.stringify({ cookieKeys: [secret(32)] })}\n`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { cookieKeys: string[] }).cookieKeys;
}

/**
 * Constant-time password check: both sides digested to the same length first, so neither content nor
 * length leaks through timing; an unknown user costs the same as a wrong password.
 */
export function passwordMatches(expected: string | undefined, given: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const equal = timingSafeEqual(digest(given), digest(expected ?? secret(12)));
  return equal && expected !== undefined;
}

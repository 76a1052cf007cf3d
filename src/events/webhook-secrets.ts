/**
 * Webhook signing secrets at rest: AES-256-GCM under a keyring of named keys (WEBHOOK_SECRET_KEY or its file).
 * The API seals a secret as it creates one; the store and the transport carry only the sealed text, which the
 * dispatcher opens right before signing. The first key seals; the others still open what they sealed.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOwnerOnlyFile } from '../owner-only-file.ts';
import { ConfigError } from '../settings/schema.ts';

/** `v1.<kid>.<base64url(nonce, ciphertext, tag)>`: the version and kid are authenticated too (GCM's AAD). */
const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KID = /^[A-Za-z0-9_-]{1,16}$/;
const SEALED = /^v1\.([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]+)$/;

/** A secret that cannot be opened: its key is not in the keyring, or the text was altered. */
export class WebhookSecretError extends Error {
  override readonly name = 'WebhookSecretError';
}

/**
 * The keys by id, first the one that seals. Its keys are private fields: a keyring in the configuration logs
 * as its ids only (effective-config.ts shows every own field).
 */
export class WebhookKeyring {
  readonly kids: readonly string[];
  readonly #keys: ReadonlyMap<string, Buffer>;

  constructor(entries: ReadonlyArray<readonly [kid: string, key: Buffer]>) {
    if (entries.length === 0) throw new Error('a keyring needs a key');
    this.kids = entries.map(([kid]) => kid);
    this.#keys = new Map(entries);
  }

  /** The id of the key new secrets are sealed with. */
  get current(): string {
    return this.kids[0]!;
  }

  seal(secret: string): string {
    const kid = this.current;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(kid)!, nonce);
    cipher.setAAD(Buffer.from(`${VERSION}.${kid}`));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${VERSION}.${kid}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  open(sealed: string): string {
    const match = SEALED.exec(sealed);
    if (!match) throw new WebhookSecretError('the stored secret is not in the sealed form');
    const kid = match[1]!;
    const text = match[2]!;
    const key = this.#keys.get(kid);
    if (!key) throw new WebhookSecretError(`the secret is sealed with key "${kid}", which the keyring does not hold`);
    const bytes = Buffer.from(text, 'base64url');
    if (bytes.length <= NONCE_BYTES + TAG_BYTES) throw new WebhookSecretError('the sealed secret is too short');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(`${VERSION}.${kid}`));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const body = bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new WebhookSecretError(`the secret does not open with key "${kid}" (a different key under that id?)`);
    }
  }

  /** The kid a stored secret is sealed with; null for a plain (not yet sealed) one. */
  static kidOf(stored: string): string | null {
    return SEALED.exec(stored)?.[1] ?? null;
  }

  toJSON(): { kids: readonly string[] } {
    return { kids: this.kids };
  }
}

/** A Standard Webhooks secret: "whsec_" and the base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A plain secret as stored before secrets were sealed. */
export function isPlainWebhookSecret(stored: string): boolean {
  return stored.startsWith('whsec_');
}

/** `kid:base64key` entries, separated by commas or new lines; `name` is the setting, for the error. */
export function parseKeyring(value: string, name: string): WebhookKeyring {
  const entries = value
    .split(/[,\n]/)
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry): [string, Buffer] => {
      const colon = entry.indexOf(':');
      const kid = colon > 0 ? entry.slice(0, colon) : '';
      if (!KID.test(kid)) {
        throw new ConfigError(name, 'must list kid:key entries, each kid 1 to 16 of A-Z a-z 0-9 _ -');
      }
      const text = entry.slice(colon + 1);
      // Node's base64 decoder reads the url-safe alphabet too.
      const key = Buffer.from(text, 'base64');
      if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || key.length !== KEY_BYTES) {
        throw new ConfigError(
          name,
          `gives key "${kid}" that is not ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`,
        );
      }
      return [kid, key];
    });
  if (entries.length === 0) throw new ConfigError(name, 'lists no key (kid:base64key, first the one that seals)');
  if (new Set(entries.map(([kid]) => kid)).size !== entries.length) {
    throw new ConfigError(name, 'names a kid twice');
  }
  return new WebhookKeyring(entries);
}

/** The keyring file's contents, parsed; a file that cannot be read is named by its setting. */
export function readKeyringFile(file: string, name: string): WebhookKeyring {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(name, `names a file that cannot be read: ${file}`);
  }
  return parseKeyring(text, name);
}

export function developmentKeyFile(dataDir: string): string {
  return join(dataDir, 'webhooks', 'secret-key');
}

/**
 * Without a configured key: one made at first start in an owner-only file under DATA_DIR, so secrets are still
 * never plain at rest (production mode refuses it). Its kid is random: a new file never passes for an old one.
 */
export function developmentKeyring(dataDir: string): WebhookKeyring {
  const file = developmentKeyFile(dataDir);
  if (!existsSync(file)) {
    const entry = `dev-${randomBytes(4).toString('hex')}:${randomBytes(KEY_BYTES).toString('base64')}\n`;
    createOwnerOnlyFile(file, entry);
  }
  try {
    return parseKeyring(readFileSync(file, 'utf8'), 'WEBHOOK_SECRET_KEY');
  } catch {
    throw new ConfigError('DATA_DIR', `holds a development webhook key that cannot be read: ${file}`);
  }
}

/** The keyring in force: the configured one, else the development key under DATA_DIR. */
export function webhookKeyring(settings: { secretKeyring: WebhookKeyring | null }, dataDir: string): WebhookKeyring {
  return settings.secretKeyring ?? developmentKeyring(dataDir);
}

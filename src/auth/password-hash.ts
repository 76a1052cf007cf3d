/**
 * Password and client-secret hashes for the embedded provider's accounts file: scrypt in the PHC string format
 * (`$scrypt$ln=17,r=8,p=1$<salt>$<hash>`, base64 without padding), so the file never holds a secret itself.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PREFIX = '$scrypt$';
const HASH_BYTES = 32;
/** OWASP's minimum for scrypt: N = 2^17, r = 8, p = 1 (128 MiB, a few hundred milliseconds). */
const DEFAULT_COST = { ln: 17, r: 8, p: 1 };
const FORMAT = /^\$scrypt\$ln=([0-9]{1,2}),r=([0-9]{1,2}),p=([0-9]{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{43})$/;

interface Parsed {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function scrypt(password: string, salt: Buffer, cost: { ln: number; r: number; p: number }): Promise<Buffer> {
  const N = 2 ** cost.ln;
  // Room for scrypt's own working memory (128 · N · r bytes) and a little more.
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, HASH_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

function parse(text: string): Parsed | null {
  const match = FORMAT.exec(text);
  if (!match) return null;
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Bounds keep a hand-edited file from asking for gigabytes per sign-in, or for a cost too low to matter.
  if (ln < 14 || ln > 20 || r < 8 || r > 16 || p < 1 || p > 4) return null;
  return { ln, r, p, salt: Buffer.from(match[4]!, 'base64'), hash: Buffer.from(match[5]!, 'base64') };
}

/** Whether `text` is a hash this module makes and accepts (the cost within bounds). */
export function isPasswordHash(text: unknown): text is string {
  return typeof text === 'string' && parse(text) !== null;
}

/** The cost a hash was made with, to make another one alike (null: not a hash of this module). */
export function hashCost(hash: string): { ln: number; r: number; p: number } | null {
  const parsed = parse(hash);
  return parsed ? { ln: parsed.ln, r: parsed.r, p: parsed.p } : null;
}

export const PASSWORD_HASH_FORMAT = '$scrypt$ln=17,r=8,p=1$<salt>$<hash> (made by `corebridge hash-password`)';

export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, cost);
  return `${PREFIX}ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(hash)}`;
}

/** Constant-time comparison; a malformed hash never matches. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  const parsed = parse(hash);
  if (!parsed) return false;
  const given = await scrypt(password, parsed.salt, parsed);
  return timingSafeEqual(given, parsed.hash);
}

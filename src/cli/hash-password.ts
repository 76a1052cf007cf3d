/**
 * `corebridge hash-password`: the scrypt hash of a password or client secret for the accounts file
 * (AUTH_ACCOUNTS_FILE). The secret is read from stdin, never from the command line, where `ps` and the shell's
 * history would show it.
 */
import { hashPassword } from '../auth/password-hash.ts';
import { UsageError, type Io } from './usage.ts';

export const HASH_PASSWORD_USAGE = `usage: corebridge hash-password < secret-file
       read -rs PW && printf '%s' "$PW" | npx corebridge hash-password
  reads a password or client secret from stdin (one line) and prints its scrypt hash for AUTH_ACCOUNTS_FILE
  ("passwordHash" of a user, "secretHash" of a client); the secret is never taken from the command line`;

/** Passwords shorter than this are refused (NIST SP 800-63B's minimum). */
const MIN_LENGTH = 8;

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function hashPasswordCommand(args: string[], io: Io): Promise<number> {
  if (args.length > 0) throw new UsageError(`takes no arguments: give the secret on stdin\n${HASH_PASSWORD_USAGE}`);
  // One line: the newline a terminal or `echo` adds is not part of the secret.
  const secret = (await readAll(io.stdin)).replace(/\r?\n$/, '');
  if (secret.includes('\n')) throw new UsageError('give one line on stdin: the secret holds a line break');
  if ([...secret].length < MIN_LENGTH) {
    throw new UsageError(`the secret on stdin must have at least ${MIN_LENGTH} characters`);
  }
  io.stdout.write(`${await hashPassword(secret)}\n`);
  return 0;
}

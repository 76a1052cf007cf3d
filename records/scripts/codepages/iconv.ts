/** glibc iconv as a child process: the source the code page tables are generated from and tested against. */
import { spawnSync } from 'node:child_process';

export interface IconvResult {
  /** What iconv wrote before it stopped (all of it when `ok`). */
  out: Buffer;
  ok: boolean;
  /** Where iconv found an illegal input sequence, when it says so. */
  errorAt?: number;
  stderr: string;
}

/** Converts `input` with `iconv -f from -t to` (`-c` drops what it cannot convert instead of stopping). */
export function iconv(from: string, to: string, input: Uint8Array, discard = false): IconvResult {
  const args = [...(discard ? ['-c'] : []), '-f', from, '-t', to];
  const run = spawnSync('iconv', args, { input, maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw new Error(`iconv could not run: ${run.error.message}`);
  const stderr = run.stderr.toString();
  const at = /illegal input sequence at position (\d+)/.exec(stderr);
  return {
    out: run.stdout,
    ok: run.status === 0,
    ...(at ? { errorAt: Number(at[1]) } : {}),
    stderr,
  };
}

/** The glibc version iconv belongs to, for the generated files' header. */
export function iconvVersion(): string {
  const run = spawnSync('iconv', ['--version']);
  return /\(.*?\)\s*([\d.]+)/.exec(run.stdout.toString())?.[1] ?? 'unknown';
}

/** UTF-16BE bytes → the JavaScript string. */
export function fromUtf16be(bytes: Buffer): string {
  const copy = Buffer.from(bytes);
  copy.swap16();
  return copy.toString('utf16le');
}

/** A JavaScript string → UTF-16BE bytes. */
export function toUtf16be(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf16le');
  bytes.swap16();
  return bytes;
}

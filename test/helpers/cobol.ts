/**
 * The COBOL tests need GnuCOBOL's cobc. Without it they are skipped on a developer's machine, with the
 * reason, but run (and fail) under CI (CI=true), where .ci/run installs it: they never pass by not running.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

function hasCobc(): boolean {
  try {
    execFileSync('cobc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The `skip` option of a test that needs cobc. */
export const cobolSkip: string | false =
  !hasCobc() && !process.env['CI'] ? 'cobc is not installed (apt-get install gnucobol3)' : false;

/** PIDs of this process's COBOL program host processes (children named cbhost). */
export function hostProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (match?.[1] === 'cbhost' && Number(match[2]) === process.pid) pids.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

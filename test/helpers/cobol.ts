/**
 * The COBOL tests need GnuCOBOL's cobc. Without it they are skipped on a developer's machine, with the
 * reason, but run (and fail) under CI (CI=true), where .ci/run installs it: they never pass by not running.
 */
import { execFileSync } from 'node:child_process';

function hasCobc(): boolean {
  try {
    execFileSync('cobc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The `skip` option of a test that needs cobc. */
export const cobolSkip: string | false = !hasCobc() && !process.env['CI'] ? 'cobc is not installed (apt-get install gnucobol3)' : false;

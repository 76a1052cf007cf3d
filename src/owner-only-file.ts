/** Files only the service's own user may read: keys and secrets it creates under DATA_DIR at first start. */
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `file` (mode 0600, its folder 0700) unless it exists; false when another process created it first.
 * Write-then-rename so two processes starting at once never read a half-written file.
 */
export function createOwnerOnlyFile(file: string, data: string): boolean {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, data, { mode: 0o600 });
  if (existsSync(file)) return false;
  renameSync(temp, file);
  chmodSync(file, 0o600);
  return true;
}

/** A copy of the shipped example service directory, its service file edited, for tests of what goes wrong. */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXAMPLE_SERVICES = fileURLToPath(new URL('../../examples/services/', import.meta.url));
export const EXAMPLE_FILE = 'payment-method-check.json';

/** Loosely typed: tests edit any part of it. */
export type ServiceJson = Record<string, any>;

/** The directory of the copy; the caller removes it. */
export function editedExample(edit: (service: ServiceJson) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-services-'));
  cpSync(EXAMPLE_SERVICES, dir, { recursive: true });
  const service = JSON.parse(readFileSync(join(dir, EXAMPLE_FILE), 'utf8')) as ServiceJson;
  edit(service);
  writeFileSync(join(dir, EXAMPLE_FILE), JSON.stringify(service));
  return dir;
}

/** `npm run config:docs`: writes .env.example and docs/settings.md from the declared settings. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS_SECTIONS } from '../config.ts';
import { renderEnvExample, renderSettingsMarkdown } from '../settings/render.ts';
import { exitWithUsageIfAsked } from './help.ts';

export const ENV_EXAMPLE_FILE = fileURLToPath(new URL('../../.env.example', import.meta.url));
export const SETTINGS_DOC_FILE = fileURLToPath(new URL('../../docs/settings.md', import.meta.url));

export function settingsFiles(): Array<[file: string, text: string]> {
  return [
    [ENV_EXAMPLE_FILE, renderEnvExample(SETTINGS_SECTIONS)],
    [SETTINGS_DOC_FILE, renderSettingsMarkdown(SETTINGS_SECTIONS)],
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  exitWithUsageIfAsked(
    process.argv.slice(2),
    `usage: npm run config:docs
  writes .env.example and docs/settings.md from the settings each area declares (src/config.ts lists them)`,
  );
  for (const [file, text] of settingsFiles()) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    process.stdout.write(`wrote ${file}\n`);
  }
}

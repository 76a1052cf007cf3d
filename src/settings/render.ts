/** .env.example and docs/settings.md, written from the areas' declared settings (`npm run config:docs`). */
import type { Setting, SettingsSection } from './schema.ts';

const WIDTH = 120;
/** Column where the descriptions of .env.example start. */
const COMMENT_COLUMN = 38;

const ENV_EXAMPLE_HEADER = `\
# Every setting of Corebridge, with its default. Copy to .env and change what you need: \`npm start\`,
# \`npm run token\`, \`npm run seed\`, \`npm run backend\` and \`npm run stack\` read .env (variables already set in
# the environment win). Nothing here is required: the defaults serve the demo on http://localhost:8080.
# A bad value stops startup with a message naming the variable. docs/settings.md lists the allowed values.
# Written by \`npm run config:docs\` from the settings each area declares (src/config.ts lists them).`;

function entries(section: SettingsSection): Array<[string, Setting<unknown>]> {
  return Object.entries(section.settings);
}

/** `# NAME=default   # description (choices)`, wrapped onto aligned comment lines. */
function envLine(name: string, setting: Setting<unknown>): string[] {
  const assignment = `# ${name}=${setting.shown}`;
  const lines: string[] = [];
  let line = assignment.length + 2 > COMMENT_COLUMN ? `${assignment}  #` : `${assignment.padEnd(COMMENT_COLUMN)}#`;
  const comment = setting.choices ? `${setting.description} (${setting.choices.join(', ')})` : setting.description;
  for (const word of comment.split(' ')) {
    if (line.length + 1 + word.length > WIDTH && !line.endsWith('#')) {
      lines.push(line);
      line = `#${' '.repeat(COMMENT_COLUMN - 1)}#`;
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

export function renderEnvExample(sections: readonly SettingsSection[]): string {
  const blocks = sections.map((section) =>
    [`# --- ${section.title} ---`, ...entries(section).flatMap(([name, setting]) => envLine(name, setting))].join('\n'),
  );
  return `${[ENV_EXAMPLE_HEADER, ...blocks].join('\n\n')}\n`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export function renderSettingsMarkdown(sections: readonly SettingsSection[]): string {
  const blocks = sections.map((section) =>
    [
      `## ${section.title}`,
      '',
      '| Variable | Default | Allowed | Description |',
      '|---|---|---|---|',
      ...entries(section).map(([name, setting]) => {
        const shown = setting.shown ? `\`${cell(setting.shown)}\`` : '';
        return `| \`${name}\` | ${shown} | ${cell(setting.allowed)} | ${cell(setting.description)} |`;
      }),
    ].join('\n'),
  );
  return `${[
    '# Settings',
    [
      'Every setting is an environment variable, also read from `.env` (variables set in the environment win). Nothing',
      'is required; a bad value stops startup with a message naming the variable. Each area declares its settings',
      'beside its code (`settings.ts`; `src/config.ts` lists them); this page and `.env.example` are written from',
      'them by `npm run config:docs`, and a test fails when either is stale.',
    ].join('\n'),
    ...blocks,
  ].join('\n\n')}\n`;
}

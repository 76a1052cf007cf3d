/**
 * The documentation points only at what the repository has: no section of a contract document it does not
 * carry, and every relative Markdown link names a file that is there.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f !== '' && existsSync(join(ROOT, f)));
const TEXT = /\.(md|ts|js|cjs|json|sh|yaml|yml|cbl|cpy)$/;

test('no text cites a section of a contract document the repository does not have', () => {
  const cites = tracked
    .filter((f) => TEXT.test(f) && !f.startsWith('records/src/codepages/') && f !== 'test/docs/references.test.ts')
    .flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/contract §|§\d+\.\d+ of the contract/i.test(line) ? [`${f}:${i + 1}`] : [])),
    );
  assert.deepEqual(cites, []);
});

test('every relative link of the Markdown files names a file of the repository', () => {
  const broken: string[] = [];
  for (const file of tracked.filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith('#')) continue;
      const path = decodeURIComponent(target!.split('#')[0]!);
      if (!existsSync(join(ROOT, dirname(file), path))) broken.push(`${file}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

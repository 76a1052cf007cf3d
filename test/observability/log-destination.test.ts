/**
 * The JSON log on stdout (src/logger.ts): the lines of one event-loop turn leave in one write, in order, and
 * none is lost when the process exits in the turn that logged it — to a pipe and to a file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const LOGGER = new URL('../../src/logger.ts', import.meta.url).href;

/** Logs `turns` × 50 lines, each turn's lines in one go, then exits in the turn of the last line. */
function script(turns: number, exit: 'exit' | 'flush'): string {
  return `
    import { createLogger } from ${JSON.stringify(LOGGER)};
    const log = createLogger({ logLevel: 'info', logFormat: 'json' });
    for (let turn = 0; turn < ${turns}; turn++) {
      for (let i = 0; i < 50; i++) log.info({ turn, i, amount: '12.50' }, 'line');
      await new Promise((resolve) => setImmediate(resolve));
    }
    log.info({ last: true }, 'the last line');
    ${exit === 'exit' ? 'process.exit(3);' : 'log.flush(() => process.exit(0));'}
  `;
}

function linesOf(text: string): Array<Record<string, unknown>> {
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

function assertAll(lines: Array<Record<string, unknown>>, turns: number): void {
  assert.equal(lines.length, turns * 50 + 1, 'every line was written');
  lines.slice(0, -1).forEach((line, n) => {
    assert.equal(line['turn'], Math.floor(n / 50));
    assert.equal(line['i'], n % 50, 'in the order they were logged');
    assert.equal(line['msg'], 'line');
  });
  assert.equal(lines.at(-1)!['msg'], 'the last line');
}

test('to a pipe: every line, in order, also the last turn\'s when the process exits in it', () => {
  for (const exit of ['exit', 'flush'] as const) {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script(20, exit)], { encoding: 'utf8' });
    assert.equal(run.status, exit === 'exit' ? 3 : 0, run.stderr);
    assertAll(linesOf(run.stdout), 20);
  }
});

test('to a file: every line, in order, also the last turn\'s when the process exits in it', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-log-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'out.log');
  const fd = openSync(file, 'w');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script(200, 'exit')], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
  closeSync(fd);
  assert.equal(run.status, 3, run.stderr);
  assertAll(linesOf(readFileSync(file, 'utf8')), 200);
});

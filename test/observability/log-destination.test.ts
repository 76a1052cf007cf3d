/**
 * The JSON log on stdout (src/logger.ts): every line, in the order logged, to a pipe and to a file, after a
 * graceful stop (logger.flush) and after a process.exit() in the turn that logged. (Asynchronous sonic-boom,
 * used before, failed this to a pipe: lines of later turns came before earlier ones.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const LOGGER = new URL('../../src/logger.ts', import.meta.url).href;
const PER_TURN = 50;

/** Logs `turns` turns of 50 lines, then 50 more and a last line in the turn it stops in. */
function script(turns: number, stop: 'exit' | 'flush'): string {
  return `
    import { createLogger } from ${JSON.stringify(LOGGER)};
    const log = createLogger({ logLevel: 'info', logFormat: 'json' });
    for (let turn = 0; turn <= ${turns}; turn++) {
      if (turn > 0) await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < ${PER_TURN}; i++) log.info({ turn, i, amount: '12.50' }, 'line');
    }
    log.info({ last: true }, 'the last line');
    ${stop === 'exit' ? 'process.exit(3);' : 'log.flush(() => process.exit(0));'}
  `;
}

function run(turns: number, stop: 'exit' | 'flush', stdout: 'pipe' | number) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script(turns, stop)], {
    stdio: ['ignore', stdout, 'pipe'],
    encoding: 'utf8',
  });
  assert.equal(result.status, stop === 'exit' ? 3 : 0, result.stderr);
  return result;
}

function linesOf(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every line, in the order logged. */
function assertAllInOrder(lines: Array<Record<string, unknown>>, turns: number): void {
  assert.equal(lines.length, (turns + 1) * PER_TURN + 1, 'every line was written');
  lines.slice(0, -1).forEach((line, n) => {
    assert.equal(line['turn'], Math.floor(n / PER_TURN));
    assert.equal(line['i'], n % PER_TURN, 'in the order they were logged');
  });
  assert.equal(lines.at(-1)!['msg'], 'the last line');
}

test('to a pipe: every line in order, after a graceful stop and after an exit in the last turn', () => {
  for (const stop of ['flush', 'exit'] as const) assertAllInOrder(linesOf(run(20, stop, 'pipe').stdout), 20);
});

test('to a file: every line in order, after a graceful stop and after an exit in the last turn', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-log-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const stop of ['flush', 'exit'] as const) {
    const file = join(dir, `${stop}.log`);
    const fd = openSync(file, 'w');
    run(200, stop, fd);
    closeSync(fd);
    assertAllInOrder(linesOf(readFileSync(file, 'utf8')), 200);
  }
});

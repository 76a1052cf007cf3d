/**
 * The COBOL program host on real GnuCOBOL programs (test/fixtures/cobol/host): frames, DISPLAY kept out of
 * them, abends answered and recovered from, crashes, time-outs, unknown programs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadLinkCatalog } from '../../src/backend/copybooks/index.ts';
import { BLANK_HEADER, RC, readHeader, writeMessage } from '../../src/backend/message.ts';
import { hostEnvironment, hostHeaderLayout, openCobolHost, type CobolHost } from '../../src/transport/cobol-host.ts';
import { buildCobolHost } from '../../src/transport/cobol-host/build.ts';
import { TransportError, TransportTimeoutError } from '../../src/transport/transport.ts';
import { cobolSkip } from '../helpers/cobol.ts';

const catalog = loadLinkCatalog();
const FIXTURES = fileURLToPath(new URL('../fixtures/cobol/host/', import.meta.url));

function message(program: string, area = 'hello host'): Buffer {
  return Buffer.concat([
    writeMessage(
      catalog,
      { ...BLANK_HEADER, tranCode: program, correlationId: 'c-1', principal: 'test', role: 'AGENT' },
      null,
      undefined,
    ),
    Buffer.from(area, 'latin1'),
  ]);
}

async function openHost(t: TestContext, options: { processes?: number; callTimeoutMs?: number } = {}) {
  const outDir = mkdtempSync(join(tmpdir(), 'corebridge-cobol-'));
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  const build = await buildCobolHost({
    outDir,
    programs: ['ECHOUP', 'STOPRUN', 'BADCALL', 'SPIN'],
    programsDir: FIXTURES,
  });
  const host = openCobolHost({
    ...build,
    header: hostHeaderLayout(catalog.header),
    log,
    processes: options.processes ?? 1,
    callTimeoutMs: options.callTimeoutMs ?? 5000,
  });
  t.after(async () => {
    await host.close();
    rmSync(outDir, { recursive: true, force: true });
  });
  return { host, lines, build };
}

async function untilAvailable(host: CobolHost): Promise<void> {
  for (let i = 0; i < 200 && !host.available(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(host.available(), true, 'a host process is running again');
}

test(
  'a call runs the program named by HDR-TRAN-CODE on the COMMAREA; DISPLAY output goes to the log',
  { skip: cobolSkip },
  async (t) => {
    const { host, lines } = await openHost(t);
    const reply = await host.call(message('ECHOUP'));
    assert.equal(reply.length, message('ECHOUP').length, 'the frame comes back at the length it went');
    const { header, body } = readHeader(catalog, reply);
    assert.equal(header.returnCode, RC.OK);
    assert.equal(header.correlationId, 'c-1');
    assert.equal(body.toString('latin1'), 'HELLO HOST');
    // Many calls in a row on one process: the frames stay in step.
    for (let i = 0; i < 50; i++)
      assert.equal(
        readHeader(catalog, await host.call(message('ECHOUP', `call ${String(i).padStart(5)}`))).body.toString(
          'latin1',
        ),
        `CALL ${String(i).padStart(5)}`,
      );
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      lines.some((l) => l['output'] === 'ECHOUP CALLED'),
      'the DISPLAY line reached the log, not the frames',
    );
  },
);

test(
  'an unknown or malformed program name answers return code 90; the host goes on',
  { skip: cobolSkip },
  async (t) => {
    const { host } = await openHost(t);
    for (const name of ['NOPE', 'bad name']) {
      const { header } = readHeader(catalog, await host.call(message(name)));
      assert.equal(header.returnCode, RC.UNKNOWN_TRAN);
      assert.equal(header.reasonCode, 'UNKNOWN_PROGRAM');
    }
    assert.equal(readHeader(catalog, await host.call(message('ECHOUP'))).header.returnCode, RC.OK);
  },
);

for (const [program, what] of [
  ['STOPRUN', 'STOP RUN where GOBACK was expected'],
  ['BADCALL', 'a runtime error'],
] as const) {
  test(
    `${what}: answered with return code 99 PROGRAM_ABEND, and a new host process takes the next call`,
    { skip: cobolSkip },
    async (t) => {
      const { host } = await openHost(t);
      const { header } = readHeader(catalog, await host.call(message(program)));
      assert.equal(header.returnCode, RC.ABEND);
      assert.equal(header.reasonCode, 'PROGRAM_ABEND');
      assert.match(header.reasonText, new RegExp(`program ${program}`));
      await untilAvailable(host);
      assert.equal(readHeader(catalog, await host.call(message('ECHOUP'))).header.returnCode, RC.OK);
    },
  );
}

test(
  'a host process killed during a call fails that call with TransportError and is replaced',
  { skip: cobolSkip },
  async (t) => {
    const { host } = await openHost(t, { processes: 2 });
    const call = host.call(message('SPIN'));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(host.killProcesses('SIGKILL'), 2);
    await assert.rejects(
      call,
      (error: Error) => error instanceof TransportError && !(error instanceof TransportTimeoutError),
    );
    await untilAvailable(host);
    assert.equal(readHeader(catalog, await host.call(message('ECHOUP'))).header.returnCode, RC.OK);
  },
);

test('when every host process dies, the calls waiting for one fail too, at once', { skip: cobolSkip }, async (t) => {
  const { host } = await openHost(t, { processes: 1 });
  const running = host.call(message('SPIN'));
  const waiting = [1, 2, 3].map(() => host.call(message('ECHOUP')));
  const outcomes = Promise.allSettled([running, ...waiting]);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(host.killProcesses('SIGKILL'), 1);
  for (const outcome of await outcomes) {
    assert.equal(outcome.status, 'rejected');
    assert.ok(outcome.status === 'rejected' && outcome.reason instanceof TransportError);
  }
  await untilAvailable(host);
  assert.equal(readHeader(catalog, await host.call(message('ECHOUP'))).header.returnCode, RC.OK);
});

test(
  'a call past its time limit fails with TransportTimeoutError; the stuck process is replaced',
  { skip: cobolSkip },
  async (t) => {
    const { host } = await openHost(t, { processes: 1, callTimeoutMs: 300 });
    await assert.rejects(host.call(message('SPIN')), TransportTimeoutError);
    await untilAvailable(host);
    assert.equal(readHeader(catalog, await host.call(message('ECHOUP'))).header.returnCode, RC.OK);
  },
);

test('calls beyond the processes wait their turn and all complete', { skip: cobolSkip }, async (t) => {
  const { host } = await openHost(t, { processes: 2 });
  const replies = await Promise.all(
    Array.from({ length: 20 }, (_, i) => host.call(message('ECHOUP', `c${String(i).padStart(9, '0')}`))),
  );
  replies.forEach((reply, i) =>
    assert.equal(readHeader(catalog, reply).body.toString('latin1'), `C${String(i).padStart(9, '0')}`),
  );
});

test(
  'calls of one turn are shared among the processes, in order: an abend answers 99, the calls after it go to another',
  { skip: cobolSkip },
  async (t) => {
    const { host } = await openHost(t, { processes: 2 });
    // Six calls, three to each process: STOPRUN second in the first process's share.
    const [before, abend, ...after] = await Promise.all([
      host.call(message('ECHOUP', 'before')),
      host.call(message('STOPRUN')),
      ...[1, 2, 3, 4].map((i) => host.call(message('ECHOUP', `after ${i}`))),
    ]);
    assert.equal(readHeader(catalog, before!).body.toString('latin1'), 'BEFORE');
    assert.equal(readHeader(catalog, abend!).header.reasonCode, 'PROGRAM_ABEND');
    assert.deepEqual(
      after.map((reply) => readHeader(catalog, reply).body.toString('latin1')),
      ['AFTER 1', 'AFTER 2', 'AFTER 3', 'AFTER 4'],
      'the call behind the abend ran on the other process',
    );
  },
);

test(
  'a call of a batch past its time limit fails alone; the call behind it runs on another process',
  { skip: cobolSkip },
  async (t) => {
    const { host } = await openHost(t, { processes: 2, callTimeoutMs: 300 });
    const outcomes = await Promise.allSettled([
      host.call(message('ECHOUP', 'first')),
      host.call(message('SPIN')),
      host.call(message('ECHOUP', 'behind')),
      ...[1, 2, 3].map((i) => host.call(message('ECHOUP', `other ${i}`))),
    ]);
    const [first, spin, ...rest] = outcomes;
    assert.equal(first!.status, 'fulfilled');
    assert.ok(spin!.status === 'rejected' && spin.reason instanceof TransportTimeoutError);
    assert.deepEqual(
      rest.map((o) => (o.status === 'fulfilled' ? readHeader(catalog, o.value).body.toString('latin1') : o.reason)),
      ['BEHIND', 'OTHER 1', 'OTHER 2', 'OTHER 3'],
    );
  },
);

test('a host binary that cannot run: calls fail with TransportError, not a hang; the host is not available', async (t) => {
  const lines: unknown[] = [];
  const log = pino(
    { level: 'error' },
    new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  const host = openCobolHost({
    hostBinary: '/nonexistent/cbhost',
    libraryPath: '/nonexistent',
    header: hostHeaderLayout(catalog.header),
    log,
    processes: 1,
  });
  t.after(() => host.close());
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(host.available(), false);
  await assert.rejects(host.call(message('ECHOUP')), TransportError);
  assert.ok(lines.some((l) => String(l).includes('COBOL program host could not run')));
});

test("the host gets GnuCOBOL's settings, the locale and time zone, and none of the server's other variables", () => {
  const env = hostEnvironment('/lib/programs', {
    PATH: '/usr/bin',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    COB_SET_TRACE: 'Y',
    AUTH_CLIENT_SECRET: 'not-for-cobol',
    DATABASE_URL: 'postgres://x',
  });
  assert.deepEqual(env, {
    PATH: '/usr/bin',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    COB_SET_TRACE: 'Y',
    COB_LIBRARY_PATH: '/lib/programs',
  });
});

test('closed: calls fail at once; the processes end', { skip: cobolSkip }, async (t) => {
  const { host } = await openHost(t);
  await host.close();
  await assert.rejects(host.call(message('ECHOUP')), TransportError);
  assert.equal(host.available(), false);
});

test("a source that does not compile stops the build with cobc's message", { skip: cobolSkip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-cobol-bad-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    join(dir, 'BROKEN.cbl'),
    '       IDENTIFICATION DIVISION.\n       PROGRAM-ID. BROKEN.\n       PROCEDURE DIVISION.\n           MOVE X TO.\n',
  );
  await assert.rejects(
    buildCobolHost({ outDir: join(dir, 'out'), programs: ['BROKEN'], programsDir: dir }),
    /cobc could not compile program BROKEN:[\s\S]*BROKEN\.cbl/,
  );
  await assert.rejects(
    buildCobolHost({ outDir: join(dir, 'out'), programs: ['MISSING'], programsDir: dir }),
    /no COBOL source for program MISSING/,
  );
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileCopybook } from '@corebridge/records';
import { compileFromArgs } from '@corebridge/records/cli';
import { csvTable, RecordWriter, type FramingOptions } from '@corebridge/records/dataset';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

/** Runs the real command in a child process, as a user would. */
function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'dataset', ...args], { maxBuffer: 1 << 30 });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-dataset-parallel-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

const COPYBOOK = [
  '       01  TXN.',
  '           05  TX-ID       PIC 9(8).',
  '           05  TX-NAME     PIC X(30).',
  '           05  TX-AMOUNT   PIC S9(11)V99 COMP-3.',
  '           05  TX-FEE      PIC S9(5)V99 COMP-3.',
  '           05  TX-N        PIC 9.',
  '           05  TX-ITEM     PIC X(6) OCCURS 0 TO 9 DEPENDING ON TX-N.',
].join('\n');
writeFileSync(at('txn.cpy'), COPYBOOK);
const layout = compileCopybook(COPYBOOK);

/** Records whose TX-FEE has an invalid sign nibble: spread over several batches of about a megabyte. */
const BAD = [7, 9001, 9002, 17777, 25000];
const COUNT = 30000;

function writeFile(name: string, framing: FramingOptions, bad: readonly number[] = [], count = COUNT): string {
  // the same file for every test that asks for it by name
  if (existsSync(at(name))) return at(name);
  const writer = new RecordWriter(framing);
  const parts: Uint8Array[] = [];
  const fixed = framing.recfm === 'F' || framing.recfm === 'FB';
  for (let i = 1; i <= count; i++) {
    const n = fixed ? 9 : i % 10;
    const bytes = layout.encode({
      txId: i,
      txName: `customer ${i}`,
      txAmount: `${i * 37}.${String(i % 100).padStart(2, '0')}`,
      txFee: '-1.50',
      txN: n,
      txItem: Array.from({ length: n }, (_, j) => `IT${j}`),
    });
    if (bad.includes(i)) bytes[8 + 30 + 7 + 3] = 0x10;
    writer.write(bytes);
    parts.push(writer.take());
  }
  parts.push(writer.end());
  writeFileSync(at(name), Buffer.concat(parts));
  return at(name);
}

const FORMATS: Array<{ recfm: string; framing: FramingOptions }> = [
  { recfm: 'F', framing: { recfm: 'F', lrecl: layout.maxLength } },
  { recfm: 'V', framing: { recfm: 'V' } },
  { recfm: 'VB', framing: { recfm: 'VB', blksize: 27998 } },
];

/** Decodes with 1 and with 2 threads, each to its own files; gives both runs and their outputs. */
function both(input: string, args: string[]) {
  return [1, 2].map((threads) => {
    const out = at(`out-${threads}.jsonl`);
    const errors = at(`errors-${threads}.jsonl`);
    rmSync(out, { force: true });
    rmSync(errors, { force: true });
    const withErrors = args.includes('--on-error') && !args.includes('fail') ? ['--errors', errors] : [];
    const r = run([
      'decode',
      at('txn.cpy'),
      '--input',
      input,
      '--output',
      out,
      '--threads',
      String(threads),
      ...withErrors,
      ...args,
    ]);
    return {
      ...r,
      output: existsSync(out) ? readFileSync(out, 'utf8') : undefined,
      errors: existsSync(errors) ? readFileSync(errors, 'utf8') : undefined,
    };
  });
}

/**
 * The same decode in two workers only, this thread reading, cutting and taking the answers in order: the path
 * batches take once workers are ready, which a small file decoded by the CLI may finish before.
 */
async function inWorkers(
  input: string,
  framing: FramingOptions,
  extra: { onError?: 'fail' | 'skip' | 'null'; skip?: number; limit?: number; format?: 'csv' } = {},
) {
  const { decodeInThreads, noBytes } = await import('../../src/cli/dataset/parallel.ts');
  const decoder = await compileFromArgs(at('txn.cpy'), {});
  const format: 'jsonl' | 'csv' = extra.format ?? 'jsonl';
  const options = {
    file: at('txn.cpy'),
    args: {},
    keepBytes: false,
    format,
    decoder,
    table: format === 'csv' ? csvTable(decoder) : undefined,
    framing,
    onError: extra.onError ?? 'fail',
    skip: extra.skip,
    limit: extra.limit,
    threads: 2,
    decodeHere: false,
    batchBytes: 64 << 10,
    input: { path: input, start: 0, end: Infinity },
  };
  let output = '';
  let errors = '';
  let error: string | undefined;
  try {
    for await (const done of decodeInThreads(noBytes(), options)) {
      output += Buffer.from(done.text).toString('utf8');
      errors += done.errors.map((e) => `${JSON.stringify(e)}\n`).join('');
    }
  } catch (e) {
    error = (e as Error).message;
  }
  return { output, errors, error };
}

for (const { recfm, framing } of FORMATS) {
  test(`${recfm}: two threads write the same JSON Lines as one, in the file's order`, async () => {
    const input = writeFile(`good.${recfm}`, framing);
    const [one, two] = both(input, ['--recfm', recfm]);
    assert.deepEqual(await inWorkers(input, framing), { output: one!.output, errors: '', error: undefined });
    assert.equal(one!.code, 0, one!.stderr);
    assert.equal(two!.code, 0, two!.stderr);
    const lines = one!.output!.split('\n');
    assert.equal(lines.length, COUNT + 1);
    assert.deepEqual(JSON.parse(lines[COUNT - 1]!).txId, COUNT);
    assert.equal(two!.output, one!.output);
    assert.equal(two!.stderr, one!.stderr);
    assert.equal(one!.stderr, `decoded ${COUNT} records\n`);
  });
}

for (const { recfm, framing } of FORMATS) {
  for (const onError of ['skip', 'null']) {
    test(`${recfm}: with --on-error ${onError}, two threads write the same records and report the same bad ones in order`, async () => {
      const input = writeFile(`bad.${recfm}`, framing, BAD);
      const [one, two] = both(input, ['--recfm', recfm, '--on-error', onError]);
      const workers = await inWorkers(input, framing, { onError: onError as 'skip' | 'null' });
      assert.deepEqual(workers, { output: one!.output, errors: one!.errors, error: undefined });
      assert.equal(one!.code, 0, one!.stderr);
      assert.equal(two!.output, one!.output);
      assert.equal(two!.errors, one!.errors);
      assert.equal(two!.stderr, one!.stderr);
      const reported = one!
        .errors!.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { record: number; field: string });
      assert.deepEqual(
        reported.map((e) => e.record),
        BAD,
      );
      assert.ok(reported.every((e) => e.field === 'TX-FEE'));
      const rows = one!.output!.trim().split('\n');
      assert.equal(rows.length, onError === 'skip' ? COUNT - BAD.length : COUNT);
    });
  }

  test(`${recfm}: with --on-error fail, two threads stop at the same first bad record as one`, async () => {
    const input = writeFile(`bad-from-9001.${recfm}`, framing, BAD.slice(1));
    const [one, two] = both(input, ['--recfm', recfm]);
    const workers = await inWorkers(input, framing);
    assert.match(workers.error!, /record 9001 at byte \d+ \(TX-FEE\)/);
    assert.ok(one!.stderr.includes(workers.error!), one!.stderr);
    // the lines of the batches before the bad record's, as on one thread
    const ids = workers.output
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { txId: number }).txId);
    assert.ok(ids.length > 0 && ids.length < 9001 && ids.every((id, i) => id === i + 1), `${ids.length} lines`);
    assert.notEqual(one!.code, 0);
    assert.equal(two!.code, one!.code);
    assert.match(one!.stderr, /record 9001 at byte \d+ \(TX-FEE\)/);
    assert.equal(two!.stderr, one!.stderr);
    assert.equal(two!.output, undefined);
  });

  test(`${recfm}: --skip and --limit across batches give the same records with two threads`, async () => {
    const input = writeFile(`good.${recfm}`, framing);
    const [one, two] = both(input, ['--recfm', recfm, '--skip', '8000', '--limit', '12345']);
    assert.equal((await inWorkers(input, framing, { skip: 8000, limit: 12345 })).output, one!.output);
    assert.equal(two!.code, 0, two!.stderr);
    assert.equal(two!.output, one!.output);
    const rows = one!.output!.trim().split('\n');
    assert.equal(rows.length, 12345);
    assert.equal(JSON.parse(rows[0]!).txId, 8001);
  });
}

for (const { recfm, framing } of FORMATS) {
  test(`${recfm}: CSV in two threads is the CSV of one, bad records reported in order`, async () => {
    const input = writeFile(`bad.${recfm}`, framing, BAD);
    const [one, two] = both(input, ['--recfm', recfm, '--format', 'csv', '--on-error', 'null']);
    assert.equal(one!.code, 0, one!.stderr);
    const lines = one!.output!.split('\r\n');
    assert.equal(lines[0], csvTable(layout).header.trimEnd());
    assert.equal(lines.length, COUNT + 2, 'the header, a row a record, then the last CRLF');
    assert.match(lines[1]!, /^1,customer 1,/);
    assert.equal(lines[BAD[0]!], ','.repeat(csvTable(layout).columns.length - 1), 'a bad record: empty cells');
    assert.equal(two!.output, one!.output);
    assert.equal(two!.errors, one!.errors);
    const workers = await inWorkers(input, framing, { format: 'csv', onError: 'null' });
    assert.equal(csvTable(layout).header + workers.output, one!.output);
    assert.equal(workers.errors, one!.errors);
  });
}

test('V: a broken RDW after the first megabyte stops two threads with the error one thread gives', async () => {
  const input = writeFile('broken.V', { recfm: 'V' });
  const bytes = readFileSync(input);
  // the RDW of the first record at or after 2,000,000 bytes: found by walking the RDWs
  let pos = 0;
  while (pos < 2_000_000) pos += bytes.readUInt16BE(pos);
  bytes[pos + 2] = 0x40;
  writeFileSync(input, bytes);
  const [one, two] = both(input, ['--recfm', 'V']);
  assert.notEqual(one!.code, 0);
  assert.match(one!.stderr, new RegExp(`at byte ${pos}: RDW x'[0-9a-f]{4}40`));
  assert.equal(two!.code, one!.code);
  assert.equal(two!.stderr, one!.stderr);
  // to standard output, the records before the broken RDW are written, the same with two threads as with one
  const [out1, out2] = [1, 2].map((threads) =>
    run(['decode', at('txn.cpy'), '--input', input, '--recfm', 'V', '--threads', String(threads), '--quiet']),
  );
  const lines = out1!.stdout.trim().split('\n');
  assert.ok(lines.length > 1000, `${lines.length} lines before the broken RDW`);
  assert.equal(JSON.parse(lines.at(-1)!).txId, lines.length);
  assert.equal(out2!.stdout, out1!.stdout);
  assert.equal(out2!.stderr, out1!.stderr);
  assert.equal(out2!.code, out1!.code);
  const workers = await inWorkers(input, { recfm: 'V' });
  assert.equal(workers.output, out1!.stdout);
  assert.ok(out1!.stderr.includes(workers.error!), out1!.stderr);
});

for (const { recfm, framing } of FORMATS) {
  test(`${recfm}: --split k/n parts, decoded one after another, are the decoded file, with 1 and 2 threads`, () => {
    const input = writeFile(`split.${recfm}`, framing, [], 3000);
    const whole = run(['decode', at('txn.cpy'), '--input', input, '--recfm', recfm, '--quiet']);
    assert.equal(whole.code, 0, whole.stderr);
    for (const [threads, counts] of [['1', [2, 7]] as const, ['2', [3]] as const]) {
      for (const n of counts) {
        let joined = '';
        for (let k = 1; k <= n; k++) {
          const part = run([
            'decode',
            at('txn.cpy'),
            '--input',
            input,
            '--recfm',
            recfm,
            '--split',
            `${k}/${n}`,
            '--threads',
            threads,
            '--quiet',
          ]);
          assert.equal(part.code, 0, part.stderr);
          assert.ok(part.stdout.length < whole.stdout.length);
          joined += part.stdout;
        }
        assert.equal(joined, whole.stdout, `${n} parts, ${threads} threads`);
      }
    }
  });
}

test('--split and --threads refuse what they cannot do', () => {
  const input = writeFile('small.F', { recfm: 'F', lrecl: layout.maxLength }, [], 10);
  assert.match(run(['decode', at('txn.cpy'), '--input', input, '--split', '3/2']).stderr, /--split must be k\/n/);
  assert.match(run(['decode', at('txn.cpy'), '--split', '1/2']).stderr, /--split needs --input FILE/);
  assert.match(run(['decode', at('txn.cpy'), '--input', input, '--threads', '0']).stderr, /--threads must be/);
  assert.match(run(['encode', at('txn.cpy'), '--output', at('x'), '--threads', '2']).stderr, /apply to decode only/);
});

test('records longer than a batch, then longer ones: each batch buffer grows to hold what is left, the lines are those of one thread', async () => {
  const { decodeInThreads } = await import('../../src/cli/dataset/parallel.ts');
  const framing: FramingOptions = { recfm: 'V' };
  const writer = new RecordWriter(framing);
  // V records of 59 to 104 bytes, cut into batches of 40: a batch grows until it holds a record and the start of
  // the next, which may be longer than a batch
  const counts = [0, 5, 9, 2, 9, 9, 1];
  const parts: Uint8Array[] = [];
  counts.forEach((n, i) => {
    const txItem = Array.from({ length: n }, (_, j) => `IT${j}`);
    writer.write(layout.encode({ txId: i + 1, txName: `r${i + 1}`, txAmount: '1.00', txFee: '0', txN: n, txItem }));
    parts.push(writer.take());
  });
  parts.push(writer.end());
  const file = at('growing.V');
  writeFileSync(file, Buffer.concat(parts));
  const expected = run(['decode', at('txn.cpy'), '--input', file, '--recfm', 'V', '--threads', '1', '--quiet']);
  assert.equal(expected.code, 0, expected.stderr);
  const decoder = await compileFromArgs(at('txn.cpy'), {});
  const setup = { file: at('txn.cpy'), args: {}, keepBytes: false, format: 'jsonl' as const, decoder, framing };
  for (const input of [undefined, { path: file, start: 0, end: Infinity }]) {
    // in workers only, and in this thread and two workers
    for (const [threads, decodeHere] of [
      [2, false],
      [3, true],
    ] as const) {
      let text = '';
      const source = (async function* () {
        yield readFileSync(file);
      })();
      const options = { ...setup, onError: 'fail' as const, threads, decodeHere, batchBytes: 40, input };
      for await (const done of decodeInThreads(source, options)) text += Buffer.from(done.text).toString('utf8');
      const how = `${input === undefined ? 'from a stream' : 'from the file'}, ${threads} threads, here: ${decodeHere}`;
      assert.equal(text, expected.stdout, how);
    }
  }
});

test('--segments, one with a copybook file of its own: JSON Lines and CSV in workers are those of one thread', async () => {
  const { decodeInThreads, noBytes } = await import('../../src/cli/dataset/parallel.ts');
  const { layoutFromArgs } = await import('../../src/cli/dataset/segments.ts');
  writeFileSync(
    at('customer.cpy'),
    '       01 CUSTOMER-REC.\n          05 SEG-ID PIC X.\n          05 NAME PIC X(20).\n',
  );
  writeFileSync(
    at('account.cpy'),
    '       01 ACCOUNT-REC.\n          05 SEG-ID PIC X.\n          05 ACCT-NO PIC 9(6).\n' +
      '          05 BALANCE PIC S9(7)V99 COMP-3.\n',
  );
  writeFileSync(
    at('bank.json'),
    JSON.stringify({ field: 'SEG-ID', segments: { C: 'CUSTOMER-REC', A: { copybook: 'account.cpy' } } }),
  );
  const args = { segments: at('bank.json'), profile: 'gnucobol' };
  const layout = await layoutFromArgs(at('customer.cpy'), args);
  const writer = new RecordWriter({ recfm: 'V' });
  const parts: Uint8Array[] = [];
  for (let i = 1; i <= 6000; i++) {
    const record =
      i % 3 === 1
        ? { customerRec: { segId: 'C', name: `customer ${i}` } }
        : { accountRec: { segId: 'A', acctNo: i, balance: `${i}.${String(i % 100).padStart(2, '0')}` } };
    writer.write(layout.encode(record));
    parts.push(writer.take());
  }
  parts.push(writer.end());
  writeFileSync(at('bank.v'), Buffer.concat(parts));
  for (const format of ['jsonl', 'csv'] as const) {
    const one = run([
      'decode',
      at('customer.cpy'),
      '--segments',
      at('bank.json'),
      '--input',
      at('bank.v'),
      '--recfm',
      'V',
      '--profile',
      'gnucobol',
      '--format',
      format,
      '--threads',
      '1',
      '--quiet',
    ]);
    assert.equal(one.code, 0, one.stderr);
    const lines = one.stdout.trim().split(/\r?\n/);
    assert.equal(lines.length, format === 'csv' ? 6001 : 6000);
    const table = format === 'csv' ? csvTable(layout) : undefined;
    const options = {
      file: at('customer.cpy'),
      args,
      keepBytes: false,
      format,
      decoder: layout,
      table,
      framing: { recfm: 'V' as const },
      onError: 'fail' as const,
      threads: 2,
      decodeHere: false,
      batchBytes: 4096,
      input: { path: at('bank.v'), start: 0, end: Infinity },
    };
    let text = table?.header ?? '';
    for await (const done of decodeInThreads(noBytes(), options)) text += Buffer.from(done.text).toString('utf8');
    assert.equal(text, one.stdout, format);
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DatasetError,
  decodeDataset,
  encodeDataset,
  RecordReader,
  RecordWriter,
  type FramingOptions,
  type RawRecord,
} from '../src/dataset/index.ts';
import { compileCopybook } from '../src/index.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** Every record the reader finds when the file arrives in chunks of `size` bytes. */
function readAll(file: Uint8Array, framing: FramingOptions, size = file.length): Array<RawRecord & { bytes: Buffer }> {
  const reader = new RecordReader(framing);
  const out: RawRecord[] = [];
  for (let at = 0; at < file.length; at += size) out.push(...reader.push(file.subarray(at, at + size)));
  reader.end();
  return out.map((r) => ({ ...r, bytes: Buffer.from(r.bytes) }));
}

function writeAll(records: Uint8Array[], framing: FramingOptions): Buffer {
  const writer = new RecordWriter(framing);
  const parts: Uint8Array[] = [];
  for (const r of records) {
    writer.write(r);
    parts.push(writer.take());
  }
  parts.push(writer.end());
  return Buffer.concat(parts);
}

function caught(f: () => unknown): DatasetError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof DatasetError, String(e));
    return e;
  }
  assert.fail('no error');
}

test('V: each record after an RDW whose length counts the RDW, in any chunking', () => {
  const file = hex('0007 0000 414243  0005 0000 44  0004 0000');
  for (const size of [1, 2, 3, 5, 100]) {
    const records = readAll(file, { recfm: 'V' }, size);
    assert.deepEqual(
      records.map((r) => [r.number, r.offset, r.bytes.toString('latin1')]),
      [
        [1, 0, 'ABC'],
        [2, 7, 'D'],
        [3, 12, ''],
      ],
      `chunks of ${size}`,
    );
  }
  assert.deepEqual(writeAll([hex('414243'), hex('44'), hex('')], { recfm: 'V' }), file);
});

test('V with little-endian lengths, as some non-IBM tools write them', () => {
  const file = hex('0700 0000 414243');
  assert.equal(readAll(file, { recfm: 'V', rdw: 'little' })[0]!.bytes.toString('latin1'), 'ABC');
  assert.deepEqual(writeAll([hex('414243')], { recfm: 'V', rdw: 'little' }), file);
  const e = caught(() => readAll(file, { recfm: 'V' }));
  assert.match(e.message, /^record 1 at byte 0: RDW x'07000000' gives a length of 1792, .*|the file ends inside/);
});

test('VB: blocks after a BDW, records filling each block; the writer closes a block at blksize', () => {
  const records = ['AAAA', 'BBBBBB', 'CC', 'DDDDDDDD'].map((s) => Buffer.from(s, 'latin1'));
  // BDW 4 + RDWs 8 + 10 = 22 bytes fit a 24-byte block; the next 6 would not
  const file = writeAll(records, { recfm: 'VB', blksize: 24 });
  assert.deepEqual(
    file,
    hex('0016 0000 0008 0000 41414141 000a 0000 424242424242' + '0016 0000 0006 0000 4343 000c 0000 4444444444444444'),
  );
  for (const size of [1, 7, 1000]) {
    const back = readAll(file, { recfm: 'VB' }, size);
    assert.deepEqual(
      back.map((r) => [r.number, r.offset, r.bytes.toString('latin1')]),
      [
        [1, 4, 'AAAA'],
        [2, 12, 'BBBBBB'],
        [3, 26, 'CC'],
        [4, 32, 'DDDDDDDD'],
      ],
    );
  }
});

test('VB: an extended BDW (high bit set, 31-bit length) is read, and written for blocks over 32767 bytes', () => {
  const big = Buffer.alloc(40000, 0x41);
  const file = writeAll([big], { recfm: 'VB', blksize: 50000 });
  assert.deepEqual(file.subarray(0, 8), hex(`80009c48 9c44 0000`));
  assert.deepEqual(readAll(file, { recfm: 'VB' }, 4096)[0]!.bytes, big);
});

test('F and FB: records of one length; a short record is padded, a long one refused', () => {
  const file = Buffer.from('ABCDEFGHI', 'latin1');
  for (const recfm of ['F', 'FB'] as const) {
    const records = readAll(file, { recfm, lrecl: 3 }, 2);
    assert.deepEqual(
      records.map((r) => r.bytes.toString('latin1')),
      ['ABC', 'DEF', 'GHI'],
    );
  }
  assert.deepEqual(writeAll([hex('41')], { recfm: 'F', lrecl: 3 }), hex('410000'));
  const e = caught(() => writeAll([hex('41'), hex('41424344')], { recfm: 'F', lrecl: 3 }));
  assert.equal(e.message, 'record 2 at byte 3: the record is 4 bytes, longer than lrecl 3');
});

test('a file that ends inside a record says where and how much is missing', () => {
  let e = caught(() => readAll(Buffer.from('ABCDEFGH', 'latin1'), { recfm: 'F', lrecl: 3 }));
  assert.equal(
    e.message,
    'record 3 at byte 6: the file ends 2 bytes into a 3-byte record: its 8 bytes are not a multiple of 3',
  );
  assert.deepEqual([e.record, e.offset], [3, 6]);
  e = caught(() => readAll(hex('0007 0000 4142'), { recfm: 'V' }));
  assert.equal(e.message, 'record 1 at byte 0: the file ends inside the record: its RDW says 7 bytes, 6 are left');
  e = caught(() => readAll(hex('000c 0000 0008 0000 4141'), { recfm: 'VB' }));
  assert.equal(
    e.message,
    'record 1 at byte 4: the file ends 2 bytes before the end of its block (its BDW says it ends at byte 12)',
  );
});

test('headers that are not headers are refused with their bytes', () => {
  let e = caught(() => readAll(Buffer.from('ABCDEFGH', 'latin1'), { recfm: 'V' }));
  assert.equal(
    e.message,
    "record 1 at byte 0: RDW x'41424344': its bytes 3 and 4 are not zero, so it is not a record header",
  );
  e = caught(() => readAll(hex('0002 0000'), { recfm: 'V' }));
  assert.match(e.message, /gives a length of 2, less than the RDW's own 4 bytes/);
  e = caught(() => readAll(hex('0009 0000 41414141 41'), { recfm: 'V', lrecl: 8 }));
  assert.match(e.message, /gives a length of 9, more than lrecl 8/);
  // a record that runs past its block's end: the V file read as VB
  e = caught(() => readAll(hex('0010 0000 0010 0000 4141414141414141 41414141'), { recfm: 'VB' }));
  assert.match(e.message, /^record 1 at byte 4: the record's RDW says 16 bytes, past the end of its block at byte 16/);
});

const CUSTOMER = `
       01  CUST.
           05  CUST-ID      PIC 9(4).
           05  CUST-NAME    PIC X(6).
           05  CUST-BAL     PIC S9(5)V99 COMP-3.
           05  CUST-N       PIC 9.
           05  CUST-TAG     PIC X(2) OCCURS 0 TO 3 DEPENDING ON CUST-N.`;

async function collect<T>(gen: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

async function* chunks(bytes: Uint8Array, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

test('decodeDataset and encodeDataset: V records sized by OCCURS DEPENDING ON, values and bytes both ways', async () => {
  const layout = compileCopybook(CUSTOMER, { profile: 'zos', encoding: 'cp037' });
  const values = [
    { custId: 1, custName: 'ADA', custBal: -12.5, custN: 0, custTag: [] },
    { custId: 2, custName: 'GRACE', custBal: 99999.99, custN: 3, custTag: ['A1', 'B2', 'C3'] },
  ];
  const file = Buffer.concat(await collect(encodeDataset(values, layout, { framing: { recfm: 'V' } })));
  assert.deepEqual([file.readUInt16BE(0), file.readUInt16BE(19)], [4 + 15, 4 + 21]);
  const batches = await collect(decodeDataset(chunks(file, 5), layout, { framing: { recfm: 'V' } }));
  assert.deepEqual(
    batches.flat().map((r) => r.value),
    values,
  );
  assert.deepEqual(
    batches.flat().map((r) => [r.number, r.offset]),
    [
      [1, 0],
      [2, 19],
    ],
  );
});

test('decodeDataset: a bad record stops with its number, offset and field, or is skipped or nulled and reported', async () => {
  const layout = compileCopybook(CUSTOMER, { profile: 'zos', encoding: 'cp037' });
  const good = layout.encode({ custId: 7, custName: 'X', custBal: 1, custN: 0, custTag: [] });
  const bad = Buffer.from(good);
  bad[10 + 3] = 0x00; // the packed field's last byte: sign nibble 0
  const file = Buffer.concat([good, bad, good]);
  const framing: FramingOptions = { recfm: 'F', lrecl: 15 };
  await assert.rejects(collect(decodeDataset(chunks(file, 64), layout, { framing })), (e: unknown) => {
    assert.ok(e instanceof DatasetError);
    assert.equal(
      e.message,
      'record 2 at byte 15 (CUST-BAL): invalid sign nibble 0 in packed decimal, at byte 28 (byte 13 of the record)',
    );
    assert.deepEqual([e.record, e.offset, e.field], [2, 15, 'CUST-BAL']);
    return true;
  });
  for (const onError of ['skip', 'null'] as const) {
    const records = (await collect(decodeDataset(chunks(file, 7), layout, { framing, onError }))).flat();
    assert.deepEqual(
      records.map((r) => [r.number, r.value === null, r.error?.field]),
      [
        [1, false, undefined],
        [2, true, 'CUST-BAL'],
        [3, false, undefined],
      ],
    );
  }
});

test('decodeDataset: skip passes over records undecoded, limit stops reading', async () => {
  const layout = compileCopybook(CUSTOMER, { profile: 'zos', encoding: 'cp037' });
  const records = [1, 2, 3, 4].map((custId) =>
    layout.encode({ custId, custName: '', custBal: 0, custN: 0, custTag: [] }),
  );
  records[0]!.fill(0xff); // a bad first record that skip never decodes
  const file = Buffer.concat(records);
  let read = 0;
  async function* counting() {
    for await (const c of chunks(file, 15)) {
      read++;
      yield c;
    }
  }
  const framing: FramingOptions = { recfm: 'F', lrecl: 15 };
  const got = (await collect(decodeDataset(counting(), layout, { framing, skip: 1, limit: 2 }))).flat();
  assert.deepEqual(
    got.map((r) => [r.number, r.value?.custId]),
    [
      [2, 2],
      [3, 3],
    ],
  );
  assert.equal(read, 3, 'the fourth record is never read');
});

test('encodeDataset: a value the record cannot hold names the record and the JSON path', async () => {
  const layout = compileCopybook(CUSTOMER, { profile: 'zos', encoding: 'cp037' });
  const values = [
    { custId: 1, custName: 'A', custBal: 0, custN: 0, custTag: [] },
    { custId: 2, custName: 'TOO LONG NAME', custBal: 0, custN: 0, custTag: [] },
  ];
  await assert.rejects(collect(encodeDataset(values, layout, { framing: { recfm: 'V' } })), (e: unknown) => {
    assert.ok(e instanceof DatasetError);
    assert.deepEqual([e.record, e.field], [2, 'custName']);
    assert.match(e.message, /^record 2 at byte \d+ \(custName\): /);
    return true;
  });
});

test('decode ignores bytes past the record only when asked: F slots hold records OCCURS DEPENDING ON shortened', async () => {
  // a table that is not last: the complex OCCURS DEPENDING ON path
  const complex = compileCopybook(
    `
       01  R.
           05  R-N      PIC 9.
           05  R-ITEM   PIC X(2) OCCURS 0 TO 3 DEPENDING ON R-N.
           05  R-END    PIC X(3).`,
    { profile: 'gnucobol' },
  );
  const simple = compileCopybook(CUSTOMER, { profile: 'gnucobol' });
  for (const [layout, value] of [
    [complex, { rN: 1, rItem: ['AB'], rEnd: 'XYZ' }],
    [simple, { custId: 1, custName: 'A', custBal: 2, custN: 1, custTag: ['T1'] }],
  ] as const) {
    const record = layout.encode(value);
    const slot = Buffer.concat([record, Buffer.from('  ')]);
    assert.throws(() => layout.decode(slot), /the record is \d+ bytes; .* makes? it/);
    assert.deepEqual(layout.decode(slot, { trailing: 'ignore' }), value);
    const file = Buffer.concat([slot, slot]);
    const framing: FramingOptions = { recfm: 'F', lrecl: slot.length };
    const got = (await collect(decodeDataset(chunks(file, 4), layout, { framing }))).flat();
    assert.deepEqual(
      got.map((r) => r.value),
      [value, value],
    );
    assert.throws(() => layout.decode(record.subarray(0, record.length - 1), { trailing: 'ignore' }), /the record is/);
  }
});

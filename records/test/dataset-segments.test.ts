/**
 * Multi-segment files: three 01 records of different lengths in a V file, the record type in a segment-id field.
 * The file is written here byte by byte (ASCII, packed decimal by hand), so decode is judged by bytes not made by
 * the encoder; encode must give them back, flat and nested.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compileSegments,
  csvTable,
  DatasetError,
  decodeDataset,
  encodeBatches,
  encodeDataset,
  nestSegments,
  parseSegments,
  SegmentsError,
  unnestSegments,
  type DecodedRecord,
} from '../src/dataset/index.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

const COPYBOOK = fixed(
  '01 CUSTOMER-REC.',
  '   05 CUST-SEG-ID PIC X.',
  '   05 CUST-ID PIC 9(4).',
  '   05 CUST-NAME PIC X(10).',
  '01 ACCOUNT-REC.',
  '   05 ACCT-SEG-ID PIC X.',
  '   05 ACCT-NO PIC X(6).',
  '   05 ACCT-BAL PIC S9(7)V99 COMP-3.',
  '01 NOTE-REC.',
  '   05 NOTE-SEG-ID PIC X.',
  '   05 NOTE-TEXT PIC X(20).',
);

const SPEC = {
  field: 'CUST-SEG-ID',
  segments: { C: 'CUSTOMER-REC', A: 'ACCOUNT-REC', N: 'NOTE-REC' },
  children: { 'ACCOUNT-REC': 'CUSTOMER-REC', 'NOTE-REC': 'ACCOUNT-REC' },
};

const rdw = (body: Buffer) => Buffer.concat([Buffer.from([0, body.length + 4, 0, 0]), body]);
const text = (s: string, n: number) => Buffer.from(s.padEnd(n, ' '), 'latin1');
const customer = (id: string, name: string) => rdw(Buffer.concat([text('C', 1), text(id, 4), text(name, 10)]));
const account = (no: string, packed: number[]) => rdw(Buffer.concat([text('A', 1), text(no, 6), Buffer.from(packed)]));
const note = (s: string) => rdw(Buffer.concat([text('N', 1), text(s, 20)]));

// C 0001 ANNA: account ACC001 123.45 with two notes, account ACC002 -5.00; C 0002 BOB alone
const FILE = Buffer.concat([
  customer('0001', 'ANNA'),
  account('ACC001', [0x00, 0x00, 0x12, 0x34, 0x5c]),
  note('first, "quoted"'),
  note('second'),
  account('ACC002', [0x00, 0x00, 0x00, 0x50, 0x0d]),
  customer('0002', 'BOB'),
]);

const FLAT = [
  { customerRec: { custSegId: 'C', custId: 1, custName: 'ANNA' } },
  { accountRec: { acctSegId: 'A', acctNo: 'ACC001', acctBal: 123.45 } },
  { noteRec: { noteSegId: 'N', noteText: 'first, "quoted"' } },
  { noteRec: { noteSegId: 'N', noteText: 'second' } },
  { accountRec: { acctSegId: 'A', acctNo: 'ACC002', acctBal: -5 } },
  { customerRec: { custSegId: 'C', custId: 2, custName: 'BOB' } },
];

const layout = compileSegments(COPYBOOK, SPEC, { profile: 'gnucobol' });

async function collect<T>(source: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of source) out.push(...batch);
  return out;
}

/** The file in chunks of 7 bytes, so records and families cross chunk boundaries. */
function* chunks(file: Buffer, size = 7) {
  for (let i = 0; i < file.length; i += size) yield file.subarray(i, i + size);
}

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

test('the layouts: records of 15, 12 and 21 bytes, the segment id at byte 0', () => {
  assert.deepEqual(
    layout.segments.map((s) => [s.record, s.key, s.layout.maxLength, s.ids]),
    [
      ['CUSTOMER-REC', 'customerRec', 15, ['C']],
      ['ACCOUNT-REC', 'accountRec', 12, ['A']],
      ['NOTE-REC', 'noteRec', 21, ['N']],
    ],
  );
  assert.deepEqual(layout.field, { name: 'CUST-SEG-ID', offset: 0, length: 1 });
});

test('decode: each record by the layout its id names, keyed by its record; encode gives the same bytes', async () => {
  const records = await collect(decodeDataset(asAsync(chunks(FILE)), layout, { framing: { recfm: 'V' } }));
  assert.deepEqual(
    records.map((r) => r.value),
    FLAT,
  );
  assert.deepEqual(
    records.map((r) => [r.number, r.offset]),
    [
      [1, 0],
      [2, 19],
      [3, 35],
      [4, 60],
      [5, 85],
      [6, 101],
    ],
  );
  const bytes = Buffer.concat(await collectChunks(encodeDataset(FLAT, layout, { framing: { recfm: 'V' } })));
  assert.deepEqual(bytes, FILE);
  const vb = Buffer.concat(await collectChunks(encodeDataset(FLAT, layout, { framing: { recfm: 'VB', blksize: 40 } })));
  const back = await collect(decodeDataset(asAsync([vb]), layout, { framing: { recfm: 'VB' } }));
  assert.deepEqual(
    back.map((r) => r.value),
    FLAT,
  );
});

async function collectChunks(source: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of source) out.push(c);
  return out;
}

test('nesting: children under the last record of their parent segment, one family at a time; and back', async () => {
  const nested = await collect(
    nestSegments(decodeDataset(asAsync(chunks(FILE, 5)), layout, { framing: { recfm: 'V' } }), layout),
  );
  assert.deepEqual(
    nested.map((r) => r.value),
    [
      {
        customerRec: {
          custSegId: 'C',
          custId: 1,
          custName: 'ANNA',
          accountRec: [
            {
              acctSegId: 'A',
              acctNo: 'ACC001',
              acctBal: 123.45,
              noteRec: [
                { noteSegId: 'N', noteText: 'first, "quoted"' },
                { noteSegId: 'N', noteText: 'second' },
              ],
            },
            { acctSegId: 'A', acctNo: 'ACC002', acctBal: -5 },
          ],
        },
      },
      { customerRec: { custSegId: 'C', custId: 2, custName: 'BOB' } },
    ],
  );
  assert.deepEqual(
    nested.map((r) => [r.number, r.offset]),
    [
      [1, 0],
      [6, 101],
    ],
  );
  const lines = asAsync([nested.map((r, i) => ({ value: JSON.parse(JSON.stringify(r.value)), line: i + 1 }))]);
  const bytes = Buffer.concat(
    await collectChunks(encodeBatches(unnestSegments(lines, layout), layout, { framing: { recfm: 'V' } })),
  );
  assert.deepEqual(bytes, FILE);
});

test('a child with no parent before it: an error naming the record, or a bad record with on-error null', async () => {
  const orphan = Buffer.concat([note('lost'), FILE]);
  const nest = (onError: 'fail' | 'null') =>
    collect(
      nestSegments(decodeDataset(asAsync([orphan]), layout, { framing: { recfm: 'V' }, onError }), layout, { onError }),
    );
  await assert.rejects(nest('fail'), (e: unknown) => {
    assert.ok(e instanceof DatasetError);
    assert.equal(e.message, 'record 1 at byte 0 (CUST-SEG-ID): a NOTE-REC record with no ACCOUNT-REC record before it');
    return true;
  });
  const got: DecodedRecord[] = await nest('null');
  assert.deepEqual(
    got.map((r) => [r.number, r.value === null]),
    [
      [1, true],
      [2, false],
      [7, false],
    ],
  );
});

test('an unknown segment id: a decode error naming the record, its offset, the field and the value', async () => {
  const bad = Buffer.concat([customer('0001', 'ANNA'), rdw(text('X', 12))]);
  await assert.rejects(collect(decodeDataset(asAsync([bad]), layout, { framing: { recfm: 'V' } })), (e: unknown) => {
    assert.ok(e instanceof DatasetError);
    assert.deepEqual([e.record, e.offset, e.field], [2, 19, 'CUST-SEG-ID']);
    assert.match(
      e.message,
      /^record 2 at byte 19 \(CUST-SEG-ID\): segment id "X" is not in the segments file \("C", "A", "N"\)/,
    );
    return true;
  });
});

test('encode refuses a value whose segment id names another record, and a value of no known record', async () => {
  const wrong = [{ accountRec: { acctSegId: 'N', acctNo: 'ACC001', acctBal: 1 } }];
  await assert.rejects(
    collectChunks(encodeDataset(wrong, layout, { framing: { recfm: 'V' } })),
    /accountRec\): its segment id CUST-SEG-ID is "N", which does not name ACCOUNT-REC \("A" do\)/,
  );
  await assert.rejects(
    collectChunks(encodeDataset([{ other: {} }], layout, { framing: { recfm: 'V' } })),
    /exactly one key of customerRec, accountRec, noteRec \(got other\)/,
  );
});

test('CSV of the flat form: each record its columns under its key', async () => {
  const table = csvTable(layout);
  assert.deepEqual(table.columns, [
    'customerRec_custSegId',
    'customerRec_custId',
    'customerRec_custName',
    'accountRec_acctSegId',
    'accountRec_acctNo',
    'accountRec_acctBal',
    'noteRec_noteSegId',
    'noteRec_noteText',
  ]);
  assert.equal(table.row(FLAT[1]!), ',,,A,ACC001,123.45,,\r\n');
});

test('segments files: one-line errors naming the key', () => {
  const bad: Array<[unknown, RegExp]> = [
    [[], /^segments "\(file\)": a segments file is a JSON object/],
    [{ ...SPEC, extra: 1 }, /^segments "extra": not a key of a segments file/],
    [{ segments: SPEC.segments }, /^segments "field": the COBOL name of the segment-id field/],
    [{ field: 'X', segments: {} }, /^segments "segments": an object of segment-id value/],
    [{ field: 'X', segments: { C: 3 } }, /^segments "segments.C": the COBOL name of a 01 record/],
    [
      { ...SPEC, children: { 'NOPE-REC': 'CUSTOMER-REC' } },
      /^segments "children.NOPE-REC": NOPE-REC is not a record named in "segments"/,
    ],
    [
      { ...SPEC, children: { 'ACCOUNT-REC': 'NOTE-REC', 'NOTE-REC': 'ACCOUNT-REC' } },
      /^segments "children.ACCOUNT-REC": a cycle: ACCOUNT-REC → NOTE-REC → ACCOUNT-REC/,
    ],
  ];
  for (const [spec, message] of bad) {
    assert.throws(
      () => parseSegments(spec),
      (e: unknown) => e instanceof SegmentsError && message.test(e.message),
    );
  }
  assert.throws(
    () => compileSegments(COPYBOOK, { ...SPEC, field: 'CUST-NAMEX' }),
    /^SegmentsError: segments "field": CUSTOMER-REC has no item CUST-NAMEX/,
  );
  assert.throws(
    () =>
      compileSegments(COPYBOOK, {
        ...SPEC,
        field: 'CUST-ID',
        segments: { C: 'NOTE-REC', A: 'CUSTOMER-REC' },
        children: {},
      }),
    /NOTE-REC has no item CUST-ID/,
  );
  assert.throws(() => compileSegments(COPYBOOK, { ...SPEC, segments: { ...SPEC.segments, Z: 'ZED-REC' } }), /ZED-REC/);
  // a record with an item of the field's name at other bytes would be told apart by bytes it does not read as its id
  const moved = `${COPYBOOK}\n${fixed('01 MOVED-REC.', '   05 FILLER PIC X.', '   05 CUST-SEG-ID PIC X.')}`;
  assert.throws(
    () => compileSegments(moved, { field: 'CUST-SEG-ID', segments: { C: 'CUSTOMER-REC', M: 'MOVED-REC' } }),
    /^SegmentsError: segments "segments.M": CUST-SEG-ID is at bytes 1–1 of MOVED-REC, not at bytes 0–0 as in CUSTOMER-REC$/,
  );
  assert.throws(
    () => compileSegments(COPYBOOK, { field: 'CUST-NAME', segments: { C: 'CUSTOMER-REC', A: 'ACCOUNT-REC' } }),
    /^SegmentsError: segments "segments.A": ACCOUNT-REC is shorter than CUST-NAME's bytes 5–14$/,
  );
});

test('an EBCDIC file: the segment id is read in the layout code page (cp1140: C is X"C3")', () => {
  const ebcdic = compileSegments(COPYBOOK, SPEC);
  const name = [0xc1, 0xd5, 0xd5, 0xc1, ...Array<number>(6).fill(0x40)];
  const bytes = Buffer.from([0xc3, 0xf0, 0xf0, 0xf0, 0xf1, ...name]);
  assert.deepEqual(ebcdic.decode(bytes), { customerRec: { custSegId: 'C', custId: 1, custName: 'ANNA' } });
  assert.deepEqual(Buffer.from(ebcdic.encode(ebcdic.decode(bytes))), bytes);
  // an ASCII C in an EBCDIC file is another letter, and no segment's id
  assert.throws(
    () => ebcdic.decode(Buffer.from([0x43, ...bytes.subarray(1)])),
    /segment id "ä" is not in the segments file/,
  );
});

test('an FB file of 21-byte slots: each segment decodes from the start of its slot, and encodes back', async () => {
  const flat = FLAT.slice(0, 3);
  const fb = Buffer.concat(await collectChunks(encodeDataset(flat, layout, { framing: { recfm: 'FB', lrecl: 21 } })));
  assert.equal(fb.length, 63);
  const back = await collect(decodeDataset(asAsync([fb]), layout, { framing: { recfm: 'FB', lrecl: 21 } }));
  assert.deepEqual(
    back.map((r) => r.value),
    flat,
  );
});

// A common header, then the body each segment type redefines (an IMS or VSAM extract, Cobrix's
// redefine-segment-id-map); a second 01 record shows that a view of one of several records is named VIEW OF RECORD.
const VIEWS = fixed(
  '01 SEG-REC.',
  '   05 SEG-HDR.',
  '      10 SEG-ID PIC X.',
  '      10 SEG-KEY PIC 9(4).',
  '   05 SEG-BODY PIC X(12).',
  '   05 CUST-BODY REDEFINES SEG-BODY.',
  '      10 CUST-NAME PIC X(10).',
  '      10 CUST-AGE PIC 99.',
  '   05 ACCT-BODY REDEFINES SEG-BODY.',
  '      10 ACCT-BAL PIC S9(9)V99 COMP-3.',
  '      10 ACCT-TYPE PIC X(6).',
  '01 TRAILER-REC.',
  '   05 TRL-ID PIC X.',
  '   05 TRL-COUNT PIC 9(4).',
);
const VIEW_SPEC = {
  field: 'SEG-ID',
  segments: { C: 'CUST-BODY OF SEG-REC', A: 'ACCT-BODY of seg-rec', T: 'TRAILER-REC' },
};
const VIEW_FILE = Buffer.concat([
  rdw(Buffer.from('C0001ANNA      42', 'latin1')),
  rdw(Buffer.concat([text('A0001', 5), Buffer.from([0, 0, 0, 1, 0x23, 0x4d]), text('SAVE', 6)])),
  rdw(Buffer.from('C0002BOB       07', 'latin1')),
  rdw(Buffer.from('T0003', 'latin1')),
]);
const VIEW_FLAT = [
  { custBody: { segHdr: { segId: 'C', segKey: 1 }, custBody: { custName: 'ANNA', custAge: 42 } } },
  { acctBody: { segHdr: { segId: 'A', segKey: 1 }, acctBody: { acctBal: -12.34, acctType: 'SAVE' } } },
  { custBody: { segHdr: { segId: 'C', segKey: 2 }, custBody: { custName: 'BOB', custAge: 7 } } },
  { trailerRec: { trlId: 'T', trlCount: 3 } },
];

test('segments that are REDEFINES views: the header and the chosen view only; encode gives the same bytes', async () => {
  const views = compileSegments(VIEWS, VIEW_SPEC, { profile: 'gnucobol' });
  assert.deepEqual(
    views.segments.map((s) => [s.record, s.key, s.view?.record, s.layout.maxLength]),
    [
      ['CUST-BODY OF SEG-REC', 'custBody', 'SEG-REC', 17],
      ['ACCT-BODY OF SEG-REC', 'acctBody', 'SEG-REC', 17],
      ['TRAILER-REC', 'trailerRec', undefined, 5],
    ],
  );
  const records = await collect(decodeDataset(asAsync(chunks(VIEW_FILE)), views, { framing: { recfm: 'V' } }));
  assert.deepEqual(
    records.map((r) => r.value),
    VIEW_FLAT,
  );
  const bytes = Buffer.concat(await collectChunks(encodeDataset(VIEW_FLAT, views, { framing: { recfm: 'V' } })));
  assert.deepEqual(bytes, VIEW_FILE);
  // a view's key with another view inside is refused by the id it writes, never written as the wrong segment
  const crossed = [{ custBody: { segHdr: { segId: 'A', segKey: 1 }, acctBody: { acctBal: 1, acctType: 'X' } } }];
  await assert.rejects(
    collectChunks(encodeDataset(crossed, views, { framing: { recfm: 'V' } })),
    /its segment id SEG-ID is "A", which does not name CUST-BODY OF SEG-REC \("C" do\)/,
  );
  assert.deepEqual(csvTable(views).columns.slice(0, 4), [
    'custBody_segHdr_segId',
    'custBody_segHdr_segKey',
    'custBody_custBody_custName',
    'custBody_custBody_custAge',
  ]);
});

test('views nest as records do, and a one-record copybook names its views unqualified', async () => {
  const one = VIEWS.split('\n').slice(0, 11).join('\n');
  const spec = {
    field: 'SEG-ID',
    segments: { C: 'CUST-BODY', A: 'ACCT-BODY' },
    children: { 'ACCT-BODY': 'CUST-BODY' },
  };
  const views = compileSegments(one, spec, { profile: 'gnucobol' });
  const file = VIEW_FILE.subarray(0, VIEW_FILE.length - 9);
  const nested = await collect(nestSegments(decodeDataset(asAsync([file]), views, { framing: { recfm: 'V' } }), views));
  assert.deepEqual(
    nested.map((r) => r.value),
    [
      { custBody: { ...VIEW_FLAT[0]!.custBody, acctBody: [VIEW_FLAT[1]!.acctBody] } },
      { custBody: VIEW_FLAT[2]!.custBody },
    ],
  );
  const lines = asAsync([nested.map((r, i) => ({ value: JSON.parse(JSON.stringify(r.value)), line: i + 1 }))]);
  const bytes = Buffer.concat(
    await collectChunks(encodeBatches(unnestSegments(lines, views), views, { framing: { recfm: 'V' } })),
  );
  assert.deepEqual(bytes, file);
});

test('view targets that do not fit: one-line errors', () => {
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ C: 'CUST-BODY' }, /^segments "segments.C": no record named CUST-BODY .*"VIEW OF RECORD"/],
    [{ C: 'CUST-NAME OF SEG-REC' }, /^segments "segments.C": CUST-NAME OF SEG-REC is neither a 01 record nor an item/],
    [{ C: 'NOPE OF SEG-REC' }, /^segments "segments.C": SEG-REC has no item NOPE/],
  ];
  for (const [segments, message] of bad) {
    assert.throws(
      () => compileSegments(VIEWS, { field: 'SEG-ID', segments }),
      (e: unknown) => e instanceof SegmentsError && message.test(e.message),
      JSON.stringify(segments),
    );
  }
  assert.throws(
    () => compileSegments(VIEWS, { field: 'SEG-ID', segments: { C: 'CUST-BODY OF NO-REC' } }),
    /no record named NO-REC/,
  );
});

test('encode writes the segment id a JSON leaves out when one id names its segment, and only then', async () => {
  const views = compileSegments(VIEWS, VIEW_SPEC, { profile: 'gnucobol' });
  const bare = [
    { custBody: { segHdr: { segKey: 1 }, custBody: { custName: 'ANNA', custAge: 42 } } },
    { acctBody: { segHdr: { segKey: 1 }, acctBody: { acctBal: -12.34, acctType: 'SAVE' } } },
  ];
  const bytes = Buffer.concat(await collectChunks(encodeDataset(bare, views, { framing: { recfm: 'V' } })));
  assert.deepEqual(bytes, VIEW_FILE.subarray(0, 21 + 21));
  // the 01-record file: ACCOUNT-REC's id item is ACCT-SEG-ID, at the segment id's bytes
  const flat = Buffer.concat(
    await collectChunks(
      encodeDataset([{ accountRec: { acctNo: 'ACC001', acctBal: 123.45 } }], layout, { framing: { recfm: 'V' } }),
    ),
  );
  assert.deepEqual(flat, account('ACC001', [0x00, 0x00, 0x12, 0x34, 0x5c]));
  // an id given, even blank, is the JSON's to say; two ids of one segment leave the choice to the JSON
  await assert.rejects(
    collectChunks(
      encodeDataset([{ accountRec: { acctSegId: '', acctNo: 'ACC001', acctBal: 1 } }], layout, {
        framing: { recfm: 'V' },
      }),
    ),
    /its segment id CUST-SEG-ID is "", which does not name ACCOUNT-REC/,
  );
  const twice = compileSegments(COPYBOOK, {
    field: 'CUST-SEG-ID',
    segments: { C: 'CUSTOMER-REC', A: 'ACCOUNT-REC', B: 'ACCOUNT-REC' },
  });
  assert.throws(
    () => twice.encode({ accountRec: { acctNo: 'X', acctBal: 1 } }),
    /is "", which does not name ACCOUNT-REC \("A", "B" do\)/,
  );
});

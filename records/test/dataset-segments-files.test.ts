/**
 * Segments laid out by copybook files of their own (`{"copybook": "account.cpy"}`), as teams that keep one copybook
 * per record type have them: compiled with the options the command's copybook is, decoded from bytes written here
 * by hand, encoded back to the same bytes, and each way a file can fail its segment named by its key.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compileSegments,
  decodeDataset,
  encodeBatches,
  encodeDataset,
  nestSegments,
  parseSegments,
  SegmentsError,
  unnestSegments,
} from '../src/dataset/index.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

const CUSTOMER = fixed(
  '01 CUSTOMER-REC.',
  '   05 SEG-ID PIC X.',
  '   05 CUST-ID PIC 9(4).',
  '   05 CUST-NAME PIC X(10).',
);
const ACCOUNT = fixed(
  '01 ACCOUNT-REC.',
  '   05 SEG-ID PIC X.',
  '   05 ACCT-NO PIC X(6).',
  '   05 ACCT-BAL PIC S9(7)V99 COMP-3.',
);
const COPYBOOKS = { 'customer.cpy': CUSTOMER, 'cpy/account.cpy': ACCOUNT };
const SPEC = {
  field: 'SEG-ID',
  segments: { C: { copybook: 'customer.cpy' }, A: { copybook: 'cpy/account.cpy', record: 'account-rec' } },
  children: { 'ACCOUNT-REC': 'CUSTOMER-REC' },
};

const rdw = (body: Buffer) => Buffer.concat([Buffer.from([0, body.length + 4, 0, 0]), body]);
const text = (s: string, n: number) => Buffer.from(s.padEnd(n, ' '), 'latin1');
const customer = (id: string, name: string) => rdw(Buffer.concat([text('C', 1), text(id, 4), text(name, 10)]));
const account = (no: string, packed: number[]) => rdw(Buffer.concat([text('A', 1), text(no, 6), Buffer.from(packed)]));
const FILE = Buffer.concat([
  customer('0001', 'ANNA'),
  account('ACC001', [0x00, 0x00, 0x12, 0x34, 0x5c]),
  account('ACC002', [0x00, 0x00, 0x00, 0x50, 0x0d]),
  customer('0002', 'BOB'),
]);
const NESTED = [
  {
    customerRec: {
      segId: 'C',
      custId: 1,
      custName: 'ANNA',
      accountRec: [
        { segId: 'A', acctNo: 'ACC001', acctBal: 123.45 },
        { segId: 'A', acctNo: 'ACC002', acctBal: -5 },
      ],
    },
  },
  { customerRec: { segId: 'C', custId: 2, custName: 'BOB' } },
];

async function collect<T>(source: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of source) out.push(...batch);
  return out;
}
async function* asAsync<T>(items: Iterable<T>) {
  yield* items;
}
async function bytesOf(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const out: Uint8Array[] = [];
  for await (const chunk of source) out.push(chunk);
  return Buffer.concat(out);
}

test("two copybook files, no copybook of the command: decode nests by the files' records, encode gives the bytes", async () => {
  const layout = compileSegments(undefined, SPEC, { profile: 'gnucobol', copybooks: COPYBOOKS });
  assert.deepEqual(
    layout.segments.map((s) => [s.record, s.copybook, s.key, s.ids, s.parent?.record]),
    [
      ['CUSTOMER-REC', 'customer.cpy', 'customerRec', ['C'], undefined],
      ['ACCOUNT-REC', 'cpy/account.cpy', 'accountRec', ['A'], 'CUSTOMER-REC'],
    ],
  );
  const flat = decodeDataset(asAsync([FILE]), layout, { framing: { recfm: 'V' } });
  const nested = await collect(nestSegments(flat, layout));
  assert.deepEqual(
    nested.map((r) => r.value),
    NESTED,
  );
  const lines = asAsync([NESTED.map((value, i) => ({ value: structuredClone(value), line: i + 1 }))]);
  const bytes = await bytesOf(encodeBatches(unnestSegments(lines, layout), layout, { framing: { recfm: 'V' } }));
  assert.deepEqual(bytes, FILE);
});

test("a copybook file next to the command's records, and a REDEFINES view in a file", async () => {
  const policy = fixed(
    '01 POLICY-REC.',
    '   05 SEG-ID PIC X.',
    '   05 PS-BODY PIC X(14).',
    '   05 PS-HOLDER REDEFINES PS-BODY.',
    '      10 HOLDER-NAME PIC X(14).',
    '   05 PS-COVER REDEFINES PS-BODY.',
    '      10 COVER-CODE PIC X(4).',
  );
  const spec = {
    field: 'SEG-ID',
    segments: {
      C: 'CUSTOMER-REC',
      H: { copybook: 'policy.cpy', view: 'ps-holder' },
      P: { copybook: 'policy.cpy', record: 'POLICY-REC', view: 'PS-COVER' },
    },
    children: { 'PS-HOLDER': 'CUSTOMER-REC' },
  };
  const layout = compileSegments(CUSTOMER, spec, { profile: 'gnucobol', copybooks: { 'policy.cpy': policy } });
  assert.deepEqual(
    layout.segments.map((s) => [s.record, s.key, s.view?.record, s.parent?.record]),
    [
      ['CUSTOMER-REC', 'customerRec', undefined, undefined],
      ['PS-HOLDER', 'psHolder', 'POLICY-REC', 'CUSTOMER-REC'],
      ['PS-COVER OF POLICY-REC', 'psCover', 'POLICY-REC', undefined],
    ],
  );
  const file = Buffer.concat([customer('0001', 'ANNA'), rdw(text('HANNA K', 15)), rdw(text('PFIRE', 15))]);
  const records = await collect(decodeDataset(asAsync([file]), layout, { framing: { recfm: 'V' } }));
  const values = records.map((r) => r.value);
  assert.deepEqual(values, [
    { customerRec: { segId: 'C', custId: 1, custName: 'ANNA' } },
    { psHolder: { segId: 'H', psHolder: { holderName: 'ANNA K' } } },
    { psCover: { segId: 'P', psCover: { coverCode: 'FIRE' } } },
  ]);
  assert.deepEqual(await bytesOf(encodeDataset(values, layout, { framing: { recfm: 'V' } })), file);
});

test("a copybook file is compiled with the command's options: EBCDIC by default, its packed decimal read as such", () => {
  const layout = compileSegments(undefined, SPEC, { copybooks: COPYBOOKS });
  // A ACC001 in cp1140, then +123.45 packed
  const bytes = Buffer.from([0xc1, 0xc1, 0xc3, 0xc3, 0xf0, 0xf0, 0xf1, 0x00, 0x00, 0x12, 0x34, 0x5c]);
  assert.deepEqual(layout.decode(bytes), { accountRec: { segId: 'A', acctNo: 'ACC001', acctBal: 123.45 } });
  assert.deepEqual(Buffer.from(layout.encode(layout.decode(bytes))), bytes);
  assert.equal(layout.segments[1]!.layout.profile.charset, 'cp1140');
});

test("a segment's copybook that does not fit: an error under its key", () => {
  const bad: Array<[unknown, Record<string, string>, RegExp]> = [
    [
      { C: { copybook: 'customer.cpy' }, A: { copybook: 'nope.cpy' } },
      {},
      /^segments "segments.A": copybook nope.cpy: its text is not in the copybooks option$/,
    ],
    [
      { C: { copybook: 'customer.cpy' }, A: { copybook: 'bad.cpy' } },
      { 'bad.cpy': fixed('01 BAD-REC.', '   05 X PIC QQ.') },
      /^segments "segments.A": copybook bad.cpy: bad.cpy:2:/,
    ],
    [
      { C: { copybook: 'customer.cpy' }, A: { copybook: 'cpy/account.cpy', record: 'ACCT-REC' } },
      {},
      /^segments "segments.A": cpy\/account.cpy has no record named ACCT-REC \(records: ACCOUNT-REC\)$/,
    ],
    [
      { C: { copybook: 'customer.cpy' }, A: { copybook: 'both.cpy' } },
      { 'both.cpy': `${CUSTOMER}\n${ACCOUNT}` },
      /^segments "segments.A": both.cpy declares several records \(CUSTOMER-REC, ACCOUNT-REC\): name one with "record"$/,
    ],
    [
      { C: { copybook: 'customer.cpy' }, A: { copybook: 'moved.cpy' } },
      { 'moved.cpy': fixed('01 MOVED-REC.', '   05 FILLER PIC X.', '   05 SEG-ID PIC X.') },
      /^segments "segments.A": SEG-ID is at bytes 1–1 of MOVED-REC \(moved.cpy\), not at bytes 0–0 as in CUSTOMER-REC$/,
    ],
    [
      { C: { copybook: 'cpy/account.cpy' }, A: { copybook: 'customer.cpy', view: 'CUST-NAME' } },
      {},
      /^segments "segments.A": CUST-NAME in customer.cpy is neither a 01 record nor an item that REDEFINES/,
    ],
    [
      { C: { copybook: 'customer.cpy' }, A: { copybook: 'cpy/account.cpy' } },
      { 'cpy/account.cpy': fixed('01 CUSTOMER-REC.', '   05 SEG-ID PIC X.', '   05 CUST-ID PIC 9(4).') },
      /^segments "segments.A": the segment of "C" is named CUSTOMER-REC too: children and the JSON could not tell them apart \(cpy\/account.cpy\)$/,
    ],
  ];
  for (const [segments, more, message] of bad) {
    assert.throws(
      () => compileSegments(undefined, { field: 'SEG-ID', segments }, { copybooks: { ...COPYBOOKS, ...more } }),
      (e: unknown) => e instanceof SegmentsError && message.test(e.message),
      JSON.stringify(segments),
    );
  }
  assert.throws(
    () => compileSegments(undefined, { ...SPEC, field: 'CUST-NAME', children: {} }, { copybooks: COPYBOOKS }),
    /^SegmentsError: segments "segments.A": ACCOUNT-REC \(cpy\/account.cpy\) is shorter than CUST-NAME's bytes 5–14$/,
  );
  // the first segment's file holds the field, and children name a file's record once it is compiled
  assert.throws(
    () => compileSegments(undefined, { ...SPEC, field: 'CUST-NO' }, { copybooks: COPYBOOKS }),
    /^SegmentsError: segments "field": CUSTOMER-REC \(customer.cpy\) has no item CUST-NO$/,
  );
  assert.throws(
    () => compileSegments(undefined, { ...SPEC, children: { 'ACCT-REC': 'CUSTOMER-REC' } }, { copybooks: COPYBOOKS }),
    /^SegmentsError: segments "children.ACCT-REC": ACCT-REC is not a record named in "segments"$/,
  );
  assert.throws(
    () => compileSegments(undefined, { field: 'SEG-ID', segments: { C: 'CUSTOMER-REC' } }),
    /^SegmentsError: segments "segments": a segment names a record of the copybook, and no copybook text is given$/,
  );
});

test("the shape of a segment's copybook in the segments file", () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ copybook: '' }, /^segments "segments.A": "copybook" is the copybook file that lays out the segment, a string$/],
    [{ record: 'ACCOUNT-REC' }, /^segments "segments.A": "copybook" is the copybook file/],
    [
      { copybook: 'a.cpy', recrd: 'X' },
      /^segments "segments.A": "recrd" is not a key of a segment's copybook \(copybook, record, view\)$/,
    ],
    [{ copybook: 'a.cpy', view: 3 }, /^segments "segments.A": "view" is a COBOL name, a string$/],
    [{ copybook: 'a.cpy', record: 'X OF Y' }, /^segments "segments.A": "record" names a 01 record, unqualified$/],
    [['a.cpy'], /^segments "segments.A": the COBOL name of a 01 record or a REDEFINES view, or \{"copybook"/],
  ];
  for (const [value, message] of bad) {
    assert.throws(
      () => parseSegments({ field: 'SEG-ID', segments: { C: 'CUSTOMER-REC', A: value } }),
      (e: unknown) => e instanceof SegmentsError && message.test(e.message),
      JSON.stringify(value),
    );
  }
  // names are COBOL names in any case; the file's name is kept as written
  assert.deepEqual(
    parseSegments({
      field: 'seg-id',
      segments: { A: { copybook: ' Acct.cpy ', record: 'acct-rec', view: 'body in acct-rec' } },
    }).segments,
    { A: { copybook: 'Acct.cpy', record: 'ACCT-REC', view: 'BODY OF ACCT-REC' } },
  );
  // a child named by a file's record is checked once the file is compiled; names known before are checked now
  assert.throws(
    () =>
      parseSegments({
        field: 'SEG-ID',
        segments: { C: 'CUSTOMER-REC', A: { copybook: 'a.cpy', record: 'ACCOUNT-REC' } },
        children: { 'NOTE-REC': 'CUSTOMER-REC' },
      }),
    /^SegmentsError: segments "children.NOTE-REC": NOTE-REC is not a record named in "segments"$/,
  );
});

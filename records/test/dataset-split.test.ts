import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeDataset,
  filePart,
  rdwLength,
  RecordWriter,
  syncAt,
  type DecodedRecord,
  type FramingOptions,
} from '../src/dataset/index.ts';
import { compileCopybook } from '../src/index.ts';

// the data field holds bytes that read as a chain of two RDWs (lengths 10 and 20) inside every record
const layout = compileCopybook(
  [
    '       01  R.',
    '           05  R-KEY    PIC 9(4).',
    '           05  R-N      PIC 9.',
    '           05  R-DATA   PIC X(40).',
    '           05  R-ITEM   PIC X(5) OCCURS 0 TO 4 DEPENDING ON R-N.',
  ].join('\n'),
);

const ebcdicDigits = (n: number, width: number) => [...String(n).padStart(width, '0')].map((c) => 0xf0 + Number(c));

/**
 * Record `i`: 45 to 65 bytes (65 in a fixed-length file); its data hold a fake RDW 3 bytes in, whose chain goes on
 * for one more.
 */
function record(i: number, fixed: boolean): Uint8Array {
  const n = fixed ? 4 : i % 5;
  const data = new Uint8Array(40).fill(0x40);
  data.set([0x00, 0x0a, 0x00, 0x00], 3);
  data.set([0x00, 0x14, 0x00, 0x00], 13);
  data.set([0xc1, 0xc1, 0xc1, 0xc1], 33);
  const items = new Uint8Array(5 * n).fill(0xc2 + (i % 7));
  return Uint8Array.from([...ebcdicDigits(i % 10000, 4), 0xf0 + n, ...data, ...items]);
}

function file(count: number, framing: FramingOptions): Uint8Array {
  const writer = new RecordWriter(framing);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    writer.write(record(i, framing.lrecl === layout.maxLength));
    parts.push(writer.take());
  }
  parts.push(writer.end());
  return Buffer.concat(parts);
}

const readAtOf = (bytes: Uint8Array) => async (position: number, length: number) =>
  bytes.subarray(position, position + length);

async function decodeAll(
  bytes: Uint8Array,
  framing: FramingOptions,
  start?: { number: number; offset: number },
): Promise<DecodedRecord[]> {
  const out: DecodedRecord[] = [];
  async function* source() {
    // small chunks, so that records cross chunk boundaries as in a file read
    for (let at = 0; at < bytes.length; at += 100) yield bytes.subarray(at, at + 100);
  }
  for await (const batch of decodeDataset(source(), layout, { framing, start })) out.push(...batch);
  return out;
}

const FORMATS: Array<{ name: string; framing: FramingOptions }> = [
  { name: 'F', framing: { recfm: 'F', lrecl: layout.maxLength } },
  { name: 'FB', framing: { recfm: 'FB', lrecl: layout.maxLength } },
  { name: 'V', framing: { recfm: 'V' } },
  { name: 'VB', framing: { recfm: 'VB', blksize: 300 } },
  { name: 'V little-endian', framing: { recfm: 'V', rdw: 'little' } },
];

for (const { name, framing } of FORMATS) {
  test(`${name}: the decoded parts 1..n, one after another, are the decoded file, for n from 1 to beyond the record count`, async () => {
    const count = 57;
    const bytes = file(count, framing);
    const whole = await decodeAll(bytes, framing);
    assert.equal(whole.length, count);
    for (const n of [1, 2, 3, 4, 7, 16, count, count + 5]) {
      const values: unknown[] = [];
      const offsets: number[] = [];
      let previousEnd = 0;
      for (let k = 1; k <= n; k++) {
        const part = await filePart(readAtOf(bytes), bytes.length, framing, k, n);
        assert.equal(part.start, previousEnd, `part ${k}/${n} starts where part ${k - 1} ends`);
        previousEnd = part.end;
        const records = await decodeAll(bytes.subarray(part.start, part.end), framing, {
          number: part.number,
          offset: part.start,
        });
        if (framing.recfm === 'F' || framing.recfm === 'FB') {
          assert.deepEqual(
            records.map((r) => r.number),
            whole.filter((w) => w.offset >= part.start && w.offset < part.end).map((w) => w.number),
          );
        } else {
          assert.deepEqual(
            records.map((r) => r.number),
            records.map((_, i) => i + 1),
            'V/VB records count from 1 in the part',
          );
        }
        values.push(...records.map((r) => r.value));
        offsets.push(...records.map((r) => r.offset));
      }
      assert.equal(previousEnd, bytes.length);
      assert.deepEqual(
        values,
        whole.map((w) => w.value),
        `n = ${n}`,
      );
      assert.deepEqual(
        offsets,
        whole.map((w) => w.offset),
        `n = ${n}`,
      );
    }
  });
}

test('V: a scan that starts inside a record passes over RDW-like bytes in its data to the next true RDW', async () => {
  const framing: FramingOptions = { recfm: 'V' };
  const bytes = file(40, framing);
  const whole = await decodeAll(bytes, framing);
  const third = whole[2]!.offset;
  const fourth = whole[3]!.offset;
  // the trap is real: 8 bytes into the third record's data a plausible RDW starts, and the one it points at too
  const fake = third + 4 + 5 + 3;
  assert.equal(rdwLength(bytes, fake, framing), 10);
  assert.equal(rdwLength(bytes, fake + 10, framing), 20);
  for (let from = third + 1; from <= fourth; from++) {
    assert.equal(await syncAt(readAtOf(bytes), bytes.length, framing, from), fourth, `from byte ${from}`);
  }
});

test('V: bytes with no record header chain are refused, not taken for a part start', async () => {
  const framing: FramingOptions = { recfm: 'V', lrecl: 200 };
  const bytes = new Uint8Array(2000).fill(0x40);
  await assert.rejects(filePart(readAtOf(bytes), bytes.length, framing, 2, 2), (e: Error) => {
    assert.match(e.message, /^record 0 at byte 1000: no RDW starting a chain of records in the 204 bytes from here/);
    return true;
  });
});

test('a part is k/n with 1 ≤ k ≤ n', async () => {
  const bytes = file(3, { recfm: 'V' });
  await assert.rejects(filePart(readAtOf(bytes), bytes.length, { recfm: 'V' }, 3, 2), RangeError);
  await assert.rejects(filePart(readAtOf(bytes), bytes.length, { recfm: 'V' }, 0, 2), RangeError);
});

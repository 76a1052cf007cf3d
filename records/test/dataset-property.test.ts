/**
 * Property-based tests of the data set reader and writer: random copybooks under every profile (the
 * arbitraries of property.test.ts), random records of each, framed as F, FB, V or VB with RecordWriter, then
 * read back with decodeDataset from chunks of random sizes and written again with encodeDataset: the values
 * come back, and the bytes are the same. The file is built here from the RDW/BDW rules, not by the code
 * under test, so that the properties can disagree with it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodeDataset, encodeDataset, RecordReader, RecordWriter, type FramingOptions } from '../src/dataset/index.ts';
import { layoutCaseArb, valueArb, type LayoutCase } from './arbitraries.ts';

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

interface FileCase {
  layoutCase: LayoutCase;
  records: Array<Record<string, unknown>>;
  framing: FramingOptions;
  /** Sizes the file is cut into, in turn. */
  cuts: number[];
}

const fileCaseArb: fc.Arbitrary<FileCase> = layoutCaseArb.chain((layoutCase) => {
  const { layout } = layoutCase;
  // a fixed format needs records of one length: a layout with OCCURS DEPENDING ON goes in V or VB
  const fixedOk = layout.minLength === layout.maxLength;
  const framing: fc.Arbitrary<FramingOptions> = fc.oneof(
    ...(fixedOk
      ? [
          fc.constant<FramingOptions>({ recfm: 'F', lrecl: layout.maxLength }),
          fc.constant<FramingOptions>({ recfm: 'FB', lrecl: layout.maxLength }),
        ]
      : []),
    fc.constantFrom<'big' | 'little'>('big', 'little').map((rdw): FramingOptions => ({ recfm: 'V', rdw })),
    fc
      .tuple(fc.constantFrom<'big' | 'little'>('big', 'little'), fc.integer({ min: 0, max: 3 * layout.maxLength }))
      // a block holds its BDW and at least one record with its RDW
      // (under 32760: a longer block takes the extended BDW, which fileOf does not write)
      .map(([rdw, room]): FramingOptions => ({
        recfm: 'VB',
        rdw,
        blksize: Math.min(8 + layout.maxLength + room, 32760),
      })),
  );
  return fc.record({
    layoutCase: fc.constant(layoutCase),
    records: fc.array(valueArb(layout), { maxLength: 12 }),
    framing,
    cuts: fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 5 }),
  });
});

const describeCase = (c: FileCase) =>
  `${String(c.layoutCase)}framing: ${JSON.stringify(c.framing)}\ncuts: ${JSON.stringify(c.cuts)}\nrecords: ${JSON.stringify(c.records)}\n`;

async function* cut(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

function word(length: number, order: 'big' | 'little' | undefined): Buffer {
  const w = Buffer.alloc(4);
  if (order === 'little') w.writeUInt16LE(length);
  else w.writeUInt16BE(length);
  return w;
}

/** The file by the rules: F/FB records one after another; V an RDW (length with its 4 bytes) per record; VB blocks. */
function fileOf(records: Buffer[], framing: FramingOptions): Buffer {
  if (framing.recfm === 'F' || framing.recfm === 'FB') return Buffer.concat(records);
  const withRdw = records.map((r) => Buffer.concat([word(r.length + 4, framing.rdw), r]));
  if (framing.recfm === 'V') return Buffer.concat(withRdw);
  const blocks: Buffer[] = [];
  let block: Buffer[] = [];
  let size = 4;
  const flush = () => {
    if (block.length === 0) return;
    blocks.push(word(size, framing.rdw), ...block);
    block = [];
    size = 4;
  };
  for (const r of withRdw) {
    if (size + r.length > framing.blksize!) flush();
    block.push(r);
    size += r.length;
  }
  flush();
  return Buffer.concat(blocks);
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const p of source) parts.push(p);
  return Buffer.concat(parts);
}

test('property: records → F/FB/V/VB file → decodeDataset gives the records → encodeDataset gives the same bytes', async () => {
  await fc.assert(
    fc.asyncProperty(
      fileCaseArb.map((c) => Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) })),
      async ({ layoutCase: { layout }, records, framing, cuts }) => {
        const encoded = records.map((r) => layout.encode(r));
        const file = fileOf(encoded, framing);
        const values: unknown[] = [];
        const numbers: number[] = [];
        for await (const batch of decodeDataset(cut(file, cuts), layout, { framing })) {
          for (const r of batch) {
            assert.equal(r.error, undefined, String(r.error));
            values.push(r.value);
            numbers.push(r.number);
          }
        }
        assert.deepStrictEqual(values, records);
        assert.deepStrictEqual(
          numbers,
          records.map((_, i) => i + 1),
        );
        const again = await collect(encodeDataset(values, layout, { framing }));
        assert.equal(again.toString('hex'), file.toString('hex'));
      },
    ),
    { numRuns: NUM_RUNS },
  );
});

test('property: RecordWriter frames as the RDW/BDW rules say, and RecordReader gives each record back at its offset', () => {
  fc.assert(
    fc.property(
      fileCaseArb.map((c) => Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) })),
      ({ layoutCase: { layout }, records, framing, cuts }) => {
        const encoded = records.map((r) => layout.encode(r));
        const writer = new RecordWriter(framing);
        const parts: Uint8Array[] = [];
        for (const r of encoded) {
          writer.write(r);
          parts.push(writer.take());
        }
        parts.push(writer.end());
        const written = Buffer.concat(parts);
        const file = fileOf(encoded, framing);
        assert.equal(written.toString('hex'), file.toString('hex'));

        const reader = new RecordReader(framing);
        const read: Array<{ number: number; offset: number; hex: string }> = [];
        let at = 0;
        for (let i = 0; at < file.length; i++) {
          const size = cuts[i % cuts.length]!;
          for (const r of reader.push(file.subarray(at, at + size)))
            read.push({ number: r.number, offset: r.offset, hex: Buffer.from(r.bytes).toString('hex') });
          at += size;
        }
        reader.end();
        assert.deepStrictEqual(
          read.map((r) => r.hex),
          encoded.map((r) => r.toString('hex')),
        );
        assert.deepStrictEqual(
          read.map((r) => r.number),
          encoded.map((_, i) => i + 1),
        );
        // F/FB: a record starts where the one before ends; V: at its RDW; VB: where its RDW lies in its block
        const expectedOffsets = offsetsOf(encoded, framing);
        assert.deepStrictEqual(
          read.map((r) => r.offset),
          expectedOffsets,
        );
      },
    ),
    { numRuns: NUM_RUNS },
  );
});

function offsetsOf(records: Buffer[], framing: FramingOptions): number[] {
  const out: number[] = [];
  let at = 0;
  if (framing.recfm === 'F' || framing.recfm === 'FB' || framing.recfm === 'V') {
    const header = framing.recfm === 'V' ? 4 : 0;
    for (const r of records) {
      out.push(at);
      at += header + r.length;
    }
    return out;
  }
  let size = 4;
  at = 4; // past the first BDW
  for (const r of records) {
    if (size + r.length + 4 > framing.blksize!) {
      at += 4; // the next block's BDW
      size = 4;
    }
    out.push(at);
    at += 4 + r.length;
    size += 4 + r.length;
  }
  return out;
}

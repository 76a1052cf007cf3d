/**
 * The data set reader and writer against GnuCOBOL: every fixture in test/fixtures/datasets is a file that a
 * COBOL program compiled by cobc wrote with WRITE (`npm run oracle` regenerates them), beside the records it
 * MOVEd and DISPLAYed. decodeDataset must read the file back to those records, and encodeDataset must write
 * the same bytes. cobc is not needed here.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCopybook } from '../src/index.ts';
import { DatasetError, decodeDataset, encodeDataset, type FramingOptions } from '../src/dataset/index.ts';
import type { DatasetFixture } from '../scripts/oracle/datasets-fixture.ts';

const dir = join(import.meta.dirname, 'fixtures/datasets');
const fixtures = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as DatasetFixture)
  : [];

/** The file in chunks of awkward sizes, so records and headers straddle them. */
async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function decodeAll(bytes: Uint8Array, f: DatasetFixture, framing: FramingOptions, size: number) {
  const layout = compileCopybook(f.copybook.join('\n'), f.options);
  const out: Array<{ number: number; offset: number; value: unknown }> = [];
  for await (const batch of decodeDataset(chunks(bytes, size), layout, { framing })) {
    for (const r of batch) {
      assert.equal(r.error, undefined, `record ${r.number}: ${String(r.error)}`);
      out.push({ number: r.number, offset: r.offset, value: r.value });
    }
  }
  return out;
}

async function encodeAll(f: DatasetFixture, framing: FramingOptions): Promise<Buffer> {
  const layout = compileCopybook(f.copybook.join('\n'), f.options);
  const parts: Uint8Array[] = [];
  for await (const part of encodeDataset(f.records, layout, { framing })) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * GnuCOBOL's V header counts the record's bytes; an IBM RDW counts its own 4 bytes too (the fixture's
 * rdwAdjustment). This rewrites each header's length by `delta`, in the fixture's byte order.
 */
function adjustHeaders(data: Buffer, f: DatasetFixture, delta: number): Buffer {
  const out = Buffer.from(data);
  const little = f.framing.rdw === 'little';
  let at = 0;
  for (const length of f.lengths) {
    const stored = little ? out.readUInt16LE(at) : out.readUInt16BE(at);
    if (little) out.writeUInt16LE(stored + delta, at);
    else out.writeUInt16BE(stored + delta, at);
    at += 4 + length;
  }
  assert.equal(at, out.length, 'the headers account for the whole file');
  return out;
}

/** Where each record starts in the file (its header for V). */
function offsets(f: DatasetFixture): number[] {
  const header = f.framing.recfm === 'V' ? 4 : 0;
  let at = 0;
  return f.lengths.map((length) => {
    const start = at;
    at += header + length;
    return start;
  });
}

test('the GnuCOBOL data set fixtures are present, fixed and variable', () => {
  assert.ok(fixtures.length > 0, `${dir} holds no fixtures; run npm run oracle where cobc is installed`);
  assert.ok(fixtures.some((f) => f.framing.recfm === 'F'));
  assert.ok(fixtures.some((f) => f.framing.recfm === 'V' && f.framing.rdw === 'big'));
  assert.ok(fixtures.some((f) => f.framing.recfm === 'V' && f.framing.rdw === 'little'));
  for (const f of fixtures) {
    assert.match(f.cobc.version, /GnuCOBOL/);
    assert.ok(f.records.length >= 10, `${f.name}: ${f.records.length} records`);
    assert.equal(f.lengths.length, f.records.length);
    if (f.framing.recfm === 'V') assert.ok(new Set(f.lengths).size > 1, `${f.name}: records of one length`);
  }
});

for (const f of fixtures) {
  describe(`GnuCOBOL data set: ${f.name} (${f.framing.recfm}, cobc ${f.cobc.flags.join(' ')})`, () => {
    const data = readFileSync(join(dir, f.file.name));
    // the same records with IBM's RDW, whose length counts the header
    const ibm = f.rdwAdjustment === undefined ? data : adjustHeaders(data, f, f.rdwAdjustment);
    const ibmFraming: FramingOptions =
      f.framing.recfm === 'F' ? { recfm: 'F', lrecl: f.framing.lrecl! } : { recfm: 'V', rdw: f.framing.rdw ?? 'big' };
    // cobc's file as it is: its header's length is the data's alone
    const framing: FramingOptions = { ...ibmFraming, rdwAdjust: f.rdwAdjustment };

    test('the .dat file is the one cobc wrote for this fixture', () => {
      assert.equal(data.length, f.file.bytes);
      assert.equal(createHash('sha256').update(data).digest('hex'), f.file.sha256);
    });

    for (const size of [data.length, 1, 7, 64])
      test(`decode reads the records COBOL wrote (chunks of ${size} bytes)`, async () => {
        const decoded = await decodeAll(data, f, framing, size);
        assert.deepEqual(
          decoded.map((r) => r.value),
          f.records,
        );
        assert.deepEqual(
          decoded.map((r) => r.number),
          f.records.map((_, i) => i + 1),
        );
        assert.deepEqual(
          decoded.map((r) => r.offset),
          offsets(f),
        );
      });

    test("encode writes cobc's bytes back", async () => {
      assert.equal((await encodeAll(f, framing)).toString('hex'), data.toString('hex'));
    });

    if (f.rdwAdjustment !== undefined)
      test('with IBM RDWs, the same records read and write', async () => {
        const decoded = await decodeAll(ibm, f, ibmFraming, 64);
        assert.deepEqual(
          decoded.map((r) => r.value),
          f.records,
        );
        assert.equal((await encodeAll(f, ibmFraming)).toString('hex'), ibm.toString('hex'));
      });

    if (f.rdwAdjustment !== undefined)
      test("GnuCOBOL's headers read as IBM RDWs: refused, no record misread", async () => {
        const layout = compileCopybook(f.copybook.join('\n'), f.options);
        for (const size of [1, 7, data.length]) {
          const yielded: unknown[] = [];
          await assert.rejects(
            (async () => {
              for await (const batch of decodeDataset(chunks(data, size), layout, { framing: ibmFraming }))
                yielded.push(...batch.map((r) => r.value));
            })(),
            (e: unknown) => e instanceof DatasetError,
          );
          assert.deepEqual(yielded, [], `chunks of ${size}`);
          // the first record (4 bytes short of what its header means) is the one named, however the bytes come
          await assert.rejects(decodeAll(data, f, ibmFraming, size), { record: 1, offset: 0 });
        }
      });

    if (f.framing.recfm === 'F')
      test('FB reads and writes the same file (blocks are not kept in a file off the mainframe)', async () => {
        const fb: FramingOptions = { recfm: 'FB', lrecl: f.framing.lrecl! };
        const decoded = await decodeAll(data, f, fb, 100);
        assert.deepEqual(
          decoded.map((r) => r.value),
          f.records,
        );
        assert.equal((await encodeAll(f, fb)).toString('hex'), data.toString('hex'));
      });
  });
}

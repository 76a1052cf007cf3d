/**
 * `@bytes` against GnuCOBOL: the fixtures in test/fixtures/datasets/exact are files a COBOL program wrote after
 * MOVEing bytes their JSON cannot say over the records (FILLER content, the sign nibble F or D where encode writes
 * C). Decoding with exactDecoder and encoding its JSON Lines with exactEncoder must give cobc's bytes; the plain
 * layout must not (its FILLER comes back as spaces), which shows the fixture holds what the key is for.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCopybook, layoutItems } from '../src/index.ts';
import {
  BYTES_KEY,
  compileSegments,
  DatasetError,
  decodeDataset,
  decodeDatasetJsonLines,
  encodeBatches,
  encodeDataset,
  exactDecoder,
  exactEncoder,
  nestSegments,
  readJsonLines,
  toJsonLines,
  unnestSegments,
  type ByteRange,
  type FramingOptions,
} from '../src/dataset/index.ts';
import type { DatasetFixture } from '../scripts/oracle/datasets-fixture.ts';

const dir = join(import.meta.dirname, 'fixtures/datasets/exact');
const fixtures = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as DatasetFixture)
  : [];

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function* text(s: string): AsyncGenerator<string> {
  yield s;
}

async function collect(parts: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const out: Uint8Array[] = [];
  for await (const p of parts) out.push(p);
  return Buffer.concat(out);
}

test('the GnuCOBOL fixtures with bytes the JSON cannot say are present', () => {
  assert.ok(fixtures.length > 0, `${dir} holds no fixtures; run npm run oracle where cobc is installed`);
  for (const f of fixtures) {
    assert.ok(f.overwritten !== undefined, `${f.name}: no overwritten bytes`);
    assert.ok(f.overwritten.some((r) => r.length > 0) && f.overwritten.some((r) => r.length === 0));
  }
});

for (const f of fixtures) {
  describe(`GnuCOBOL file with bytes the JSON cannot say: ${f.name}`, () => {
    const data = readFileSync(join(dir, f.file.name));
    const layout = compileCopybook(f.copybook.join('\n'), f.options);
    const framing: FramingOptions = { recfm: 'F', lrecl: f.framing.lrecl! };
    const lrecl = f.framing.lrecl!;
    const overwritten = f.overwritten!;

    test('the .dat file is the one cobc wrote for this fixture', () => {
      assert.equal(data.length, f.file.bytes);
      assert.equal(createHash('sha256').update(data).digest('hex'), f.file.sha256);
    });

    test('decode with @bytes, then encode its JSON Lines: cobc’s bytes exactly', async () => {
      for (const size of [data.length, 7]) {
        let lines = '';
        for await (const batch of decodeDatasetJsonLines(chunks(data, size), exactDecoder(layout), { framing })) {
          lines += batch.lines.toString('utf8');
        }
        const again = await collect(encodeBatches(readJsonLines(text(lines)), exactEncoder(layout), { framing }));
        assert.ok(again.equals(data), `chunks of ${size}: the file differs from cobc's`);
      }
    });

    test('the values are the fixture’s; @bytes is there only where the program overwrote bytes, and only there', async () => {
      const values: Array<Record<string, unknown>> = [];
      for await (const batch of decodeDataset(chunks(data, 64), exactDecoder(layout), { framing })) {
        for (const r of batch) values.push(r.value!);
      }
      assert.equal(values.length, f.records.length);
      for (const [i, value] of values.entries()) {
        const { [BYTES_KEY]: ranges, ...fields } = value;
        assert.deepEqual(fields, f.records[i], `record ${i + 1}`);
        const wrote = overwritten[i]!;
        assert.equal(ranges !== undefined, wrote.length > 0, `record ${i + 1}: @bytes ${JSON.stringify(ranges)}`);
        for (const [offset, hex] of (ranges ?? []) as ByteRange[]) {
          for (let k = offset; k < offset + hex.length / 2; k++) {
            const inside = wrote.some(([o, h]) => k >= o && k < o + h.length / 2);
            const kept = data[i * lrecl + k] === Buffer.from(layout.encode(fields))[k];
            assert.ok(inside || kept, `record ${i + 1}: @bytes holds byte ${k}, which the program did not overwrite`);
          }
        }
      }
    });

    test('without @bytes the records come back as encode writes them: FILLER as spaces, sign nibble C', async () => {
      const plain = await collect(encodeDataset(f.records, layout, { framing }));
      assert.equal(plain.length, data.length);
      assert.ok(!plain.equals(data), 'the fixture holds no byte that encode would not write');
      const fillers = [...layoutItems(layout.root)].filter((i) => i.cobolName === 'FILLER');
      for (const [i, wrote] of overwritten.entries()) {
        const record = plain.subarray(i * lrecl, (i + 1) * lrecl);
        const original = data.subarray(i * lrecl, (i + 1) * lrecl);
        const mask = new Uint8Array(lrecl);
        for (const [o, h] of wrote) mask.fill(1, o, o + h.length / 2);
        for (let k = 0; k < lrecl; k++) {
          if (mask[k] === 0) assert.equal(record[k], original[k], `record ${i + 1} byte ${k}`);
        }
        for (const filler of fillers) {
          const bytes = record.subarray(filler.offset, filler.offset + filler.length).toString('latin1');
          assert.match(bytes, /^(<>)? *$/, `record ${i + 1}: FILLER at ${filler.offset} is "${bytes}"`);
        }
        for (const [o, h] of wrote) {
          assert.notEqual(record.toString('hex', o, o + h.length / 2), h, `record ${i + 1} at ${o}`);
          assert.equal(original.toString('hex', o, o + h.length / 2), h, `record ${i + 1} at ${o}: cobc's bytes`);
        }
      }
      // and the plain decode loses them: its JSON Lines encode to the plain bytes
      let lines = '';
      for await (const batch of decodeDatasetJsonLines(chunks(data, 100), layout, { framing })) {
        lines += batch.lines.toString('utf8');
      }
      assert.ok(!lines.includes(BYTES_KEY));
      const again = await collect(encodeBatches(readJsonLines(text(lines)), exactEncoder(layout), { framing }));
      assert.ok(again.equals(plain));
    });

    test('a value edited in the JSON keeps its new bytes; the FILLER beside it still comes back', async () => {
      const values: Array<Record<string, unknown>> = [];
      for await (const batch of decodeDataset(chunks(data, 64), exactDecoder(layout), { framing })) {
        for (const r of batch) values.push(r.value!);
      }
      const i = overwritten.findIndex((w) => w.length >= 2);
      const edited: Record<string, unknown> = { ...values[i]!, xbAmt: 12.34 };
      const bytes = Buffer.from(exactEncoder(layout).encode(edited));
      const { [BYTES_KEY]: _, ...fields } = edited;
      assert.deepEqual(layout.decode(bytes), fields);
      const original = data.subarray(i * lrecl, (i + 1) * lrecl);
      const filler = overwritten[i]![0]!;
      assert.equal(bytes.toString('hex', filler[0], filler[0] + filler[1].length / 2), filler[1]);
      assert.notDeepEqual(bytes, original);
    });

    test('a bad @bytes names the line and the key', async () => {
      const line = JSON.stringify({ ...f.records[0], [BYTES_KEY]: [[3, 'zz']] });
      const encoding = collect(
        encodeBatches(readJsonLines(text(`${JSON.stringify(f.records[1])}\n${line}\n`)), exactEncoder(layout), {
          framing,
        }),
      );
      await assert.rejects(encoding, (e: unknown) => {
        assert.ok(e instanceof DatasetError);
        assert.equal(e.line, 2);
        assert.equal(e.field, `${BYTES_KEY}[0]`);
        assert.match(e.message, /^line 2 \(@bytes\[0\]\): the bytes must be hex digits/);
        return true;
      });
    });
  });
}

test('segments: @bytes is in each record’s object, so nested children carry their own and the file comes back', async () => {
  const copybook = [
    '       01 CUST-REC.',
    '          05 SEG-ID PIC X.',
    '          05 FILLER PIC X(3).',
    '          05 C-NAME PIC X(4).',
    '       01 ACCT-REC.',
    '          05 SEG-ID2 PIC X.',
    '          05 A-AMT PIC S9(5) COMP-3.',
    '          05 FILLER PIC X(4).',
  ].join('\n');
  const spec = { field: 'SEG-ID', segments: { C: 'CUST-REC', A: 'ACCT-REC' }, children: { 'ACCT-REC': 'CUST-REC' } };
  const layout = compileSegments(copybook, spec, { profile: 'gnucobol' });
  const file = Buffer.concat([
    Buffer.from('C\x00\x01\x02ADA ', 'latin1'),
    Buffer.from('A'),
    Buffer.from('12345f', 'hex'),
    Buffer.from('wxyz'),
    Buffer.from('C   BOB '),
  ]);
  const framing: FramingOptions = { recfm: 'F', lrecl: 8 };
  const rows: unknown[] = [];
  for await (const batch of nestSegments(decodeDataset(chunks(file, 5), exactDecoder(layout), { framing }), layout)) {
    for (const r of batch) rows.push(r.value);
  }
  assert.deepEqual(rows, [
    {
      custRec: {
        segId: 'C',
        cName: 'ADA',
        '@bytes': [[1, '000102', '202020']],
        acctRec: [{ segId2: 'A', aAmt: 12345, '@bytes': [[3, '5f7778797a', '5c20202020']] }],
      },
    },
    { custRec: { segId: 'C', cName: 'BOB' } },
  ]);
  const lines = readJsonLines(text(toJsonLines(rows)));
  const again = await collect(encodeBatches(unnestSegments(lines, layout), exactEncoder(layout), { framing }));
  assert.equal(again.toString('hex'), file.toString('hex'));
});

/**
 * The EBCDIC code pages against glibc's iconv, run now: every byte decoded, every character encoded, every
 * double-byte code of the mixed pages both ways, and records through compileCopybook. iconv judges, not our tables.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { charTable, SHIFT_IN, SHIFT_OUT, UNMAPPED, zonedUnsupported } from '../src/charsets.ts';
import { EBCDIC_CHARSETS } from '../src/codepages/ebcdic/index.ts';
import { mixedBytes } from '../src/encodings/mixed.ts';
import {
  CHARSETS,
  charsetNamed,
  compileCopybook,
  MappingError,
  RecordDecodeError,
  RecordEncodeError,
  type Charset,
  type CompileOptions,
} from '../src/index.ts';
import { fromUtf16be, iconv, toUtf16be } from '../scripts/codepages/iconv.ts';
import { generate, OUT_DIR } from '../scripts/codepages/generate.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');
const iconvName = (charset: Charset) => 'IBM' + charset.slice(2);
/** A byte iconv never decodes to anything else than LF, to mark where one input's output ends. */
const MARK = 0x25;

/** iconv's bytes for `text` in `charset`, strict. */
function iconvEncode(charset: Charset, text: string): Buffer {
  const run = iconv('UTF-16BE', iconvName(charset), toUtf16be(text));
  assert.ok(run.ok, `iconv refuses to encode to ${charset}: ${run.stderr}`);
  return run.out;
}

test('the code pages are the issue list, every one of them in glibc iconv', () => {
  const pages = [
    '037 273 274 275 277 278 280 284 285 290 297 420 424 500 870 871 875 880 1025 1026 1047 1097 1112 1122 1123',
    '1130 1132 1137 1140 1141 1142 1143 1144 1145 1146 1147 1148 1149 1153 1154 1155 1156 1157 1158 1160 1164 1166',
    '4971 930 933 935 937 939 1364 1371 1388 1390 1399',
  ].join(' ');
  assert.deepEqual(
    [...EBCDIC_CHARSETS].sort(),
    pages
      .split(' ')
      .map((p) => 'cp' + p)
      .sort(),
  );
  assert.deepEqual(CHARSETS, ['ascii', 'latin1', ...EBCDIC_CHARSETS]);
});

for (const charset of EBCDIC_CHARSETS) {
  test(`${charset}: every byte decodes, and every character encodes, as glibc iconv's ${iconvName(charset)}`, () => {
    const table = charTable(charset);
    const shift = (b: number) => table.dbcs !== undefined && (b === SHIFT_OUT || b === SHIFT_IN);
    const bytes = Array.from({ length: 256 }, (_, b) => b).filter((b) => !shift(b));
    const mapped = bytes.filter((b) => table.decode[b] !== UNMAPPED);
    const unmapped = bytes.filter((b) => table.decode[b] === UNMAPPED);
    const decoded = iconv(iconvName(charset), 'UTF-16BE', Buffer.from(mapped));
    assert.ok(decoded.ok, decoded.stderr);
    assert.equal(mapped.map((b) => table.decode[b]).join(''), fromUtf16be(decoded.out));
    // the bytes the table leaves out: iconv -c drops each of them, leaving only the marks after them
    const dropped = iconv(iconvName(charset), 'UTF-16BE', Buffer.from(unmapped.flatMap((b) => [b, MARK])), true);
    assert.equal(fromUtf16be(dropped.out), '\n'.repeat(unmapped.length), `${charset} bytes iconv maps`);
    const units = Array.from({ length: 0x10000 }, (_, u) => u).filter((u) => table.encode[u]! >= 0);
    assert.equal(units.length, new Set(mapped.map((b) => table.decode[b])).size, 'every decoded character encodes');
    for (const u of units) assert.equal(table.decode[table.encode[u]!], String.fromCharCode(u), 'encode, then decode');
    const encoded = iconvEncode(charset, String.fromCharCode(...units));
    assert.equal(encoded.length, units.length);
    // iconv writes a few characters as a byte it reads back as another (cp930 writes \ as 0x5B, which it reads
    // as ¥): there encode writes the byte iconv reads as the character, so that decode(encode(x)) is x
    const oneWay = units.flatMap((u, i) => (encoded[i] === table.encode[u] ? [] : [[u, encoded[i]!]]));
    const readBack = fromUtf16be(iconv(iconvName(charset), 'UTF-16BE', Buffer.from(oneWay.map(([, b]) => b!))).out);
    oneWay.forEach(([u], i) =>
      assert.notEqual(readBack[i], String.fromCharCode(u!), `${charset} U+${u!.toString(16)}`),
    );
    assert.ok(oneWay.length <= 4, `${oneWay.length} characters iconv writes one way`);
  });
}

for (const charset of EBCDIC_CHARSETS.filter((c) => charTable(c).dbcs)) {
  test(`${charset}: every double-byte code decodes, and every double-byte character encodes, as glibc iconv`, () => {
    const table = charTable(charset);
    const dbcs = table.dbcs!;
    const codes: number[] = [];
    for (let lead = 0x40; lead <= 0xfe; lead++)
      for (let trail = 0x40; trail <= 0xfe; trail++) codes.push(lead * 256 + trail);
    const valid = codes.filter((c) => dbcs.decode[c] !== undefined);
    const invalid = codes.filter((c) => dbcs.decode[c] === undefined);
    assert.ok(valid.length > 5000, `${valid.length} double-byte characters`);
    const run = iconv(
      iconvName(charset),
      'UTF-16BE',
      Buffer.from([SHIFT_OUT, ...valid.flatMap((c) => [c >> 8, c & 255]), SHIFT_IN]),
    );
    assert.ok(run.ok, run.stderr);
    assert.equal(valid.map((c) => dbcs.decode[c]).join(''), fromUtf16be(run.out));
    const input = Buffer.from(invalid.flatMap((c) => [SHIFT_OUT, c >> 8, c & 255, SHIFT_IN, MARK]));
    assert.equal(fromUtf16be(iconv(iconvName(charset), 'UTF-16BE', input, true).out), '\n'.repeat(invalid.length));
    // all double-byte characters in one string: one shift-out, their codes, one shift-in, as iconv writes them
    const text = [...dbcs.encode.keys()].join('');
    assert.equal(Buffer.from(mixedBytes(text, table, 'x')).toString('hex'), iconvEncode(charset, text).toString('hex'));
  });
}

test('every EBCDIC code page has the digits at F0–F9 and + and -, so numeric DISPLAY items work in each', () => {
  for (const charset of EBCDIC_CHARSETS) assert.equal(zonedUnsupported(charTable(charset)), null, charset);
});

test('cp037 and cp1140 differ only at 0x9F (the currency sign, the euro sign)', () => {
  const [a, b] = [charTable('cp037').decode, charTable('cp1140').decode];
  const diff = a.flatMap((ch, byte) => (ch === b[byte] ? [] : [[byte, ch, b[byte]]]));
  assert.deepEqual(diff, [[0x9f, '\u00a4', '€']]);
});

const TEXT_AND_AMOUNT = fixed('01 REC.', '   05 NAME   PIC X(12).', '   05 AMOUNT PIC S9(5)V99.');

function roundTrip(options: CompileOptions, json: Record<string, unknown>, name: string): Buffer {
  const layout = compileCopybook(TEXT_AND_AMOUNT, options);
  const bytes = layout.encode(json);
  const charset = options.encoding!;
  const text = Buffer.alloc(12, 0x40);
  iconvEncode(charset, name).copy(text);
  const expected = Buffer.concat([text, Buffer.from('f0f0f0f1f2f5d0', 'hex')]);
  assert.equal(bytes.toString('hex'), expected.toString('hex'));
  assert.deepEqual(layout.decode(bytes), json);
  return bytes;
}

test('records in cp273 (umlauts), cp1047 (brackets), cp1141 (euro) and cp290 (katakana) are the bytes iconv writes', () => {
  for (const [encoding, name] of [
    ['cp273', 'Grüße, Jörg'],
    ['cp1047', '[a] {b} ^~|'],
    ['cp1141', '€ 12 für §4'],
    ['cp290', 'カタカナ ABC'],
  ] as const) {
    roundTrip({ encoding }, { name, amount: -12.5 }, name);
  }
});

test('a mixed code page writes double-byte runs between shift-out and shift-in, counted in the field length', () => {
  for (const [encoding, name] of [
    ['cp930', 'ｶﾅ漢字AB'],
    ['cp939', '日本語abc'],
    ['cp1390', 'ｶﾅ漢字AB'],
    ['cp1399', '𠀋x'],
    ['cp933', '한국어 ok'],
    ['cp1364', '한국어 ok'],
    ['cp935', '中文 ab'],
    ['cp1388', '中文 ab'],
    ['cp937', '繁體中文'],
    ['cp1371', '繁體中文'],
  ] as const) {
    roundTrip({ encoding }, { name, amount: -12.5 }, name);
  }
  // the bytes themselves, once: single-byte katakana, shift-out, two kanji, shift-in, single-byte letters
  const cp930 = compileCopybook(TEXT_AND_AMOUNT, { encoding: 'cp930' }).encode({ name: 'ｶﾅ漢字AB', amount: 0 });
  assert.equal(cp930.subarray(0, 12).toString('hex'), '86960e' + '4f5848f2' + '0fc1c24040');
  const layout = compileCopybook(TEXT_AND_AMOUNT, { encoding: 'cp930' });
  // 5 double-byte characters need 10 bytes and their shift codes 2 more: 12 fit, 13 do not
  assert.equal(layout.decode(layout.encode({ name: '漢字漢字漢', amount: 0 })).name, '漢字漢字漢');
  assert.throws(
    () => layout.encode({ name: '漢字漢字漢A', amount: 0 }),
    (e) =>
      e instanceof RecordEncodeError &&
      e.message === 'name: string needs 13 bytes with its shift-out/shift-in codes; the field holds 12',
  );
  assert.throws(
    () => layout.encode({ name: 'ä', amount: 0 }),
    (e) => e instanceof RecordEncodeError && e.message === 'name: character "ä" at position 0 is not in cp930',
  );
});

test('decode refuses unbalanced shift codes and codes the page does not have, naming the byte offset', () => {
  const layout = compileCopybook(TEXT_AND_AMOUNT, { encoding: 'cp930' });
  const record = (name: string) => Buffer.concat([Buffer.from(name, 'hex'), Buffer.from('f0f0f0f0f0f0c0', 'hex')]);
  const fails = (hex: string, message: string) =>
    assert.throws(
      () => layout.decode(record(hex)),
      (e) => e instanceof RecordDecodeError && e.message === message,
    );
  fails('c10e45414040404040404040', 'offset 11 (NAME): shift-out 0x0e without its shift-in before the field ends');
  fails('c10f40404040404040404040', 'offset 1 (NAME): shift-in 0x0f outside double-byte characters');
  fails('0e45410e4040404040404040', 'offset 3 (NAME): shift-out 0x0e inside double-byte characters');
  fails('c10e42400f40404040404040', 'offset 2 (NAME): double-byte code 0x4240 is not in cp930');
  fails('c1fa40404040404040404040', 'offset 1 (NAME): byte 0xfa is not a character in cp930');
  fails('c1c20e' + '4541'.repeat(4) + '45', 'offset 11 (NAME): the field ends inside a double-byte character');
});

test('a byte a single-byte code page does not map is a decode error naming its offset', () => {
  const layout = compileCopybook(TEXT_AND_AMOUNT, { encoding: 'cp274' });
  const bytes = Buffer.from('c1c241404040404040404040f0f0f0f0f0f0c0', 'hex');
  assert.throws(
    () => layout.decode(bytes),
    (e) => e instanceof RecordDecodeError && e.message === 'offset 2 (NAME): byte 0x41 is not a character in cp274',
  );
});

test('where iconv decodes two bytes to one character, encode writes the byte iconv writes', () => {
  // cp1160 has the Thai tone marks at two places each; iconv writes the later ones
  const layout = compileCopybook(fixed('01 REC.', '   05 T PIC X(2).'), { encoding: 'cp1160' });
  const decoded = layout.decode(Buffer.from('5140', 'hex'));
  assert.equal(layout.encode(decoded).toString('hex'), iconvEncode('cp1160', decoded.t + ' ').toString('hex'));
});

test('a mapping gives one field, or every field of a group, its own code page', () => {
  const source = fixed(
    '01 REC.',
    '   05 NAME-US PIC X(4).',
    '   05 DE.',
    '      10 NAME-DE PIC X(4).',
    '      10 NAME-JP PIC X(4).',
    '      10 AMT     PIC S9(3).',
  );
  const mapping = { encodings: { DE: 'cp273', 'NAME-JP': 'cp290' } } as const;
  const layout = compileCopybook(source, { encoding: 'cp037', mapping });
  const json = { nameUs: '[ab]', de: { nameDe: 'äöü', nameJp: 'アイウ', amt: -12 } };
  const bytes = layout.encode(json);
  const expected = [
    iconvEncode('cp037', '[ab]'),
    iconvEncode('cp273', 'äöü '),
    iconvEncode('cp290', 'アイウ '),
    Buffer.from('f0f1d2', 'hex'),
  ];
  assert.equal(bytes.toString('hex'), Buffer.concat(expected).toString('hex'));
  assert.deepEqual(layout.decode(bytes), json);
  assert.throws(
    () => compileCopybook(source, { mapping: { encodings: { DE: 'cp999' as Charset } } }),
    (e) => e instanceof MappingError && /unknown code page "cp999"/.test(e.message),
  );
});

test('IBM spellings of a code page name it too', () => {
  assert.equal(charsetNamed('cp273'), 'cp273');
  assert.equal(charsetNamed('IBM273'), 'cp273');
  assert.equal(charsetNamed('IBM-037'), 'cp037');
  assert.equal(charsetNamed('cp37'), 'cp037');
  assert.equal(charsetNamed('CP1140'), 'cp1140');
  assert.equal(charsetNamed('cp999'), undefined);
  assert.equal(charsetNamed('utf8'), undefined);
});

test('the committed tables are what `npm run codepages` writes from this machine’s iconv', async () => {
  const files = await generate();
  for (const [file, text] of files) assert.equal(readFileSync(join(OUT_DIR, file), 'utf8'), text, file);
});

const PIC_G = fixed(
  '01 REC.',
  '   05 KANJI  PIC G(4).',
  '   05 RIGHT  PIC G(3) USAGE DISPLAY-1 JUSTIFIED RIGHT.',
  '   05 CODE   PIC X(2).',
);

test('PIC G / USAGE DISPLAY-1: two bytes per character, no shift codes, padded with the double-byte space', () => {
  for (const encoding of ['cp930', 'cp939', 'cp933', 'cp935', 'cp937', 'cp1390', 'cp1399'] as const) {
    const layout = compileCopybook(PIC_G, { encoding });
    const kanji = encoding === 'cp933' ? '한국' : '中文';
    const json = { kanji: kanji + 'Ａ', right: '１', code: 'AB' };
    const bytes = layout.encode(json);
    // iconv writes the same characters between SO and SI: the item holds what is between them
    const between = (text: string) => iconvEncode(encoding, text).subarray(1, -1).toString('hex');
    assert.equal(bytes.subarray(0, 8).toString('hex'), between(kanji + 'Ａ') + '4040', encoding);
    assert.equal(bytes.subarray(8, 14).toString('hex'), '40404040' + between('１'), encoding);
    assert.equal(bytes.subarray(14).toString('hex'), iconvEncode(encoding, 'AB').toString('hex'));
    assert.deepEqual(layout.decode(bytes), json);
  }
  const layout = compileCopybook(PIC_G, { encoding: 'cp930' });
  assert.equal(layout.root.children![0]!.length, 8);
  assert.equal(layout.root.children![0]!.usage, 'display-1');
  assert.deepEqual(layout.decode(layout.encode({})), { kanji: '', right: '', code: '' });
  assert.throws(
    () => layout.encode({ kanji: '中文中文中' }),
    (e) =>
      e instanceof RecordEncodeError &&
      e.message === 'kanji: string of 5 double-byte characters is longer than the 4 the field holds',
  );
  assert.throws(
    () => layout.encode({ kanji: 'A' }),
    (e) =>
      e instanceof RecordEncodeError &&
      e.message === 'kanji: character "A" at position 0 is not a double-byte character in cp930',
  );
  assert.throws(
    () => layout.decode(Buffer.from('4240' + '4040'.repeat(6) + 'c1c2', 'hex')),
    (e) => e instanceof RecordDecodeError && e.message === 'offset 0 (KANJI): double-byte code 0x4240 is not in cp930',
  );
  assert.equal((layout.jsonSchema().properties as Record<string, { maxLength: number }>).kanji?.maxLength, 4);
});

test('PIC G needs a mixed code page, and DISPLAY-1 needs PIC G', () => {
  assert.throws(
    () => compileCopybook(PIC_G, { encoding: 'cp037' }),
    /KANJI: PIC G needs a mixed code page \(cp930, cp939…\); cp037 has no double-byte characters/,
  );
  assert.throws(
    () => compileCopybook(fixed('01 REC.', '   05 N PIC X(4) USAGE DISPLAY-1.'), { encoding: 'cp930' }),
    /USAGE DISPLAY-1 is supported with PIC G only \(PIC X\(4\)\)/,
  );
  assert.throws(
    () => compileCopybook(fixed('01 REC.', '   05 N PIC G(2)X.'), { encoding: 'cp930' }),
    /G \(double-byte characters\) cannot be mixed with other symbols/,
  );
});

test('the CLI takes --encoding cpNNN (and IBM-NNN), and a mapping with encodings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-codepages-'));
  try {
    const cpy = join(dir, 'rec.cpy');
    writeFileSync(cpy, fixed('01 REC.', '   05 NAME PIC X(5).', '   05 JP   PIC X(6).'));
    writeFileSync(join(dir, 'map.json'), JSON.stringify({ encodings: { JP: 'cp930' } }));
    const bin = join(import.meta.dirname, '../src/bin.ts');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { input: JSON.stringify({ name: 'Grüß', jp: '漢字' }) });
    for (const encoding of ['cp273', 'IBM-273', 'ibm273']) {
      const out = run('encode', cpy, '--encoding', encoding, '--mapping', join(dir, 'map.json'));
      assert.equal(out.status, 0, out.stderr.toString());
      const expected = Buffer.concat([iconvEncode('cp273', 'Grüß '), iconvEncode('cp930', '漢字')]).toString('hex');
      assert.equal(out.stdout.toString().trim(), expected);
    }
    const bad = run('encode', cpy, '--encoding', 'cp999');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr.toString(), /--encoding must be one of ascii, latin1, cp037, cp273, .* \(got "cp999"\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('property: in every code page, decode(encode(x)) is x for text of its characters, mixed and PIC G alike', () => {
  const source = fixed('01 REC.', '   05 T PIC X(40).', '   05 R PIC X(40) JUSTIFIED RIGHT.', '   05 N PIC 9(3).');
  const dbcsSource = fixed('01 REC.', '   05 G PIC G(10).', '   05 T PIC X(30).');
  for (const charset of EBCDIC_CHARSETS) {
    const table = charTable(charset);
    // characters decode can return: trailing (leading, when right-justified) spaces are padding
    const singles = [...new Set(table.decode.filter((ch) => ch !== UNMAPPED))];
    const doubles = table.dbcs ? [...new Set(table.dbcs.decode.filter((ch) => ch !== undefined))] : [];
    const ch = fc.constantFrom(...singles, ...doubles);
    const text = (max: number) => fc.array(ch, { maxLength: max }).map((a) => a.join(''));
    const layout = compileCopybook(source, { encoding: charset });
    const fits = (v: string) => v.length <= 40 && (!table.dbcs || mixedBytes(v, table, '').length <= 40);
    fc.assert(
      fc.property(text(20).filter(fits), text(20).filter(fits), fc.integer({ min: 0, max: 999 }), (t, r, n) => {
        const json = { t: t.replace(/ +$/, ''), r: r.replace(/^ +/, ''), n };
        assert.deepEqual(layout.decode(layout.encode(json)), json);
      }),
      { numRuns: 40, seed: 30 },
    );
    if (!table.dbcs) continue;
    const pic = compileCopybook(dbcsSource, { encoding: charset });
    const g = fc.array(fc.constantFrom(...doubles), { maxLength: 10 }).map((a) => a.join('').replace(/\u3000+$/, ''));
    fc.assert(
      fc.property(g, (v) => {
        const decoded = pic.decode(pic.encode({ g: v }));
        // a character two codes decode to comes back as itself either way
        assert.equal(decoded.g, v);
      }),
      { numRuns: 40, seed: 30 },
    );
  }
});

test('a VALUE literal on a mixed item is written with its shift codes, and one that does not fit is refused', () => {
  const layout = compileCopybook(fixed('01 REC.', "   05 T PIC X(8) VALUE 'A漢字'."), { encoding: 'cp930' });
  const bytes = layout.encode({});
  const expected = Buffer.alloc(8, 0x40);
  iconvEncode('cp930', 'A漢字').copy(expected);
  assert.equal(bytes.toString('hex'), expected.toString('hex'));
  assert.deepEqual(layout.decode(bytes), { t: 'A漢字' });
  assert.throws(
    () => compileCopybook(fixed('01 REC.', "   05 T PIC X(6) VALUE 'A漢字'."), { encoding: 'cp930' }),
    /VALUE of T: string needs 7 bytes with its shift-out\/shift-in codes; the field holds 6/,
  );
});

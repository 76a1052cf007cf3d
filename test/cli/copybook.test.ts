import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

/** Runs the real command in a child process, as a user would. */
function run(args: string[], input?: string | Buffer) {
  const stdin = typeof input === 'string' ? Buffer.from(input) : input;
  const r = spawnSync(process.execPath, [BIN, ...args], { input: stdin });
  return { code: r.status, stdout: r.stdout.toString('latin1'), stderr: r.stderr.toString('utf8'), raw: r.stdout };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-cli-'));
const cpy = join(dir, 'payment.cpy');
writeFileSync(
  cpy,
  [
    '      * payment instruction',
    '       01  PAY-REC.',
    '           05  PAY-ID        PIC X(8).',
    '           05  PAY-AMOUNT    PIC S9(9)V99 COMP-3.',
    '           05  PAY-CCY       PIC X(3) VALUE "EUR".',
    '           05  PAY-LEGS      PIC 9.',
    '           05  PAY-LEG OCCURS 0 TO 2 DEPENDING ON PAY-LEGS.',
    '               10  LEG-ACCT  PIC X(4).',
  ].join('\n'),
);
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('inspect prints a table of fields with offsets and lengths', () => {
  const r = run(['copybook', 'inspect', cpy]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^PAY-REC: 18 to 26 bytes; cp1140/);
  assert.match(r.stdout, /payAmount\s+05\s+PAY-AMOUNT\s+8\s+6\s+COMP-3 S9\(9\)V9\(2\)/);
  assert.match(r.stdout, /payLeg\[\]\.legAcct\s+10\s+LEG-ACCT\s+18\s+4\s+DISPLAY X\(4\)/);
  assert.match(r.stdout, /0 TO 2 DEPENDING ON PAY-LEGS/);
});

test('inspect --json-schema and --json print machine-readable documents', () => {
  const schema = JSON.parse(run(['copybook', 'inspect', cpy, '--json-schema']).stdout);
  assert.deepEqual(schema.properties.payCcy.default, 'EUR');
  assert.equal(schema.properties.payLeg.maxItems, 2);
  const layout = JSON.parse(run(['copybook', 'inspect', cpy, '--json', '--profile', 'gnucobol']).stdout);
  const seen = [layout.maxLength, layout.profile.charset, layout.root.children[1].jsonPath];
  assert.deepEqual(seen, [26, 'ascii', 'payAmount']);
});

test('inspect --codegen prints the generated encoder and decoder, a statement a line', () => {
  const example = join(import.meta.dirname, '../../examples/customer-account.cpy');
  const r = run(['copybook', 'inspect', '--codegen', example]);
  assert.equal(r.code, 0, r.stderr);
  const code = r.stdout;
  assert.match(code, /^"use strict";\n\/\/ CUSTOMER-ACCOUNT \(75 to 115 bytes\)/);
  assert.match(code, /^const spec\d+ = K\[\d+\]; \/\/ CA-BALANCE: packed S9\(13\)V9\(2\)$/m);
  // encode: checks the JSON, then writes each field at its offset under its JSON path
  assert.match(code, /^function encode\(json\) \{\n  if \(!isObject\(json\)\) \{\n    throw new RecordEncodeError\(/m);
  assert.match(code, /^    putPacked\(buf, 44, spec\d+, value\d+, "caBalance"\);$/m);
  assert.match(code, /^      putTextOnSpaces\(buf, 8, spec\d+, value\d+, "caName\.caFirstName"\);$/m);
  assert.match(code, /^  return buf\.subarray\(0, 75 \+ odoCount \* 8\);$/m);
  // decode: the OCCURS DEPENDING ON table by its counter, then one key a line
  assert.match(
    code,
    /^function decode\(bytes, options\) \{\n  const ignoreTrailing = options !== undefined && options\.trailing === 'ignore';\n  const b = toBuffer\(bytes\);$/m,
  );
  assert.match(code, /^  const odoCount = Number\(getBinary\(b, 73, spec\d+, "CA-TXN-COUNT"\)\);$/m);
  assert.match(code, /^    "caBalance": getPackedConstants\(b, 44, 44 \+ 7, 0, 256, 100, spec\d+, "CA-BALANCE"\),$/m);
  assert.match(code, /^function decodeElement\d+\(b, at\) \{\n  return \{\n    "caTxnAmount": getPackedConstants\(/m);
  assert.match(code, /\nreturn \{ encode, decode \};\n$/);
  assert.doesNotThrow(() => new Function(code), 'the printed code is JavaScript');

  const missing = run(['copybook', 'inspect', '--codegen', join(dir, 'missing.cpy')]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, '');
  assert.match(missing.stderr, /^corebridge: cannot read .*missing\.cpy: no such file\n$/);
  const both = run(['copybook', 'inspect', cpy, '--codegen', '--json']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /choose one of --codegen, --json and --json-schema/);
});

test('types prints the TypeScript interface of the record', () => {
  const r = run(['copybook', 'types', cpy]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      '/** PAY-REC */',
      'export interface PayRec {',
      '  payId: string;',
      '  payAmount: number;',
      '  payCcy?: string;',
      '  payLegs: number;',
      '  payLeg: Array<{',
      '    legAcct: string;',
      '  }>;',
      '}',
      '',
    ].join('\n'),
  );
  assert.equal(run(['copybook', 'types']).code, 2);
});

test('encode prints lowercase hex; decode reads it back', () => {
  const json = JSON.stringify({ payId: 'P1', payAmount: '-1234.5', payLeg: [{ legAcct: 'A1' }] });
  const enc = run(['copybook', 'encode', cpy, '--profile', 'gnucobol'], json);
  assert.equal(enc.code, 0, enc.stderr);
  const hex = (text: string) => Buffer.from(text).toString('hex');
  assert.equal(enc.stdout, `${hex('P1      ')}00000123450d${hex('EUR1A1  ')}\n`);
  const dec = run(['copybook', 'decode', cpy, '--profile', 'gnucobol'], enc.stdout);
  assert.equal(dec.code, 0, dec.stderr);
  assert.deepEqual(JSON.parse(dec.stdout), {
    payId: 'P1',
    payAmount: -1234.5,
    payCcy: 'EUR',
    payLegs: 1,
    payLeg: [{ legAcct: 'A1' }],
  });
});

test('--binary writes and reads raw bytes; --encoding overrides the profile', () => {
  const enc = run(['copybook', 'encode', cpy, '--binary', '--encoding', 'ascii'], '{"payId":"X"}');
  assert.equal(enc.code, 0, enc.stderr);
  assert.equal(enc.raw.length, 18);
  assert.equal(enc.raw.subarray(0, 1).toString('latin1'), 'X');
  const dec = run(['copybook', 'decode', cpy, '--binary', '--encoding', 'ascii'], enc.raw);
  assert.equal(JSON.parse(dec.stdout).payId, 'X');
});

test('errors go to stderr with a non-zero exit, naming the path, offset or line', () => {
  const tooBig = run(['copybook', 'encode', cpy], '{"payAmount": 1e10}');
  assert.equal(tooBig.code, 1);
  assert.match(tooBig.stderr, /^corebridge: payAmount: 10000000000 has too many digits for PIC S9\(9\)V9\(2\)/);
  assert.equal(tooBig.stdout, '');
  const short = run(['copybook', 'decode', cpy], 'c1c2');
  assert.equal(short.code, 1);
  assert.match(short.stderr, /corebridge: offset 2 \(PAY-ID\): the record is 2 bytes/);
  const badHex = run(['copybook', 'decode', cpy], 'zz');
  assert.match(badHex.stderr, /stdin is not hex: "z" at character 0/);
  const badJson = run(['copybook', 'encode', cpy], '{');
  assert.match(badJson.stderr, /stdin is not valid JSON/);
  const bad = join(dir, 'bad.cpy');
  writeFileSync(bad, '       01 R.\n           05 A PIC Q(3).\n');
  const compile = run(['copybook', 'inspect', bad]);
  assert.equal(compile.code, 1);
  const badPath = bad.replace(/[/\\.]/g, '\\$&');
  assert.match(compile.stderr, new RegExp(`${badPath}:2:21: PIC Q\\(3\\): "Q" is not a picture symbol`));
  const missing = run(['copybook', 'inspect', join(dir, 'missing.cpy')]);
  assert.match(missing.stderr, /cannot read .*missing\.cpy: no such file/);
  const usage = run(['copybook', 'frobnicate', cpy]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /copybook needs inspect, types, encode or decode \(got "frobnicate"\)/);
  assert.match(run(['copybook', 'inspect', cpy, '--profile', 'vms']).stderr, /--profile must be one of zos, gnucobol/);
  assert.equal(run([]).code, 2);
});

test(
  'REDEFINES from the command line: encode takes the one view the JSON names; ' +
    '--mapping chooses views by a discriminator',
  () => {
    const methods = join(dir, 'method.cpy');
    writeFileSync(
      methods,
      [
        '       01  PAY-METHOD-REC.',
        '           05  PAY-METHOD    PIC X.',
        '           05  PAY-DETAILS   PIC X(12).',
        '           05  PAY-CARD REDEFINES PAY-DETAILS.',
        '               10  CARD-NUMBER PIC X(8).',
        '               10  CARD-EXPIRY PIC 9(4).',
        '           05  PAY-ACH REDEFINES PAY-DETAILS.',
        '               10  ACH-ROUTING PIC 9(9).',
      ].join('\n'),
    );
    // Without a mapping the first view is the JSON one; a JSON that names only the ACH view is encoded with it.
    const achJson = '{"payMethod":"A","payAch":{"achRouting":123456789}}';
    const ach = run(['copybook', 'encode', methods, '--profile', 'gnucobol'], achJson);
    assert.equal(ach.code, 0, ach.stderr);
    assert.equal(Buffer.from(ach.stdout.trim(), 'hex').toString('latin1'), 'A123456789   ');
    assert.match(run(['copybook', 'inspect', methods]).stdout, /PAY-ACH .*view not shown; encode takes "payAch" alone/);
    const both = run(['copybook', 'encode', methods], '{"payDetails":"x","payAch":{"achRouting":1}}');
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /payAch: is an alternative to payDetails: give one of payDetails, payCard, payAch/);

    const mapping = join(dir, 'method.mapping.json');
    const choice = { discriminator: 'PAY-METHOD', views: { C: 'PAY-CARD', A: 'PAY-ACH' } };
    writeFileSync(mapping, JSON.stringify({ redefines: { 'PAY-DETAILS': choice } }));
    const withMapping = ['--profile', 'gnucobol', '--mapping', mapping];
    const cardJson = '{"payCard":{"cardNumber":"41111111","cardExpiry":1228}}';
    const card = run(['copybook', 'encode', methods, ...withMapping], cardJson);
    assert.equal(card.code, 0, card.stderr);
    const decoded = run(['copybook', 'decode', methods, ...withMapping], card.stdout);
    assert.deepEqual(JSON.parse(decoded.stdout), {
      payMethod: 'C',
      payCard: { cardNumber: '41111111', cardExpiry: 1228 },
    });
    const achDecoded = run(['copybook', 'decode', methods, ...withMapping], ach.stdout);
    assert.deepEqual(JSON.parse(achDecoded.stdout), { payMethod: 'A', payAch: { achRouting: 123456789 } });
    const inspected = run(['copybook', 'inspect', methods, '--mapping', mapping]);
    assert.match(inspected.stdout, /view chosen by PAY-METHOD: 'C' PAY-CARD, 'A' PAY-ACH/);
  },
);

test('--empty-numeric: spaces in a numeric field decode to null, null encodes back; types say so', () => {
  const hex = (text: string) => Buffer.from(text).toString('hex');
  const record = `${hex('P1      ')}202020202020${hex('EUR0')}`;
  const refused = run(['copybook', 'decode', cpy, '--profile', 'gnucobol'], record);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /offset 13 \(PAY-AMOUNT\): invalid sign nibble 0 in packed decimal/);
  const dec = run(['copybook', 'decode', cpy, '--profile', 'gnucobol', '--empty-numeric', 'null'], record);
  assert.equal(dec.code, 0, dec.stderr);
  assert.equal(JSON.parse(dec.stdout).payAmount, null);
  const enc = run(['copybook', 'encode', cpy, '--profile', 'gnucobol', '--empty-numeric', 'null'], dec.stdout);
  assert.equal(enc.code, 0, enc.stderr);
  // LOW-VALUES is the filler null writes first
  assert.equal(enc.stdout, `${hex('P1      ')}000000000000${hex('EUR0')}\n`);
  const types = run(['copybook', 'types', cpy, '--empty-numeric', 'zero']);
  assert.match(types.stdout, /payAmount\?*: number;/);
  assert.match(run(['copybook', 'types', cpy, '--empty-numeric', 'null']).stdout, /payAmount: number \| null;/);
  const bad = run(['copybook', 'decode', cpy, '--empty-numeric', 'none'], record);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--empty-numeric must be one of error, null, zero \(got "none"\)/);
});

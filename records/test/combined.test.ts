/**
 * One copybook that uses COPY … REPLACING, SYNCHRONIZED, COMP-2, edited pictures, PIC N and RENAMES together,
 * under both profiles: the layout each profile gives it, the bytes of each construct, and the round trip.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCopybook, type CompileOptions } from '../src/index.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

const FILES: Record<string, string> = {
  ADDR: fixed('    10  :P:-STREET         PIC X(20).', '    10  :P:-CITY           PIC X(12).'),
};

const MAIN = fixed(
  '01  STATEMENT.',
  '    05  ST-ACCOUNT         PIC 9(8).',
  '    05  ST-HOLDER          PIC N(10).',
  '    05  ST-ADDRESS.',
  '        COPY ADDR REPLACING ==:P:== BY ==ST==.',
  '    05  ST-COUNT           PIC S9(4) COMP SYNC.',
  '    05  ST-RATE            COMP-2 SYNC.',
  '    05  ST-BALANCE-TEXT    PIC $$$,$$9.99CR.',
  '    05  ST-OPENED          PIC 9999/99/99.',
  '66  ST-WHERE RENAMES ST-STREET THRU ST-CITY.',
);

const value = {
  stAccount: 12345678,
  stHolder: 'Zoë Šimko',
  stAddress: { stStreet: '1 Long Lane', stCity: 'Praha' },
  stCount: -3,
  stRate: 0.0425,
  stBalanceText: -1234.5,
  stOpened: 20261128,
};

const compile = (options: CompileOptions) =>
  compileCopybook(MAIN, {
    ...options,
    fileName: 'MAIN.cpy',
    readCopybook: (name) => (FILES[name] === undefined ? undefined : { text: FILES[name], fileName: `${name}.cpy` }),
  });

for (const profile of ['zos', 'gnucobol'] as const) {
  test(`COPY, SYNC, COMP-2, edited pictures, PIC N and RENAMES in one record (${profile})`, () => {
    const layout = compile({ profile });
    const items = Object.fromEntries(layout.root.children!.map((c) => [c.cobolName, c]));
    // the halfword binary ends at 62: both rules put 2 slack bytes before the doubleword COMP-2
    assert.equal(items['ST-COUNT']!.offset, 60);
    assert.equal(items['ST-RATE']!.offset, 64);
    assert.equal(items['ST-RATE']!.slackBefore, 2);
    assert.equal(layout.maxLength, 94);
    assert.equal(items['ST-WHERE']!.offset, 28);
    assert.equal(items['ST-WHERE']!.length, 32);

    const bytes = layout.encode(value);
    assert.deepEqual(layout.decode(bytes), value);
    // PIC N: UTF-16BE, padded with national spaces
    assert.equal(bytes.subarray(8, 28).toString('hex'), '005a006f00eb002001600069006d006b006f0020');
    // the slack bytes hold LOW-VALUES
    assert.equal(bytes.subarray(62, 64).toString('hex'), '0000');
    const rate = bytes.subarray(64, 72).toString('hex');
    if (profile === 'zos') {
      // IBM HFP: exponent 0x3F (16^-1), fraction 0.68 = 0xAE147AE147AE14… rounded to 56 bits
      assert.equal(rate, '3fae147ae147ae18');
    } else {
      const ieee = Buffer.alloc(8);
      ieee.writeDoubleLE(0.0425);
      assert.equal(rate, ieee.toString('hex'));
      // the edited items: what cobc 3.1 displays after MOVE -1234.5 and MOVE 20261128 to these pictures
      assert.equal(bytes.subarray(72, 94).toString('latin1'), ' $1,234.50CR2026/11/28');
    }
    // the RENAMES view: decode shows it when the mapping selects it, encode takes it alone
    const renamed = compile({ profile, mapping: { renames: { 'ST-WHERE': true } } });
    assert.equal(renamed.decode(bytes).stWhere, '1 Long Lane         Praha');
    assert.deepEqual(layout.decode(layout.encode({ stWhere: '9 Short St          Brno' })).stAddress, {
      stStreet: '9 Short St',
      stCity: 'Brno',
    });
  });
}

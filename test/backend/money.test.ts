import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { fromMinorUnits, minorToDecimalString, MoneyFormatError, toMinorUnits } from '../../src/backend/money.ts';

test('decimal values convert to minor units exactly', () => {
  assert.equal(toMinorUnits(0.1), 10);
  assert.equal(toMinorUnits(100.25), 10_025);
  assert.equal(toMinorUnits('1899.00'), 189_900);
  assert.equal(toMinorUnits(-5), -500);
  assert.equal(toMinorUnits(9_999_999_999_999.99), 999_999_999_999_999);
  for (const bad of [10.123, '1e3', 'abc', '', null, Number.NaN])
    assert.throws(() => toMinorUnits(bad), MoneyFormatError);
});

test('minor units round-trip through the JSON number', () => {
  fc.assert(
    fc.property(fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }), (minor) => {
      assert.equal(toMinorUnits(fromMinorUnits(minor)), minor);
      assert.equal(toMinorUnits(minorToDecimalString(minor)), minor);
    }),
  );
  assert.equal(minorToDecimalString(5), '0.05');
  assert.equal(minorToDecimalString(-105), '-1.05');
});

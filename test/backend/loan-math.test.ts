import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { installmentFor, largestPrincipal } from '../../src/backend/loan-math.ts';
import { decideLoan } from '../../src/backend/programs/loan-decision.ts';

test('installments match exact decimal arithmetic (values checked independently)', () => {
  assert.equal(installmentFor(1_000_000, 690, 24), 44_727);
  assert.equal(installmentFor(2_000_000, 790, 72), 34_969);
  assert.equal(installmentFor(1_120_000, 1290, 12), 99_983);
  assert.equal(installmentFor(1_130_000, 1290, 12), 100_876);
});

test('largestPrincipal is the largest multiple of the step whose installment fits', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1_000, max: 500_000 }), fc.constantFrom(690, 890, 1290, 790, 990, 1390), fc.integer({ min: 6, max: 120 }), (limit, rate, n) => {
      const p = largestPrincipal(limit, rate, n, 10_000);
      assert.equal(p % 10_000, 0);
      if (p > 0) assert.ok(installmentFor(p, rate, n) <= limit);
      assert.ok(installmentFor(p + 10_000, rate, n) > limit);
    }),
    { numRuns: 300 },
  );
});

test('decisions: full, reduced, rejected by income, rejected by rating', () => {
  assert.deepEqual(decideLoan('A', 600_000, 1_000_000, 24), { status: 'APPROVED', reason: null, approved: 1_000_000, rateBp: 690, installment: 44_727 });
  assert.equal(decideLoan('B', 600_000, 1_000_000, 61).rateBp, 990);
  assert.equal(decideLoan('B', 600_000, 1_000_000, 60).rateBp, 890);
  const reduced = decideLoan('C', 250_000, 1_200_000, 12);
  assert.equal(reduced.status, 'APPROVED');
  assert.equal(reduced.approved, 1_120_000);
  assert.deepEqual(decideLoan('C', 250_000, 5_000_000, 12), { status: 'REJECTED', reason: 'INSUFFICIENT_INCOME', approved: 0, rateBp: 1290, installment: 0 });
  assert.equal(decideLoan('D', 10_000_000, 50_000, 12).reason, 'RISK_RATING');
  // Exactly 40 % is affordable.
  const exact = installmentFor(1_000_000, 690, 24);
  assert.equal(decideLoan('A', Math.ceil((exact * 100) / 40), 1_000_000, 24).approved, 1_000_000);
});

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
    fc.property(
      fc.integer({ min: 1_000, max: 500_000 }),
      fc.constantFrom(690, 890, 1290, 790, 990, 1390),
      fc.integer({ min: 6, max: 120 }),
      (limit, rate, n) => {
        const p = largestPrincipal(limit, rate, n, 10_000);
        assert.equal(p % 10_000, 0);
        if (p > 0) assert.ok(installmentFor(p, rate, n) <= limit);
        assert.ok(installmentFor(p + 10_000, rate, n) > limit);
      },
    ),
    { numRuns: 300 },
  );
});

test('at a 0 % rate the installment is principal / n and the largest principal is installment × n', () => {
  assert.equal(installmentFor(1_200_000, 0, 12), 100_000);
  assert.equal(largestPrincipal(100_000, 0, 12, 10_000), 1_200_000);
  assert.equal(largestPrincipal(99_999, 0, 12, 10_000), 1_190_000);
  assert.equal(largestPrincipal(0, 0, 12, 10_000), 0);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 500_000 }),
      fc.integer({ min: 1, max: 120 }),
      fc.constantFrom(1, 100, 10_000),
      (limit, n, step) => {
        const p = largestPrincipal(limit, 0, n, step);
        assert.equal(p % step, 0);
        assert.ok(p >= limit * n - ((limit * n) % step), 'at least installment × n, to the step');
        assert.ok(installmentFor(p, 0, n) <= limit);
        assert.ok(installmentFor(p + step, 0, n) > limit);
      },
    ),
    { numRuns: 300 },
  );
});

test('decisions: full, reduced, rejected by income, rejected by rating', () => {
  assert.deepEqual(decideLoan('A', 600_000, 1_000_000, 24), {
    status: 'APPROVED',
    reason: null,
    approved: 1_000_000,
    rateBp: 690,
    installment: 44_727,
  });
  assert.equal(decideLoan('B', 600_000, 1_000_000, 61).rateBp, 990);
  assert.equal(decideLoan('B', 600_000, 1_000_000, 60).rateBp, 890);
  const reduced = decideLoan('C', 250_000, 1_200_000, 12);
  assert.equal(reduced.status, 'APPROVED');
  assert.equal(reduced.approved, 1_120_000);
  // Every rejection offers nothing: no amount, no rate, no installment.
  assert.deepEqual(decideLoan('C', 250_000, 5_000_000, 12), {
    status: 'REJECTED',
    reason: 'INSUFFICIENT_INCOME',
    approved: 0,
    rateBp: 0,
    installment: 0,
  });
  assert.deepEqual(decideLoan('D', 10_000_000, 50_000, 12), {
    status: 'REJECTED',
    reason: 'RISK_RATING',
    approved: 0,
    rateBp: 0,
    installment: 0,
  });
  // Exactly 40 % is affordable.
  const exact = installmentFor(1_000_000, 690, 24);
  assert.equal(decideLoan('A', Math.ceil((exact * 100) / 40), 1_000_000, 24).approved, 1_000_000);
});

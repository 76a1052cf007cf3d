/**
 * Annuity arithmetic in exact integers: with r = rateBp / 120000 (rate in hundredths of a percent per
 * year, monthly), installment = P·r / (1 − (1 + r)^−n) = P·rateBp·q^n / (120000·(q^n − b^n)) where
 * q = 120000 + rateBp and b = 120000. BigInt keeps every step exact; rounding is half-up to cents.
 */
const BASE = 120_000n;

function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/** installment = round(P·k/d). */
function factors(rateBp: number, installments: number): { k: bigint; d: bigint } {
  const rate = BigInt(rateBp);
  const n = BigInt(installments);
  // No interest: P / n (the annuity formula's limit; as written it would be 0 / 0).
  if (rate === 0n) return { k: 1n, d: n };
  const grown = (BASE + rate) ** n;
  const base = BASE ** n;
  return { k: rate * grown, d: BASE * (grown - base) };
}

/** Monthly installment in minor units for a principal in minor units. */
export function installmentFor(principal: number, rateBp: number, installments: number): number {
  const { k, d } = factors(rateBp, installments);
  return Number(divRoundHalfUp(BigInt(principal) * k, d));
}

/**
 * The largest principal (minor units, a multiple of `step`) whose rounded installment does not exceed
 * `maxInstallment`. round(P·k/d) ≤ L ⇔ 2·P·k < (2L + 1)·d; at 0 % that is L·n, to the step (up to the
 * half cent per installment that rounding forgives).
 */
export function largestPrincipal(maxInstallment: number, rateBp: number, installments: number, step: number): number {
  const { k, d } = factors(rateBp, installments);
  const limit = (2n * BigInt(maxInstallment) + 1n) * d;
  let p = limit / (2n * k);
  if (2n * p * k >= limit) p -= 1n;
  let principal = Number(p - (p % BigInt(step)));
  while (principal > 0 && installmentFor(principal, rateBp, installments) > maxInstallment) principal -= step;
  return Math.max(principal, 0);
}

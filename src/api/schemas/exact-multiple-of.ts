/**
 * `multipleOf` with decimal semantics. Ajv divides binary floats, so `multipleOf: 0.01` refuses about one valid
 * amount in ten (123456.78 / 0.01 is not an integer in floating point). Amounts are decimals: a JSON number is
 * compared as the decimal the client wrote (its shortest round-trip form, as the record codec reads it), so
 * `multipleOf: 0.01` means exactly "at most two decimal places".
 */
import type { Ajv } from 'ajv';

/** `value` as an integer count of 10^-scale units, or null when it has more decimals than `scale`. */
function scaled(value: number, scale: number): bigint | null {
  const [mantissa = '', exponent = '0'] = String(value).toLowerCase().split('e');
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const shift = Number(exponent);
  const digits = whole + fraction;
  const decimals = fraction.length - shift;
  if (decimals > scale) {
    // Only zeros may be cut.
    if (/[^0]/.test(digits.slice(digits.length - (decimals - scale)))) return null;
    return BigInt(digits.slice(0, digits.length - (decimals - scale)) || '0') * (value < 0 ? -1n : 1n);
  }
  return BigInt(digits + '0'.repeat(scale - decimals)) * (value < 0 ? -1n : 1n);
}

function decimalPlaces(n: number): number {
  const [mantissa = '', exponent = '0'] = String(n).toLowerCase().split('e');
  return Math.max(0, (mantissa.split('.')[1] ?? '').length - Number(exponent));
}

export function isExactMultipleOf(value: number, step: number): boolean {
  if (!Number.isFinite(value)) return false;
  const scale = decimalPlaces(step);
  const v = scaled(value, scale);
  const s = scaled(step, scale);
  return v !== null && s !== null && s !== 0n && v % s === 0n;
}

/** What a client reads when a number has the wrong granularity. */
export function multipleOfMessage(step: number): string {
  const places = decimalPlaces(step);
  return places > 0 && scaled(step, places) === 1n
    ? `must have at most ${places} decimal place${places === 1 ? '' : 's'}`
    : `must be a multiple of ${step}`;
}

/** Fastify's `ajv.plugins` entry: replaces the float `multipleOf` of the request validator. */
export function exactMultipleOf(ajv: Ajv): Ajv {
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    errors: true,
    validate: function validate(step: number, value: number) {
      if (isExactMultipleOf(value, step)) return true;
      (validate as { errors?: unknown[] }).errors = [{ keyword: 'multipleOf', message: multipleOfMessage(step), params: { multipleOf: step } }];
      return false;
    },
  });
  return ajv;
}

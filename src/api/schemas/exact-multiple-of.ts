/**
 * `multipleOf` with decimal semantics: Ajv divides binary floats and refuses valid amounts such as 123456.78
 * for 0.01, so a JSON number is taken as the decimal the client wrote, as the record codec takes it.
 */
import type { Ajv } from 'ajv';
import type { DataValidateFunction } from 'ajv/dist/types/index.js';
import { numberToPlainString, RecordEncodeError, scaledInteger } from '@corebridge/records';

function decimalPlaces(n: number): number {
  return (numberToPlainString(n).split('.')[1] ?? '').length;
}

/** `value` × 10^scale as an exact integer, or null when it has more decimals than `scale`. */
function scaled(value: number, scale: number): bigint | null {
  try {
    return BigInt(scaledInteger(value, scale, ''));
  } catch (error) {
    if (error instanceof RecordEncodeError) return null;
    throw error;
  }
}

/** The test for one step, prepared once per schema. */
function multipleOfTest(step: number): (value: number) => boolean {
  const scale = decimalPlaces(step);
  const unit = scaled(step, scale);
  if (unit === null || unit <= 0n) throw new Error(`multipleOf must be a positive decimal, got ${step}`);
  return (value) => {
    const v = scaled(value, scale);
    return v !== null && v % unit === 0n;
  };
}

export function isExactMultipleOf(value: number, step: number): boolean {
  return multipleOfTest(step)(value);
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
    compile(step: number) {
      const holds = multipleOfTest(step);
      const error = { keyword: 'multipleOf', message: multipleOfMessage(step), params: { multipleOf: step } };
      const validate: DataValidateFunction = (value: number) => {
        const ok = holds(value);
        validate.errors = ok ? undefined : [error];
        return ok;
      };
      return validate;
    },
  });
  return ajv;
}

/**
 * Exact conversions between record decimals (JSON numbers or decimal strings with at most two
 * decimals) and integer minor units. No float arithmetic: values go through their decimal text.
 */
export class MoneyFormatError extends Error {}

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

export function toMinorUnits(value: unknown): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const match = DECIMAL.exec(text);
  if (!match) throw new MoneyFormatError(`not a decimal with at most two places: ${String(value)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const minor = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  if (!Number.isSafeInteger(minor)) throw new MoneyFormatError(`amount out of range: ${text}`);
  return sign === '-' ? -minor : minor;
}

/** Minor units → the decimal text "123.45". */
export function minorToDecimalString(minor: number): string {
  if (!Number.isSafeInteger(minor)) throw new MoneyFormatError(`not an integer amount: ${minor}`);
  const abs = Math.abs(minor);
  const whole = Math.trunc(abs / 100);
  const cents = abs % 100;
  return `${minor < 0 ? '-' : ''}${whole}.${String(cents).padStart(2, '0')}`;
}

/** Minor units → the JSON number whose shortest text is the exact decimal. */
export function fromMinorUnits(minor: number): number {
  return Number(minorToDecimalString(minor));
}

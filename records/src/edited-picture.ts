/**
 * Edited pictures, read into the positions of the item: numeric-edited (Z * + - CR DB, the currency sign,
 * B 0 / , . with V and P) and alphanumeric-edited (A X 9 with B 0 /). The editing itself is encodings/edited.ts.
 */

/** What picture.ts's EditedInfo holds for an edited picture. */
interface EditedInfo {
  kind: 'numeric' | 'alphanumeric';
  size: number;
  digits: number;
  scale: number;
  signed: boolean;
  normalized: string;
  edited: EditedPicture;
}

export interface EditingOptions {
  /** The currency symbol, in the picture and in the data (COBOL's CURRENCY SIGN); default `$`. */
  currencySign?: string;
  /** DECIMAL-POINT IS COMMA: `,` is the decimal point and `.` the grouping character. */
  decimalPointIsComma?: boolean;
}

/** One character position of an edited item. */
export type EditPosition =
  /** A digit: always shown (9), or suppressed while it is a leading zero (Z, *, a floating symbol). */
  | { role: 'digit'; suppress: '9' | 'Z' | '*' | 'float' }
  /** The first symbol of a floating string: holds no digit, only the floating symbol or a space. */
  | { role: 'head' }
  /** Simple insertion (B as a space, 0, /, the grouping character). */
  | { role: 'insert'; char: string }
  | { role: 'point'; char: string }
  | { role: 'currency'; char: string }
  /** A fixed sign: `+` shows + or −, `-` shows a space or −. */
  | { role: 'sign'; symbol: '+' | '-' }
  /** One character of CR or DB: shown when the value is negative, a space otherwise. */
  | { role: 'credit'; char: string }
  /** Alphanumeric-edited data position (A, X, 9). */
  | { role: 'data' };

export interface EditedPicture {
  type: 'numeric' | 'alphanumeric';
  positions: EditPosition[];
  /** Numeric: the floating symbol as written for a positive and a negative value, if the picture floats. */
  floating?: { positive: string; negative: string };
  /** Numeric: what replaces suppressed zeros and the insertions among them: `*` (check protection) or space. */
  pad: ' ' | '*';
  /** Numeric: every digit position is Z, * or floating (a zero value is then all spaces, or all `*`). */
  allSuppressed: boolean;
  /** Numeric: the first position of the suppression or floating string, -1 without one. */
  suppressFrom: number;
  /** Alphanumeric: how many data positions (characters of the JSON string) the item has. */
  dataLength: number;
}

const NOT_CURRENCY = 'ABCDEGNPRSUVXZ0123456789*+-,.;()"\'=/ ';

/** Why `currency` cannot be CURRENCY SIGN, or undefined when it can: one character, not a picture symbol. */
export function currencySignProblem(currency: string): string | undefined {
  if ([...currency].length === 1 && !NOT_CURRENCY.includes(currency) && !/[a-z]/.test(currency)) return undefined;
  return (
    `the currency sign "${currency}" must be one character, not a space, a lower-case letter or a picture ` +
    `symbol (${NOT_CURRENCY.trim()})`
  );
}

/** Whether a picture's symbols make it an edited picture. */
export function isEdited(symbols: string[], options: EditingOptions): boolean {
  const currency = options.currencySign ?? '$';
  return symbols.some((c) => 'ZB0/,.+-*CRD'.includes(c) || c === currency);
}

type Fail = (reason: string, unsupported?: boolean) => never;

/** Reads an edited picture into its positions, with the digits, scale and sign of the value it shows. */
export function analyzeEdited(symbols: string[], fail: Fail, options: EditingOptions): EditedInfo {
  const currency = options.currencySign ?? '$';
  const problem = currencySignProblem(currency);
  if (problem !== undefined) fail(problem);
  const comma = options.decimalPointIsComma === true;
  const pointSymbol = comma ? ',' : '.';
  const groupSymbol = comma ? '.' : ',';
  let syms = symbols;
  let credit: string | null = null;
  const tail = syms.slice(-2).join('');
  if (tail === 'CR' || tail === 'DB') {
    credit = tail;
    syms = syms.slice(0, -2);
  }
  if (syms.some((c) => 'CRD'.includes(c))) fail('CR and DB must end the picture');
  const normalized = runsOf(symbols, credit);
  if (syms.includes('X') || syms.includes('A')) return alphanumericEdited(syms, credit, normalized, fail);
  if (syms.includes('S')) fail('S cannot stand in an edited picture (the sign is +, -, CR or DB)');
  if (syms.includes('E')) fail('floating-point edited pictures (E) are not supported', true);
  const count = (c: string) => syms.filter((s) => s === c).length;
  const floats = [currency, '+', '-'].filter((c) => count(c) > 1);
  if (floats.length > 1) fail('only one floating insertion symbol ($, + or -) per picture');
  const floatSymbol = floats[0];
  const fixedSigns = ['+', '-'].filter((c) => c !== floatSymbol && count(c) > 0);
  const signs = fixedSigns.length + (floatSymbol === '+' || floatSymbol === '-' ? 1 : 0) + (credit ? 1 : 0);
  if (signs > 1 || fixedSigns.some((c) => count(c) > 1)) fail('a picture has one sign symbol: +, -, CR or DB');
  for (const c of fixedSigns) {
    const at = syms.indexOf(c);
    if (at !== 0 && at !== syms.length - 1) fail(`a fixed ${c} sign must be the first or the last symbol`);
  }
  if (count('Z') > 0 && count('*') > 0) fail('Z and * cannot both stand in a picture');
  if (floatSymbol !== undefined && count('Z') + count('*') > 0)
    fail('zero suppression (Z, *) and floating insertion cannot both stand in a picture');
  if (floatSymbol !== currency && count(currency) === 1) {
    const at = syms.indexOf(currency);
    if (!(at === 0 || (at === 1 && (syms[0] === '+' || syms[0] === '-'))))
      fail(`the currency sign must be the first symbol (or follow a leading + or -)`, true);
  }
  if (count('V') + count(pointSymbol) > 1) fail('a picture has one decimal point (V or the actual point)');

  const positions: EditPosition[] = [];
  /** Digit slots, P's included, and where the decimal point stands among them. */
  const slots: Array<'P' | 'digit'> = [];
  let pointSlot = -1;
  let headSeen = false;
  for (const c of syms) {
    if (c === '9' || c === 'Z' || c === '*') {
      positions.push({ role: 'digit', suppress: c });
      slots.push('digit');
    } else if (c === 'P') {
      slots.push('P');
    } else if (c === 'V') {
      pointSlot = slots.length;
    } else if (c === pointSymbol) {
      positions.push({ role: 'point', char: pointSymbol });
      pointSlot = slots.length;
    } else if (c === groupSymbol || c === 'B' || c === '0' || c === '/') {
      positions.push({ role: 'insert', char: c === 'B' ? ' ' : c });
    } else if (c === floatSymbol) {
      if (headSeen) {
        positions.push({ role: 'digit', suppress: 'float' });
        slots.push('digit');
      } else positions.push({ role: 'head' });
      headSeen = true;
    } else if (c === currency) {
      positions.push({ role: 'currency', char: currency });
    } else if (c === '+' || c === '-') {
      positions.push({ role: 'sign', symbol: c });
    } else {
      fail(`"${c}" cannot stand in a numeric-edited picture`);
    }
  }
  if (credit) for (const ch of credit) positions.push({ role: 'credit', char: ch });

  const digitKinds = positions.flatMap((p) => (p.role === 'digit' ? [p.suppress] : []));
  if (digitKinds.length === 0) fail('a numeric-edited picture needs a digit position (9, Z, * or a floating symbol)');
  const firstNine = digitKinds.indexOf('9');
  if (firstNine >= 0 && digitKinds.slice(firstNine).some((k) => k !== '9'))
    fail('Z, * and floating symbols must stand left of the 9s');
  const allSuppressed = firstNine < 0;
  const pointAt = positions.findIndex((p) => p.role === 'point');
  const pointIndex = pointAt >= 0 ? pointAt : -1;
  if (!allSuppressed && pointIndex >= 0) {
    const after = positions.slice(pointIndex).some((p) => p.role === 'digit' && p.suppress !== '9');
    if (after) fail('Z, * or floating symbols right of the decimal point need every digit position to be one');
  }
  if (syms.includes('V') && !allSuppressed) {
    // with V the point is not a position: the suppressible digits must end before it, as above
    const vSlot = pointSlot;
    let seen = 0;
    for (const p of positions) {
      if (p.role !== 'digit') continue;
      if (seen >= vSlot && p.suppress !== '9')
        fail('Z, * or floating symbols right of V need every digit position to be one');
      seen++;
    }
  }

  // P scaling: the P's together, at one end of the digit slots
  const firstP = slots.indexOf('P');
  if (firstP >= 0) {
    const lastP = slots.lastIndexOf('P');
    if (slots.slice(firstP, lastP + 1).some((s) => s !== 'P')) fail('the P symbols must be together');
    if (firstP !== 0 && lastP !== slots.length - 1) fail('P must stand at the left or the right end of the digits');
  }
  if (pointSlot < 0) pointSlot = firstP === 0 && slots.length > 0 && slots.at(-1) !== 'P' ? 0 : slots.length;
  if (firstP === 0 && pointSlot > 0 && slots.at(-1) !== 'P')
    fail('leading P symbols must stand right of the decimal point');
  const lastDigit = slots.lastIndexOf('digit');
  const scale = lastDigit < pointSlot ? -(pointSlot - lastDigit - 1) : lastDigit - pointSlot + 1;
  const digits = digitKinds.length;
  if (slots.length > 31) fail('more than 31 digit positions', true);

  const suppressFrom = positions.findIndex((p) => p.role === 'head' || (p.role === 'digit' && p.suppress !== '9'));
  let floating: EditedPicture['floating'];
  if (floatSymbol === '+') floating = { positive: '+', negative: '-' };
  else if (floatSymbol === '-') floating = { positive: ' ', negative: '-' };
  else if (floatSymbol !== undefined) floating = { positive: currency, negative: currency };
  const edited: EditedPicture = {
    type: 'numeric',
    positions,
    pad: count('*') > 0 ? '*' : ' ',
    allSuppressed,
    suppressFrom,
    dataLength: 0,
    ...(floating ? { floating } : {}),
  };
  const signed = signs > 0;
  return { kind: 'numeric', size: positions.length, digits, scale, signed, normalized, edited };
}

function alphanumericEdited(syms: string[], credit: string | null, normalized: string, fail: Fail): EditedInfo {
  if (credit) fail('CR and DB stand in numeric-edited pictures only');
  const positions: EditPosition[] = syms.map((c) => {
    if (c === 'X' || c === 'A' || c === '9') return { role: 'data' };
    if (c === 'B' || c === '0' || c === '/') return { role: 'insert', char: c === 'B' ? ' ' : c };
    return fail(`"${c}" cannot stand in an alphanumeric-edited picture (A, X, 9, B, 0, /)`);
  });
  const dataLength = positions.filter((p) => p.role === 'data').length;
  const edited: EditedPicture = {
    type: 'alphanumeric',
    positions,
    pad: ' ',
    allSuppressed: false,
    suppressFrom: -1,
    dataLength,
  };
  return { kind: 'alphanumeric', size: positions.length, digits: 0, scale: 0, signed: false, normalized, edited };
}

/** The picture with repetitions folded: `ZZZ,ZZ9.99CR` → `Z(3),Z(2)9.9(2)CR`. */
function runsOf(symbols: string[], credit: string | null): string {
  const body = credit ? symbols.slice(0, -2) : symbols;
  let out = '';
  for (let i = 0; i < body.length;) {
    let j = i;
    while (j < body.length && body[j] === body[i]) j++;
    out += j - i === 1 ? body[i] : `${body[i]}(${j - i})`;
    i = j;
  }
  return out + (credit ?? '');
}

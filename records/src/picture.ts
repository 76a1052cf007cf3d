import { CopybookError } from './errors.ts';
import { analyzeEdited, isEdited, type EditedPicture, type EditingOptions } from './edited-picture.ts';

export type { EditedPicture, EditingOptions } from './edited-picture.ts';

export interface PictureInfo {
  kind: 'alphanumeric' | 'alphabetic' | 'numeric' | 'national';
  /** Characters (alphanumeric) or digits (numeric). */
  size: number;
  digits: number;
  scale: number;
  signed: boolean;
  /** Normalised text, e.g. `S9(7)V9(2)`. */
  normalized: string;
  /** PIC G: double-byte characters, `size` of them (2 bytes each). */
  dbcs?: true;
  /**
   * Numeric pictures: the value is the stored digits × 10^-scale. P scaling makes scale negative (`9(3)PPP`:
   * −3) or larger than digits (`PPP9(3)`: 6). Edited pictures: the positions of the item (size is its length).
   */
  edited?: EditedPicture;
}

export const MAX_DIGITS = 31;

/** Reads a PICTURE string: X, A, 9, S, V, P with repetition counts, and the editing symbols. */
export function analyzePicture(
  text: string,
  where: { fileName: string; line: number; column: number },
  editing: EditingOptions = {},
): PictureInfo {
  const fail = (reason: string, unsupported = false): never => {
    throw new CopybookError(`PIC ${text}: ${reason}`, where, unsupported);
  };
  const symbols: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    let count = 1;
    if (text[i + 1] === '(') {
      const close = text.indexOf(')', i + 2);
      const n = close < 0 ? '' : text.slice(i + 2, close);
      if (!/^\d+$/.test(n) || Number(n) < 1) fail('invalid repetition count');
      count = Number(n);
      i = close;
    }
    if (count > 1_000_000) fail('repetition count too large');
    for (let k = 0; k < count; k++) symbols.push(c);
  }
  if (isEdited(symbols, editing)) return analyzeEdited(symbols, fail, editing);
  const counts = new Map<string, number>();
  for (const s of symbols) counts.set(s, (counts.get(s) ?? 0) + 1);
  for (const s of counts.keys()) {
    if (s === 'E') fail('floating-point edited pictures (E) are not supported', true);
    if (!'SV9XAPGN'.includes(s)) fail(`"${s}" is not a picture symbol`);
  }
  const g = counts.get('G') ?? 0;
  if (g > 0) {
    if (g !== symbols.length) fail('G (double-byte characters) cannot be mixed with other symbols', true);
    return { kind: 'alphanumeric', size: g, digits: 0, scale: 0, signed: false, normalized: runs(symbols), dbcs: true };
  }
  const national = counts.get('N') ?? 0;
  if (national > 0 && national < symbols.length) fail('N cannot be mixed with other symbols');
  if (national > 0)
    return { kind: 'national', size: national, digits: 0, scale: 0, signed: false, normalized: runs(symbols) };
  const x = counts.get('X') ?? 0;
  const a = counts.get('A') ?? 0;
  const nines = counts.get('9') ?? 0;
  const s = counts.get('S') ?? 0;
  const v = counts.get('V') ?? 0;
  if (x > 0 || a > 0) {
    if (s > 0 || v > 0) fail('S and V are only allowed in numeric pictures');
    if (counts.has('P')) fail('P is only allowed in numeric pictures');
    const kind = x === 0 && nines === 0 ? 'alphabetic' : 'alphanumeric';
    const sym = kind === 'alphabetic' ? 'A' : 'X';
    return {
      kind,
      size: symbols.length,
      digits: 0,
      scale: 0,
      signed: false,
      normalized: runs(kind === 'alphanumeric' && x === symbols.length ? symbols : symbols.map(() => sym)),
    };
  }
  if (nines === 0) fail('a numeric picture needs at least one 9');
  if (s > 1 || (s === 1 && symbols[0] !== 'S')) fail('S must appear once, first');
  if (v > 1) fail('V may appear only once');
  const ps = counts.get('P') ?? 0;
  if (nines + ps > MAX_DIGITS) fail(`more than ${MAX_DIGITS} digit positions`, true);
  const vAt = symbols.indexOf('V');
  let scale = vAt < 0 ? 0 : symbols.length - vAt - 1;
  if (ps > 0) scale = pScale(symbols, fail);
  return { kind: 'numeric', size: nines, digits: nines, scale, signed: s === 1, normalized: runs(symbols) };
}

/**
 * The scale of a picture with P: its P's stand for zero digits either left of the 9's, after the (assumed)
 * decimal point (`PPP999`, `VPP9`: scale = P's + 9's), or right of them before it (`999PPP`: scale = −P's).
 */
export function pScale(symbols: string[], fail: (reason: string) => never): number {
  const digits = symbols.filter((c) => c !== 'S');
  const first = digits.indexOf('P');
  const last = digits.lastIndexOf('P');
  const count = last - first + 1;
  if (digits.slice(first, last + 1).some((c) => c !== 'P')) fail('the P symbols must be together');
  const nines = digits.filter((c) => c === '9').length;
  const vAt = digits.indexOf('V');
  if (digits.slice(0, first).every((c) => c === 'V')) {
    // P left of the 9's: a V, if any, stands before the P's
    if (vAt > first) fail('a V must stand left of leading P symbols');
    return count + nines;
  }
  if (digits.slice(last + 1).some((c) => c === '9')) fail('P must stand at the left or the right end of the digits');
  if (vAt >= 0 && vAt < first) fail('a V must stand right of trailing P symbols');
  return -count;
}

export function runs(symbols: string[]): string {
  let out = '';
  for (let i = 0; i < symbols.length;) {
    let j = i;
    while (j < symbols.length && symbols[j] === symbols[i]) j++;
    const n = j - i;
    out += n === 1 ? symbols[i] : `${symbols[i]}(${n})`;
    i = j;
  }
  return out;
}

import { CopybookError } from './errors.ts';

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
}

export const MAX_DIGITS = 31;

/** Reads a PICTURE string: X, A, 9, S, V with repetition counts. Editing symbols and P are refused. */
export function analyzePicture(text: string, where: { fileName: string; line: number; column: number }): PictureInfo {
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
  const counts = new Map<string, number>();
  for (const s of symbols) counts.set(s, (counts.get(s) ?? 0) + 1);
  for (const s of counts.keys()) {
    if (s === 'P') fail('the scaling symbol P is not supported', true);
    if ('ZB0/,.+-CRD$*E'.includes(s)) fail(`symbol "${s}" (numeric-edited pictures) is not supported`, true);
    if (!'SV9XAGN'.includes(s)) fail(`"${s}" is not a picture symbol`);
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
  if (nines > MAX_DIGITS) fail(`more than ${MAX_DIGITS} digits`, true);
  const vAt = symbols.indexOf('V');
  const scale = vAt < 0 ? 0 : symbols.length - vAt - 1;
  return { kind: 'numeric', size: nines, digits: nines, scale, signed: s === 1, normalized: runs(symbols) };
}

function runs(symbols: string[]): string {
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

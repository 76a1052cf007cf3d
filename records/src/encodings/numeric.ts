/** What every numeric encoding shares: the spec's numeric part and the checks a value passes before it is written. */
import { RecordEncodeError, type EncodeLimit } from '../errors.ts';
import { fitsDigits, pictureMax, POW10, scaledInteger } from '../decimal.ts';

export interface NumberSpec {
  digits: number;
  scale: number;
  signed: boolean;
  /** Decode to a decimal string (more than 15 digits) instead of a number. */
  asString: boolean;
  /** Picture text for messages. */
  picture: string;
}

/** The value × 10^scale, refused when its sign or digits do not fit the picture. */
export function checkedScaled(s: NumberSpec, v: unknown, path: string): number | bigint {
  if (typeof v === 'number' && s.scale >= 0 && s.scale < POW10.length) {
    // the common case in one step: a number that scales exactly to an integer the picture holds
    const p = POW10[s.scale]!;
    const r = Math.round(v * p);
    if (r / p === v && (s.signed ? Math.abs(r) : r) < POW10[Math.min(s.digits, 15)]! && (s.signed || r >= 0)) {
      return r === 0 ? 0 : r;
    }
  }
  const n = scaledInteger(v, s.scale, path);
  if (!s.signed && n < 0) {
    const reason = `negative value ${String(v)} into an unsigned field (PIC ${s.picture})`;
    throw new RecordEncodeError(path, reason, range(s));
  }
  if (!fitsDigits(n, s.digits)) {
    const most = `${s.signed ? '±' : ''}${pictureMax(s.digits, s.scale)}`;
    const reason = `${String(v)} has too many digits for PIC ${s.picture} (at most ${most})`;
    throw new RecordEncodeError(path, reason, range(s));
  }
  return n;
}

function range(s: NumberSpec): EncodeLimit {
  const max = pictureMax(s.digits, s.scale);
  return { kind: 'range', min: s.signed ? `-${max}` : '0', max };
}

/** A byte as two hex digits, for messages. */
export function hex(byte: number | undefined): string {
  return (byte ?? 0).toString(16).padStart(2, '0');
}

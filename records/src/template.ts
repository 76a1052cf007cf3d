/** The record template of defaults and VALUEs that every encode starts from, and the JSON a VALUE stands for. */
import { charTable, type CharTable } from './charsets.ts';
import { CopybookError, RecordEncodeError } from './errors.ts';
import { nationalValue } from './encodings/national.ts';
import { putMixed } from './encodings/mixed.ts';
import { putText } from './encodings/text.ts';
import type { Node } from './layout.ts';
import type { Literal } from './parser.ts';
import { decodesAsString, fieldSpec, putField } from './specs.ts';
import type { PlatformProfile } from './types.ts';

function literalFail(n: Node, reason: string): never {
  const e = n.entry;
  throw new CopybookError(`VALUE of ${n.name}: ${reason}`, { fileName: '', line: e.line, column: e.column });
}

/** Fills bytes for a figurative constant or a literal in an alphanumeric area (group or elementary). */
function fillText(buf: Buffer, off: number, length: number, lit: Literal, table: CharTable, n: Node): void {
  if (lit.kind === 'figurative') {
    const byteOf = {
      ZERO: table.zero,
      SPACE: table.space,
      'HIGH-VALUE': 0xff,
      'LOW-VALUE': 0x00,
      QUOTE: table.encode[34]!,
    };
    buf.fill(byteOf[lit.name], off, off + length);
    return;
  }
  if (lit.kind === 'number') literalFail(n, 'a numeric literal cannot initialise an alphanumeric item');
  if (lit.kind === 'national') literalFail(n, 'a national literal (N"…", NX"…") initialises PIC N items only');
  const bytes = lit.kind === 'hex' ? Buffer.from(lit.text, 'hex') : null;
  const len = bytes ? bytes.length : lit.text.length;
  if (len > length) literalFail(n, `the literal is ${len} characters long; the item holds ${length}`);
  buf.fill(table.space, off, off + length);
  if (bytes) bytes.copy(buf, off);
  else {
    try {
      // VALUE ignores JUSTIFIED: the literal is stored left-justified, as COBOL does
      const put = table.dbcs ? putMixed : putText;
      put(buf, off, { length, table, justifiedRight: false, alphabetic: false }, lit.text, '');
    } catch (e) {
      literalFail(n, e instanceof RecordEncodeError ? e.reason : String(e));
    }
  }
}

const numericLiteral = (lit: Literal) => lit.kind === 'number' || (lit.kind === 'figurative' && lit.name === 'ZERO');

/** The JSON value a VALUE literal stands for (used as the default in the JSON Schema). */
export function literalJson(n: Node): string | number | undefined {
  const lit = n.entry.value;
  if (lit === undefined) return undefined;
  // an edited item's alphanumeric VALUE is its edited text, not the JSON value
  if (n.picture?.edited && !(n.kind === 'numeric' && numericLiteral(lit))) return undefined;
  if (n.kind === 'numeric') {
    if (lit.kind === 'figurative' && lit.name === 'ZERO') return 0;
    return lit.kind === 'number' ? (decodesAsString(n) ? lit.text : Number(lit.text)) : undefined;
  }
  if (lit.kind === 'string' || lit.kind === 'national') return lit.text.replace(/ +$/, '');
  if (lit.kind === 'figurative' && lit.name === 'SPACE') return '';
  return undefined;
}

/**
 * The record with every item at its VALUE or default (spaces, zero), FILLER included, every table at its
 * maximum: what COBOL's INITIALIZE … WITH FILLER ALL TO VALUE THEN TO DEFAULT leaves. Encode starts from it.
 */
export function buildTemplate(root: Node, maxLength: number, profile: PlatformProfile, fileName: string): Buffer {
  const buf = Buffer.alloc(maxLength);
  const table = charTable(profile.charset);
  const at = (n: Node) => ({ fileName, line: n.entry.line, column: n.entry.column });
  const visit = (n: Node, base: number, inRedefines: boolean) => {
    // a level-66 item names bytes its renamed items initialise
    if (n.renames) return;
    const count = n.occurs?.max ?? 1;
    const redefining = inRedefines || n.redefines !== undefined;
    if (redefining && n.entry.value !== undefined) {
      throw new CopybookError(`${n.name}: VALUE is not allowed in or under a REDEFINES item`, at(n));
    }
    for (let k = 0; k < count; k++) {
      const off = base + k * n.length;
      if (n.children.length > 0) {
        const lit = n.entry.value;
        if (lit !== undefined) {
          for (const d of descendants(n)) {
            if (d.entry.value !== undefined) {
              throw new CopybookError(`${d.name}: VALUE inside group ${n.name}, which has a VALUE itself`, at(d));
            }
          }
          wrap(fileName, () => fillText(buf, off, n.length, lit, table, n));
          continue;
        }
        // views that redefine an area are visited for their checks only: the base view initialises the bytes
        for (const c of n.children) visit(c, off + (c.offset - n.offset), redefining);
        continue;
      }
      if (redefining) continue;
      wrap(fileName, () => initElementary(buf, off, n, profile));
    }
  };
  visit(root, 0, false);
  return buf;
}

function* descendants(n: Node): Generator<Node> {
  for (const c of n.children) {
    yield c;
    yield* descendants(c);
  }
}

/** Puts the file name into a CopybookError raised where it is not known. */
function wrap(fileName: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof CopybookError && e.fileName === '') {
      throw new CopybookError(e.reason, { fileName, line: e.line, column: e.column });
    }
    throw e;
  }
}

function initElementary(buf: Buffer, off: number, n: Node, profile: PlatformProfile): void {
  const lit = n.entry.value;
  const f = fieldSpec(n, profile);
  if (f.type === 'national') {
    const value = lit === undefined ? '' : nationalValue(lit, f.spec.length);
    if (typeof value !== 'string') literalFail(n, value.error);
    try {
      // VALUE ignores JUSTIFIED, as for alphanumeric items
      putField(buf, off, { type: 'national', spec: { ...f.spec, justifiedRight: false } }, value, '');
    } catch (e) {
      literalFail(n, e instanceof RecordEncodeError ? e.reason : String(e));
    }
    return;
  }
  if (f.type === 'dbcs') {
    if (lit !== undefined && !(lit.kind === 'figurative' && lit.name === 'SPACE')) {
      literalFail(n, 'a PIC G item takes VALUE SPACES only');
    }
    putField(buf, off, f, '', '');
    return;
  }
  if (f.type === 'text' || f.type === 'mixed') {
    if (lit === undefined) buf.fill(f.spec.table.space, off, off + n.length);
    else fillText(buf, off, n.length, lit, f.spec.table, n);
    return;
  }
  let value: string | number = 0;
  if (f.type === 'edited' && (lit === undefined ? f.spec.edit.type === 'alphanumeric' : !numericLiteral(lit))) {
    // an edited item's VALUE is stored as written; without one, the item holds what MOVE SPACES/ZERO gives
    if (lit === undefined) putField(buf, off, f, '', '');
    else fillText(buf, off, n.length, lit, f.spec.table, n);
    return;
  }
  if (lit !== undefined) {
    if (lit.kind === 'number') value = lit.text;
    else if (!(lit.kind === 'figurative' && lit.name === 'ZERO')) {
      literalFail(n, 'a numeric item needs a numeric literal or ZERO');
    }
  }
  try {
    putField(buf, off, f, value, '');
  } catch (e) {
    literalFail(n, e instanceof RecordEncodeError ? e.reason : String(e));
  }
}

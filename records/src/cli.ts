/**
 * The copybook command line: `corebridge-copybook inspect|types|encode|decode` (this package's bin) and the service's
 * `corebridge copybook …`, which runs the same function.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  CHARSETS,
  charsetNamed,
  compileCopybook,
  layoutItems,
  type CompileOptions,
  type CompiledLayout,
  type LayoutItem,
} from './index.ts';
import { layoutTypeScript } from './typescript.ts';

/** The streams a command reads and writes, so a caller (or a test) can run it in-process. */
export interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** A failure the user can act on: printed as one line, without a stack trace, and exited with `exitCode`. */
export class UsageError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = exitCode;
  }
}

// help lines are printed as written, so some run past 120 characters
export const COPYBOOK_OPTIONS = `  --profile zos|gnucobol        platform profile (default zos: EBCDIC cp1140, binary 2/4/8 bytes)
  --encoding ascii|latin1|cpNNN  an EBCDIC code page: cp037, cp273, cp1047, cp1140…cp1149, cp930, cp939… (see the README)
  --binary-sizes ibm|gnucobol   --comp5-byte-order big|little   --zoned-sign ebcdic|ascii
  --float-format hfp|ieee-big|ieee-little   --float-rounding exact|nearest   (COMP-1/COMP-2)
  --pointer-size 4|8            --sync-alignment ibm|gnucobol   (POINTER size; SYNCHRONIZED boundaries)
  --format fixed|free|auto      --record NAME (when the copybook has several 01 records)
  --empty-numeric error|null|zero   numeric fields holding only LOW-VALUES, HIGH-VALUES or spaces (default error);
                                per field or group: "emptyNumeric": {"COBOL-NAME": "null"} in the mapping
  --copybook-path DIR            where COPY looks after the copybook's own directory (repeatable; then $COBCPY's directories)
  --currency-sign C             the currency symbol of edited pictures (default $)   --decimal-point-is-comma
  --mapping FILE.json           {"fields": {"COBOL-NAME": "jsonName" | false}, "redefines": {"BASE": "VIEW"}}
                                a field's own code page: "encodings": {"COBOL-NAME": "cp273"}
                                or views by a discriminator: "redefines": {"BASE": {"discriminator": "NAME", "views": {"C": "VIEW"}}}
`;

/** The usage text, naming the command as the user typed it. */
export function copybookUsage(program = 'corebridge copybook'): string {
  return `usage: ${program} inspect FILE.cpy [--json | --json-schema]   fields: JSON path, COBOL name, offset, length, usage/picture
       ${program} inspect FILE.cpy --codegen                 the generated encoder and decoder (JavaScript)
       ${program} types   FILE.cpy                            TypeScript interface of the record's JSON form
       ${program} encode  FILE.cpy [--binary]                 JSON on stdin → record (lowercase hex, or raw with --binary)
       ${program} decode  FILE.cpy [--binary]                 record (hex, or raw with --binary) on stdin → JSON

Options:
${COPYBOOK_OPTIONS}`;
}

export const COPYBOOK_USAGE = copybookUsage();

/** The options that say how to compile a copybook, shared with `corebridge dataset`. */
export const COMPILE_OPTIONS = {
  profile: { type: 'string' },
  encoding: { type: 'string' },
  'binary-sizes': { type: 'string' },
  'comp5-byte-order': { type: 'string' },
  'float-format': { type: 'string' },
  'float-rounding': { type: 'string' },
  'pointer-size': { type: 'string' },
  'sync-alignment': { type: 'string' },
  'zoned-sign': { type: 'string' },
  'empty-numeric': { type: 'string' },
  format: { type: 'string' },
  record: { type: 'string' },
  mapping: { type: 'string' },
  'copybook-path': { type: 'string', multiple: true },
  'currency-sign': { type: 'string' },
  'decimal-point-is-comma': { type: 'boolean' },
} as const;

const OPTIONS = {
  ...COMPILE_OPTIONS,
  binary: { type: 'boolean' },
  json: { type: 'boolean' },
  'json-schema': { type: 'boolean' },
  codegen: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

/** COBCPY, as cobc reads it: directories separated by the platform's path delimiter. */
function copybookPathFromEnv(value: string | undefined): string[] {
  return (value ?? '').split(process.platform === 'win32' ? ';' : ':').filter((d) => d !== '');
}

async function readStdin(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export async function copybookCommand(argv: string[], io: Io, program = 'corebridge copybook'): Promise<number> {
  const usage = copybookUsage(program);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${usage}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(usage);
    return 0;
  }
  const [action, file, ...extra] = positionals;
  if (action !== 'inspect' && action !== 'types' && action !== 'encode' && action !== 'decode') {
    const got = action ? ` (got "${action}")` : '';
    throw new UsageError(`copybook needs inspect, types, encode or decode${got}\n\n${usage}`);
  }
  if (file === undefined) throw new UsageError(`copybook ${action} needs a copybook file\n\n${usage}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);

  const layout = await compileFromArgs(file, values);

  if (action === 'inspect') {
    if (values.json && values['json-schema']) throw new UsageError('choose one of --json and --json-schema');
    if (values.codegen && (values.json || values['json-schema'])) {
      throw new UsageError('choose one of --codegen, --json and --json-schema');
    }
    const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
    if (values.codegen) io.stdout.write(layout.codecSource());
    else if (values['json-schema']) io.stdout.write(json(layout.jsonSchema({ annotate: true })));
    else if (values.json) io.stdout.write(json(layoutJson(layout)));
    else io.stdout.write(inspectTable(layout));
    return 0;
  }
  if (action === 'types') {
    io.stdout.write(layoutTypeScript(layout.jsonSchema()));
    return 0;
  }

  const input = await readStdin(io.stdin);
  if (action === 'encode') {
    let json: unknown;
    try {
      json = JSON.parse(input.toString('utf8'));
    } catch (e) {
      throw new UsageError(`stdin is not valid JSON: ${(e as Error).message}`, 1);
    }
    const bytes = layout.encode(json);
    if (values.binary) io.stdout.write(bytes);
    else io.stdout.write(`${bytes.toString('hex')}\n`);
    return 0;
  }

  let bytes: Buffer;
  if (values.binary) bytes = input;
  else {
    const hex = input.toString('latin1').replace(/\s+/g, '');
    if (!/^([0-9a-fA-F]{2})*$/.test(hex)) {
      const bad = hex.search(/[^0-9a-fA-F]/);
      const reason = bad >= 0 ? `"${hex[bad]}" at character ${bad}` : 'odd number of digits';
      throw new UsageError(`stdin is not hex: ${reason}`, 1);
    }
    bytes = Buffer.from(hex, 'hex');
  }
  io.stdout.write(`${JSON.stringify(layout.decode(bytes), null, 2)}\n`);
  return 0;
}

/** The compile options the copybook commands share, as `parseArgs` gives them. */
export type CompileArgs = Partial<
  Record<Exclude<keyof typeof COMPILE_OPTIONS, 'copybook-path' | 'decimal-point-is-comma'>, string>
> & {
  'copybook-path'?: string[] | undefined;
  'decimal-point-is-comma'?: boolean | undefined;
};

/**
 * Reads and compiles the copybook `file` with the options of the command line; errors are `UsageError`s.
 * `extra.redefines` adds views to show to the mapping's (a segment that is a REDEFINES view).
 */
export async function compileFromArgs(
  file: string,
  values: CompileArgs,
  extra: { redefines?: Record<string, string> | undefined } = {},
): Promise<CompiledLayout> {
  const options: CompileOptions & { record?: string } = { fileName: file };
  const profile = oneOf('profile', values.profile, ['zos', 'gnucobol'] as const);
  if (profile) options.profile = profile;
  if (values.encoding !== undefined) {
    const encoding = charsetNamed(values.encoding);
    if (!encoding) throw new UsageError(`--encoding must be one of ${CHARSETS.join(', ')} (got "${values.encoding}")`);
    options.encoding = encoding;
  }
  const binarySizes = oneOf('binary-sizes', values['binary-sizes'], ['ibm', 'gnucobol'] as const);
  if (binarySizes) options.binarySizes = binarySizes;
  const order = oneOf('comp5-byte-order', values['comp5-byte-order'], ['big', 'little'] as const);
  if (order) options.comp5ByteOrder = order;
  const floatFormat = oneOf('float-format', values['float-format'], ['hfp', 'ieee-big', 'ieee-little'] as const);
  if (floatFormat) options.floatFormat = floatFormat;
  const floatRounding = oneOf('float-rounding', values['float-rounding'], ['exact', 'nearest'] as const);
  if (floatRounding) options.floatRounding = floatRounding;
  const pointerSize = oneOf('pointer-size', values['pointer-size'], ['4', '8'] as const);
  if (pointerSize) options.pointerSize = pointerSize === '4' ? 4 : 8;
  const syncAlignment = oneOf('sync-alignment', values['sync-alignment'], ['ibm', 'gnucobol'] as const);
  if (syncAlignment) options.syncAlignment = syncAlignment;
  const zonedSign = oneOf('zoned-sign', values['zoned-sign'], ['ebcdic', 'ascii'] as const);
  if (zonedSign) options.zonedSign = zonedSign;
  const emptyNumeric = oneOf('empty-numeric', values['empty-numeric'], ['error', 'null', 'zero'] as const);
  if (emptyNumeric) options.emptyNumeric = emptyNumeric;
  const format = oneOf('format', values.format, ['fixed', 'free', 'auto'] as const);
  if (format) options.format = format;
  if (values.record) options.record = values.record;
  options.copybookPath = [...(values['copybook-path'] ?? []), ...copybookPathFromEnv(process.env.COBCPY)];
  if (values['currency-sign'] !== undefined) options.currencySign = values['currency-sign'];
  if (values['decimal-point-is-comma']) options.decimalPointIsComma = true;
  if (values.mapping) {
    try {
      options.mapping = JSON.parse(await readFile(values.mapping, 'utf8'));
    } catch (e) {
      throw new UsageError(`cannot read mapping ${values.mapping}: ${(e as Error).message}`, 1);
    }
  }
  if (extra.redefines)
    options.mapping = { ...options.mapping, redefines: { ...options.mapping?.redefines, ...extra.redefines } };

  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new UsageError(`cannot read ${file}: ${reason}`, 1);
  }
  return compileCopybook(source, options);
}

function layoutJson(layout: CompiledLayout) {
  const { name, profile, minLength, maxLength, root } = layout;
  return { name, profile, minLength, maxLength, root };
}

function usageText(item: LayoutItem): string {
  if (item.kind === 'group') return 'group';
  const usage = {
    display: 'DISPLAY',
    binary: 'COMP',
    'comp-5': 'COMP-5',
    'packed-decimal': 'COMP-3',
    national: 'NATIONAL',
    'display-1': 'DISPLAY-1',
    'comp-1': 'COMP-1',
    'comp-2': 'COMP-2',
    index: 'INDEX',
    pointer: 'POINTER',
  }[item.usage];
  if (item.picture === undefined) return item.synchronized ? `${usage} SYNC` : usage;
  let sign = '';
  if (item.sign && (item.sign.position === 'leading' || item.sign.separate)) {
    sign = ` SIGN ${item.sign.position.toUpperCase()}${item.sign.separate ? ' SEPARATE' : ''}`;
  }
  return `${usage} ${item.picture}${sign}${item.synchronized ? ' SYNC' : ''}`;
}

function occursText(item: LayoutItem): string {
  const o = item.occurs;
  if (!o) return '';
  return o.dependingOn ? `${o.min} TO ${o.max} DEPENDING ON ${o.dependingOn}` : `${o.max}`;
}

/** A row for slack bytes SYNCHRONIZED inserts: in the record, never in JSON. */
function slackRow(offset: number, length: number, depth: number, where = ''): string[] {
  const note = `slack bytes (LOW-VALUES), not in JSON${where === '' ? '' : `; ${where}`}`;
  return ['-', '', `${'  '.repeat(depth)}(slack)`, String(offset), String(length), '', '', note];
}

/** A plain-text table of every item. */
export function inspectTable(layout: CompiledLayout): string {
  const header = ['JSON PATH', 'LEVEL', 'COBOL NAME', 'OFFSET', 'LENGTH', 'USAGE / PICTURE', 'OCCURS', 'NOTES'];
  const rows: string[][] = [];
  const depth = new Map<LayoutItem, number>();
  const slackAfter = new Map<LayoutItem, string[][]>();
  for (const item of layoutItems(layout.root)) {
    const d = depth.get(item) ?? 0;
    for (const c of item.children ?? []) depth.set(c, d + 1);
    const notes: string[] = [];
    if (item.redefines) notes.push(`REDEFINES ${item.redefines}`);
    if (item.viewChoice) {
      const views = Object.entries(item.viewChoice.views)
        .map(([v, view]) => `'${v}' ${view}`)
        .join(', ');
      notes.push(`view chosen by ${item.viewChoice.discriminator}: ${views}`);
    }
    if (item.renames) {
      const { from, thru } = item.renames;
      notes.push(`RENAMES ${from}${thru === from ? '' : ` THRU ${thru}`}`);
    }
    if (item.encodeKey !== undefined) notes.push(`view not shown; encode takes "${item.encodeKey}" alone`);
    else if (item.jsonPath === null && item.cobolName !== 'FILLER' && !item.viewChoice) {
      notes.push(item.redefines ? 'view not selected' : 'not in JSON');
    }
    if (item.value !== undefined) {
      const quoted = typeof item.value === 'string' && !/^[A-Z-]+$/.test(item.value);
      notes.push(`VALUE ${quoted ? `'${item.value}'` : item.value}`);
    }
    if (item.justifiedRight) notes.push('JUSTIFIED RIGHT');
    if (item.blankWhenZero) notes.push('BLANK WHEN ZERO');
    for (const c of item.conditions ?? []) notes.push(`88 ${c.name}`);
    if (item.slackBefore !== undefined) rows.push(slackRow(item.offset - item.slackBefore, item.slackBefore, d));
    rows.push([
      item.jsonPath === '' ? '(record)' : (item.jsonPath ?? '-'),
      String(item.level).padStart(2, '0'),
      `${'  '.repeat(d)}${item.cobolName}`,
      item.afterOdo === undefined ? String(item.offset) : `after ODO ${item.afterOdo}`,
      String(item.length),
      usageText(item),
      occursText(item),
      notes.join('; '),
    ]);
    if (item.slackAfter !== undefined) {
      // shown after the table's last item; an inner table's before an outer one's
      let last = item;
      while (last.children !== undefined && last.children.length > 0) last = last.children[last.children.length - 1]!;
      const end = item.offset + item.length - item.slackAfter;
      const row = slackRow(end, item.slackAfter, d + 1, 'at the end of each occurrence');
      slackAfter.set(last, [row, ...(slackAfter.get(last) ?? [])]);
    }
    rows.push(...(slackAfter.get(item) ?? []));
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const { minLength, maxLength } = layout;
  const length = minLength === maxLength ? `${maxLength} bytes` : `${minLength} to ${maxLength} bytes`;
  const p = layout.profile;
  const comp5 = `COMP-5 ${p.comp5ByteOrder}-endian`;
  const floats = `COMP-1/COMP-2 ${p.floatFormat}, ${p.pointerSize}-byte pointers, ${p.syncAlignment} SYNC`;
  const profile = `${p.charset}, ${p.zonedSign} zoned signs, ${p.binarySizes} binary sizes, ${comp5}, ${floats}`;
  return `${layout.name}: ${length}; ${profile}\n\n${line(header)}\n${rows.map(line).join('\n')}\n`;
}

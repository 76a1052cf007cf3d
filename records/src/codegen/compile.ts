/** Compiles a layout into specialised encode and decode functions, and keeps their source for reading. */
import type { BuiltLayout } from '../layout.ts';
import type { RecordDecodeOptions, PlatformProfile } from '../types.ts';
import { block, render, type Code } from './code.ts';
import { decodeBody } from './decode.ts';
import { encodeBody } from './encode.ts';
import { Generator } from './generator.ts';
import { runtimeOf } from './runtime.ts';

export type EncodeFn = (json: unknown) => Buffer;
export type DecodeFn = (bytes: Uint8Array, options?: RecordDecodeOptions) => Record<string, unknown>;

export interface CompiledCodec {
  encode: EncodeFn;
  decode: DecodeFn;
  /** The generated JavaScript, as `new Function` runs it. */
  source: string;
}

export function compileCodec(built: BuiltLayout, template: Buffer, profile: PlatformProfile): CompiledCodec {
  const g = new Generator(profile);
  const encode = block('function encode(json)', encodeBody(g, built, template));
  // bytes past the record's end (an F record longer than its OCCURS DEPENDING ON counts make it) are an error
  // unless the caller says to ignore them
  const decode = block('function decode(bytes, options)', [
    "const ignoreTrailing = options !== undefined && options.trailing === 'ignore';",
    ...decodeBody(g, built),
  ]);
  const length = built.minLength === built.maxLength ? built.maxLength : `${built.minLength} to ${built.maxLength}`;
  const code: Code = [
    '"use strict";',
    `// ${built.root.name} (${length} bytes): K holds field specs and lookup tables, T the record of defaults.`,
    ...g.declarations,
    ...g.functions,
    ...encode,
    ...decode,
    'return { encode, decode };',
  ];
  const source = render(code);
  const runtime = runtimeOf(built.root, g.constants, template, built.complex);
  type Factory = (...args: unknown[]) => Omit<CompiledCodec, 'source'>;
  const factory = new Function(...Object.keys(runtime), source) as Factory;
  return { ...factory(...Object.values(runtime)), source };
}

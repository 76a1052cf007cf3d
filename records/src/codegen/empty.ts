/** Generated code for items with a LOW-VALUES/HIGH-VALUES/spaces policy; items without one get none of it. */
import type { Node } from '../layout.ts';
import { lit } from './code.ts';
import type { Generator } from './generator.ts';

/** Decode of `n` at `at` through its policy, with `reader` (a runtime get function) for other bytes. */
export function decodeEmptyJs(g: Generator, n: Node, at: string, spec: string, reader: string): string {
  const e = g.constant('empty', n.empty, `${n.name}: fillers that decode to null or zero`);
  return `getOrEmpty(b, ${at}, ${e}, ${reader}, ${spec}, ${lit(n.name)})`;
}

/** The statement `put`, preceded for an item whose policy allows null by writing its filler for null. */
export function putEmptyJs(n: Node, put: string, at: string, value: string): string {
  const byte = n.empty?.nullByte;
  if (byte === undefined) return put;
  return `if (${value} === null) buf.fill(${byte}, ${at}, ${at} + ${n.length}); else ${put}`;
}

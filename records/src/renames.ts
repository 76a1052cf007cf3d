/**
 * Level 66 RENAMES: another name for a contiguous run of the record's bytes. As in COBOL, renaming one
 * elementary item gives an item with its attributes; renaming a group, or a range with THRU, gives an
 * alphanumeric item over the bytes of the range.
 */
import type { Entry } from './parser.ts';

/** What this module reads of a layout node (layout.ts's Node, which imports this module). */
export interface RangeNode {
  name: string;
  parent: RangeNode | null;
  children: RangeNode[];
  offset: number;
  size: number;
  occurs?: unknown;
  renames?: unknown;
}

type Node = RangeNode;

type Fail = (at: Entry, reason: string, unsupported?: boolean) => never;

function isWithin(n: Node, ancestor: Node): boolean {
  for (let p: Node | null = n; p !== null; p = p.parent) if (p === ancestor) return true;
  return false;
}

function target<N extends Node>(root: N, e: Entry, name: string, find: (root: N, name: string) => N[], fail: Fail): N {
  const matches = find(root, name);
  if (matches.length === 0) fail(e, `RENAMES ${name}: no such item in ${root.name}`);
  if (matches.length > 1) fail(e, `RENAMES ${name}: the name is ambiguous; qualify it with OF`);
  const n = matches[0]!;
  if (n === root) fail(e, `RENAMES ${name}: a level-01 record cannot be renamed`);
  if (n.renames) fail(e, `RENAMES ${name}: a level-66 item cannot be renamed`);
  for (let p: Node | null = n; p !== null; p = p.parent)
    if (p.occurs)
      fail(e, `RENAMES ${name}: ${p === n ? 'it is a table' : `it is inside the table ${p.name}`} (OCCURS)`);
  return n;
}

/**
 * The renamed range of a level-66 entry. `tables` are the record's OCCURS DEPENDING ON tables: a range cannot
 * hold one (COBOL), and is refused behind one (its place would vary with the counts).
 */
export function renamedRange<N extends Node>(
  root: N,
  e: Entry,
  tables: readonly N[],
  find: (root: N, name: string) => N[],
  fail: Fail,
): { from: N; thru: N; start: number; end: number } {
  const { from: fromName, thru: thruName } = e.renames!;
  const from = target(root, e, fromName, find, fail);
  const thru = thruName === undefined ? from : target(root, e, thruName, find, fail);
  const start = from.offset;
  const end = thru.offset + thru.size;
  if (thru !== from) {
    if (isWithin(thru, from) || isWithin(from, thru))
      fail(e, `RENAMES ${from.name} THRU ${thru.name}: one item is inside the other`);
    if (thru.offset < start || end <= from.offset + from.size)
      fail(e, `RENAMES ${from.name} THRU ${thru.name}: ${thru.name} must start and end after ${from.name}`);
  }
  for (const t of tables) {
    if (t.offset >= start && t.offset < end)
      fail(e, `RENAMES ${e.name}: the range holds the OCCURS DEPENDING ON table ${t.name}`);
    if (t.offset < start) fail(e, `RENAMES ${e.name}: the range is behind the variable table ${t.name}`, true);
  }
  return { from, thru, start, end };
}

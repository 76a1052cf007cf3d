/**
 * Level 66 RENAMES: another name for a contiguous run of the record's bytes. As in COBOL, renaming one
 * elementary item gives an item with its attributes; renaming a group, or a range with THRU, gives an
 * alphanumeric item over the bytes of the range.
 */
import type { Node } from './layout.ts';
import type { Entry } from './parser.ts';
import { analyzePicture } from './picture.ts';

type Fail = (at: Entry, reason: string, unsupported?: boolean) => never;

function isWithin(n: Node, ancestor: Node): boolean {
  for (let p: Node | null = n; p !== null; p = p.parent) if (p === ancestor) return true;
  return false;
}

function target(root: Node, e: Entry, name: string, find: (root: Node, name: string) => Node[], fail: Fail): Node {
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
 * Adds the record's level-66 items after its last item. `tables` are its OCCURS DEPENDING ON tables: a
 * range cannot hold one (COBOL), and is refused behind one (its place would vary with the counts).
 */
export function addRenames(
  root: Node,
  entries: readonly Entry[],
  tables: readonly Node[],
  fileName: string,
  find: (root: Node, name: string) => Node[],
  fail: Fail,
): void {
  for (const e of entries) {
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
    const elementary = thru === from && from.children.length === 0;
    const entry: Entry = elementary
      ? { ...from.entry, level: 66, name: e.name, line: e.line, column: e.column, conditions: [], children: [] }
      : { ...e, conditions: [], children: [] };
    delete entry.value;
    delete entry.redefines;
    delete entry.occurs;
    const node: Node = {
      entry,
      level: 66,
      name: e.name,
      parent: root,
      children: [],
      kind: elementary ? from.kind : 'alphanumeric',
      usage: elementary ? from.usage : 'display',
      offset: start,
      length: end - start,
      size: end - start,
      key: null,
      path: null,
      renames: { from, thru },
    };
    if (elementary) {
      if (from.picture) node.picture = from.picture;
      if (from.sign) node.sign = from.sign;
    } else {
      node.picture = analyzePicture(`X(${end - start})`, { fileName, line: e.line, column: e.column });
    }
    root.children.push(node);
  }
}

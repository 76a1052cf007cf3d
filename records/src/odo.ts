/**
 * OCCURS DEPENDING ON as IBM Enterprise COBOL defines it, complex ODO included: tables followed by other items
 * (variably located items), several variable tables, and variable tables inside table elements. The record
 * is stored at its actual counts: items after a variable table move up. Every counter is outside any table
 * (IBM: the ODO object must not be in the table's range; inside another table it would need a subscript),
 * so all elements of one table have the same length, and a count is one number per counter.
 *
 * The generated code reads and writes a record laid out at every table's maximum (constant offsets); this
 * module slides bytes between that layout and the actual one.
 */
/** What this module reads of a layout node (layout.ts's Node, which imports this module). */
export interface OdoNode {
  name: string;
  parent: OdoNode | null;
  children: OdoNode[];
  offset: number;
  length: number;
  size: number;
  occurs?: { min: number; max: number; dependingOn?: string };
  counter?: OdoNode;
  redefines?: OdoNode;
  renames?: unknown;
}

type Node = OdoNode;

/** The variable tables of a record and their counters; `slot` numbers the counters (the counts array). */
export interface OdoLayout<N extends OdoNode = OdoNode> {
  tables: N[];
  counters: N[];
  slotOf: Map<N, number>;
  /** Items whose size depends on a count: ODO tables and everything that contains one. */
  variable: Set<OdoNode>;
  /** The record's root, for walking. */
  root: N;
}

export function odoLayout<N extends OdoNode>(root: N, tables: N[]): OdoLayout<N> {
  const counters: N[] = [];
  const slotOf = new Map<N, number>();
  const variable = new Set<Node>();
  for (const t of tables) {
    const counter = t.counter as N;
    let slot = counters.indexOf(counter);
    if (slot < 0) slot = counters.push(counter) - 1;
    slotOf.set(t, slot);
    for (let p: Node | null = t; p !== null; p = p.parent) variable.add(p);
  }
  return { tables, counters, slotOf, variable, root };
}

/** Bytes of one occurrence of `n` at these counts. */
function elementLength(o: OdoLayout, n: Node, counts: readonly number[]): number {
  if (!n.children.some((c) => o.variable.has(c))) return n.length;
  let length = 0;
  for (const c of n.children) if (!c.redefines && !c.renames) length += sizeAt(o, c, counts);
  return length;
}

/** Bytes of all occurrences of `n` at these counts. */
function sizeAt(o: OdoLayout, n: Node, counts: readonly number[]): number {
  if (!o.variable.has(n)) return n.size;
  const slot = o.slotOf.get(n as never);
  const occurrences = slot !== undefined ? counts[slot]! : (n.occurs?.max ?? 1);
  return occurrences * elementLength(o, n, counts);
}

export function recordLength(o: OdoLayout, counts: readonly number[]): number {
  return sizeAt(o, o.root, counts);
}

/**
 * Calls `piece(maxAt, actualAt, length)` for each run of bytes that lies at `maxAt` in the layout at every
 * maximum and at `actualAt` in the record at these counts, in record order.
 */
function pieces(
  o: OdoLayout,
  counts: readonly number[],
  piece: (maxAt: number, actualAt: number, length: number) => void,
): void {
  const visit = (n: Node, maxAt: number, actualAt: number): number => {
    if (!o.variable.has(n)) {
      piece(maxAt, actualAt, n.size);
      return n.size;
    }
    const slot = o.slotOf.get(n as never);
    const occurrences = slot !== undefined ? counts[slot]! : (n.occurs?.max ?? 1);
    if (!n.children.some((c) => o.variable.has(c))) {
      // elements of a fixed length, one after the other in both layouts
      piece(maxAt, actualAt, occurrences * n.length);
      return occurrences * n.length;
    }
    let at = actualAt;
    for (let k = 0; k < occurrences; k++) {
      const element = maxAt + k * n.length;
      for (const c of n.children) {
        if (c.redefines || c.renames) continue;
        at += visit(c, element + (c.offset - n.offset), at);
      }
    }
    return at - actualAt;
  };
  visit(o.root, 0, 0);
}

/** The record at these counts, from a buffer laid out at every maximum. */
export function slideIn(o: OdoLayout, max: Buffer, counts: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(recordLength(o, counts));
  pieces(o, counts, (maxAt, actualAt, length) => max.copy(out, actualAt, maxAt, maxAt + length));
  return out;
}

/** A buffer laid out at every maximum holding the record's bytes; elements past a count are zeros, never read. */
export function slideOut(o: OdoLayout, record: Buffer, maxLength: number, counts: readonly number[]): Buffer {
  const out = Buffer.alloc(maxLength);
  pieces(o, counts, (maxAt, actualAt, length) => record.copy(out, maxAt, actualAt, actualAt + length));
  return out;
}

/** Where an offset of the layout at every maximum lies in the record at these counts. */
export function actualOffset(o: OdoLayout, maxOffset: number, counts: readonly number[]): number {
  let found = maxOffset;
  pieces(o, counts, (maxAt, actualAt, length) => {
    if (maxOffset >= maxAt && maxOffset < maxAt + length) found = actualAt + (maxOffset - maxAt);
  });
  return found;
}

/** Record length with every table at its minimum. */
export function minimumLength(o: OdoLayout): number {
  return recordLength(
    o,
    o.counters.map((c) => Math.min(...o.tables.filter((t) => t.counter === c).map((t) => t.occurs!.min))),
  );
}

/**
 * For each item behind a variable table (its offset depends on counts): the nearest such table before it.
 * Tables are visited in record order, so the last one ending before an item is the nearest.
 */
export function variablyLocated<N extends OdoNode>(o: OdoLayout<N>): Map<N, N> {
  const after = new Map<N, N>();
  const visit = (n: N) => {
    for (const t of o.tables) {
      const ancestor = isWithin(n, t);
      if (!ancestor && t.offset + t.size <= n.offset && n !== t) after.set(n, t);
    }
    for (const c of n.children) visit(c as N);
  };
  visit(o.root);
  return after;
}

function isWithin(n: Node, ancestor: Node): boolean {
  for (let p: Node | null = n; p !== null; p = p.parent) if (p === ancestor) return true;
  return false;
}

/** Checks what IBM's complex ODO allows and what this codec supports; `fail` throws a CopybookError. */
export function checkComplexOdo<N extends OdoNode>(
  o: OdoLayout<N>,
  fail: (n: N, reason: string, unsupported?: boolean) => never,
): void {
  for (const t of o.tables) {
    for (const other of o.tables) {
      const counter = t.counter!;
      // a counter behind a variable table would itself move with the counts it sets
      if (counter.offset >= other.offset && !isWithin(counter, other))
        fail(
          t,
          `DEPENDING ON ${counter.name}: the counter must come before every OCCURS DEPENDING ON table of the record (${other.name} precedes it)`,
          true,
        );
    }
  }
  for (const counter of o.counters) {
    const tables = o.tables.filter((t) => t.counter === counter);
    const min = Math.max(...tables.map((t) => t.occurs!.min));
    const max = Math.min(...tables.map((t) => t.occurs!.max));
    if (min > max)
      fail(
        tables[0]!,
        `${counter.name} counts ${tables.map((t) => t.name).join(' and ')}, whose ranges do not overlap`,
      );
  }
  // a REDEFINES whose area holds a variable table has no fixed size to overlay
  for (const n of walkNodes(o.root) as Generator<N>) {
    if (n.redefines && o.variable.has(n.redefines))
      fail(n, `${n.name} redefines ${n.redefines.name}, which holds an OCCURS DEPENDING ON table`, true);
  }
}

function* walkNodes(n: Node): Generator<Node> {
  yield n;
  for (const c of n.children) yield* walkNodes(c);
}

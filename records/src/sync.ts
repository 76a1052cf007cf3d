/**
 * SYNCHRONIZED alignment, a pass after `place`: each synchronized binary, COMP-1, COMP-2, INDEX or POINTER
 * item starts on its natural boundary counted from the start of the 01 record (which the compiler places on
 * a doubleword). Slack bytes go before the item, in the group of the elementary item before it (IBM), and at
 * the end of each occurrence of a table whose elements hold synchronized items,
 * so that the element's length is a multiple of its largest boundary and every occurrence aligns alike.
 * SYNCHRONIZED on DISPLAY and COMP-3 items changes nothing, as on both compilers.
 */
import type { PlatformProfile, Usage } from './types.ts';

/** The part of a layout node this pass reads and sets (a layout `Node` is one). */
export interface SyncNode {
  name: string;
  entry: { synchronized?: boolean };
  usage: Usage;
  children: SyncNode[];
  offset: number;
  length: number;
  size: number;
  occurs?: { max: number };
  redefines?: SyncNode;
  parent: SyncNode | null;
  synchronized?: boolean;
  slackBefore?: number;
  slackAfter?: number;
}

type Node = SyncNode;

/** The boundary a synchronized item is aligned on (1: none). */
export function boundaryOf(n: Node, profile: PlatformProfile): number {
  if (!n.synchronized || n.children.length > 0) return 1;
  switch (n.usage) {
    case 'binary':
    case 'comp-5':
      // IBM: halfword for 1–4 digits, fullword for 5–18 (an 8-byte binary item aligns on a fullword);
      // GnuCOBOL aligns every binary item on its own size
      if (profile.syncAlignment === 'ibm') return n.length <= 2 ? n.length : 4;
      return n.length;
    case 'comp-1':
    case 'index':
      return 4;
    case 'comp-2':
      return 8;
    case 'pointer':
      return n.length;
    default:
      return 1;
  }
}

/**
 * Marks items synchronized by their own clause or (IBM) by their 01 record's; true when any needs aligning.
 * GnuCOBOL ignores SYNCHRONIZED on a group, with a warning.
 */
function mark(n: Node, inherited: boolean, profile: PlatformProfile): boolean {
  const sync = inherited || n.entry.synchronized === true;
  if (n.children.length > 0 && profile.syncAlignment === 'gnucobol') inherited = false;
  else inherited = sync;
  if (n.children.length === 0) {
    if (sync) n.synchronized = true;
    return boundaryOf(n, profile) > 1;
  }
  let any = false;
  for (const c of n.children) any = mark(c, inherited, profile) || any;
  return any;
}

/** The largest boundary of any item inside `n` (its own, for an elementary item). */
function largestBoundary(n: Node, profile: PlatformProfile): number {
  let most = boundaryOf(n, profile);
  for (const c of n.children) most = Math.max(most, largestBoundary(c, profile));
  return most;
}

/** The first elementary item at the start of `n` (a group's first member, recursively). */
function firstLeaf(n: Node): Node {
  let leaf = n;
  while (leaf.children.length > 0) leaf = leaf.children[0]!;
  return leaf;
}

/** Slack bytes that put `n`'s first elementary item on its boundary when `n` starts at `at`. */
function leadingSlack(n: Node, at: number, profile: PlatformProfile): number {
  const boundary = boundaryOf(firstLeaf(n), profile);
  return (boundary - (at % boundary)) % boundary;
}

/**
 * IBM defines slack bytes "as if they constitute an item with a level-number equal to that of the elementary
 * item that immediately precedes the SYNCHRONIZED binary item, and are included in the size of the group that
 * contains them": the groups that end with that item (down from `previous`, not into a table) grow by `slack`.
 */
function ownSlack(previous: Node, slack: number): void {
  const grown: Node[] = [];
  let n = previous;
  while (n.children.length > 0 && !n.occurs) {
    grown.push(n);
    n = n.children.filter((c) => !c.redefines).at(-1)!;
  }
  for (const g of grown) {
    g.length += slack;
    g.size = g.length;
  }
}

/** Offsets and sizes again, with slack bytes; `place` has resolved REDEFINES. */
function layOut(
  node: Node,
  offset: number,
  profile: PlatformProfile,
  fail: (n: Node, reason: string, unsupported?: boolean) => never,
): void {
  node.offset = offset;
  if (node.children.length > 0) {
    let at = offset;
    let previous: Node | null = null;
    for (const child of node.children) {
      if (child.redefines) {
        layOut(child, child.redefines.offset, profile, fail);
        if (child.size > child.redefines.size) {
          const base = child.redefines;
          fail(
            child,
            `${child.name} (${child.size} bytes with slack) is larger than the ${base.size}-byte ${base.name}`,
          );
        }
        continue;
      }
      const slack = leadingSlack(child, at, profile);
      if (slack > 0) {
        child.slackBefore = slack;
        if (previous !== null) ownSlack(previous, slack);
      }
      at += slack;
      layOut(child, at, profile, fail);
      at += child.size;
      previous = child;
    }
    node.length = at - offset;
    if (node.occurs && node.occurs.max > 1) {
      const boundary = largestBoundary(node, profile);
      const after = (boundary - (node.length % boundary)) % boundary;
      if (after > 0) {
        node.slackAfter = after;
        node.length += after;
      }
    }
  }
  node.size = node.length * (node.occurs?.max ?? 1);
}

/** The state GnuCOBOL's layout keeps across groups: the largest boundary seen since a group began. */
interface GnuState {
  occurAlign: number;
}

function lastLeaf(n: Node): Node {
  let leaf = n;
  while (leaf.children.length > 0) leaf = leaf.children[leaf.children.length - 1]!;
  return leaf;
}

/**
 * GnuCOBOL 3.1's layout (cobc/field.c, compute_size): each synchronized elementary item is padded to its
 * boundary counted from the record's start; a table element whose length is not a multiple of the largest
 * boundary seen while laying it out (a value that nested groups reset) is padded by moving its last
 * elementary item, so the slack lies before that item rather than at the element's end.
 */
function layOutGnu(
  node: Node,
  offset: number,
  profile: PlatformProfile,
  fail: (n: Node, reason: string, unsupported?: boolean) => never,
  state: GnuState,
): void {
  node.offset = offset;
  if (node.children.length > 0) {
    state.occurAlign = 1;
    let size = 0;
    for (const c of node.children) {
      if (c.redefines) {
        layOutGnu(c, c.redefines.offset, profile, fail, state);
        if (c.size > c.redefines.size) {
          const base = c.redefines;
          fail(c, `${c.name} (${c.size} bytes with slack) is larger than the ${base.size}-byte ${base.name}`);
        }
        continue;
      }
      layOutGnu(c, offset + size, profile, fail, state);
      size += c.size;
      const boundary = boundaryOf(c, profile);
      if (boundary > 1) {
        const pad = (boundary - (c.offset % boundary)) % boundary;
        if (pad > 0) {
          c.offset += pad;
          c.slackBefore = pad;
          size += pad;
        }
        state.occurAlign = Math.max(state.occurAlign, boundary);
      }
    }
    if (node.occurs && node.occurs.max > 1 && size % state.occurAlign !== 0) {
      const pad = state.occurAlign - (size % state.occurAlign);
      size += pad;
      const last = lastLeaf(node);
      last.offset += pad;
      last.slackBefore = (last.slackBefore ?? 0) + pad;
      if (last.parent !== node) {
        const reason = `GnuCOBOL moves ${last.name} ${pad} bytes past the end of its group to align the table ${node.name}; a layout where items overlap is not supported`;
        fail(last, reason, true);
      }
    }
    node.length = size;
  }
  node.size = node.length * (node.occurs?.max ?? 1);
}

/** Aligns synchronized items; a layout without any keeps the offsets `place` gave. */
export function alignSynchronized<N extends SyncNode>(
  root: N,
  profile: PlatformProfile,
  fail: (n: N, reason: string, unsupported?: boolean) => never,
): void {
  if (!mark(root, false, profile)) return;
  // every node under a layout Node is one
  const failNode = fail as (n: Node, reason: string) => never;
  if (profile.syncAlignment === 'gnucobol') layOutGnu(root, 0, profile, failNode, { occurAlign: 1 });
  else layOut(root, 0, profile, failNode);
}

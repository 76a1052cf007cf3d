/** Builds a layout from parsed entries: hierarchy, pictures, usages, sizes, offsets and JSON names. */
import type { EmptySpec } from './empty-spec.ts';
import { nationalProblem } from './encodings/national.ts';
import { isCharset } from './charsets.ts';
import { binaryByteSize } from './profiles.ts';
import { CopybookError, MappingError } from './errors.ts';
import type { Entry } from './parser.ts';
import { analyzePicture, type EditingOptions, type PictureInfo } from './picture.ts';
import { renamedRange } from './renames.ts';
import { checkComplexOdo, minimumLength, odoLayout, variablyLocated, type OdoLayout } from './odo.ts';
import { alignSynchronized } from './sync.ts';
import type {
  Charset,
  FieldMapping,
  FloatFormat,
  LayoutItem,
  PlatformProfile,
  SignSpec,
  Usage,
  ViewChoice,
} from './types.ts';
import { pictureLessName, pictureLessSize } from './usages.ts';

/** A compiled item: the public LayoutItem plus what the codec generator needs. */
export interface Node {
  entry: Entry;
  level: number;
  name: string;
  parent: Node | null;
  children: Node[];
  kind: LayoutItem['kind'];
  usage: Usage;
  picture?: PictureInfo;
  sign?: SignSpec;
  /** Offset from the start of the record (first occurrence). */
  offset: number;
  /** Bytes of one occurrence. */
  length: number;
  /** Bytes of all occurrences (at the maximum). */
  size: number;
  occurs?: { min: number; max: number; dependingOn?: string };
  /** For a table with DEPENDING ON: its counter. */
  counter?: Node;
  redefines?: Node;
  /** JSON key in the enclosing object; null when the item is not in JSON. */
  key: string | null;
  /** JSON path template (`lines[].qty`), null when not in JSON. */
  path: string | null;
  /**
   * A REDEFINES view decode does not show: its JSON key, which encode still takes when it is the only
   * view of its item given. Its own items have keys, and no paths.
   */
  altKey?: string;
  /** On a redefined item whose views a discriminator chooses: the discriminator and value → view. */
  choice?: { discriminator: Node; byValue: Map<string, Node> };
  /** Level 66: the first and last items of the renamed range. */
  renames?: { from: Node; thru: Node };
  /** Behind a variable table: its offset depends on counts; `offset` is at every maximum. */
  afterOdo?: Node;
  /** A numeric item's policy for LOW-VALUES, HIGH-VALUES and spaces, when it has one (empty.ts). */
  empty?: EmptySpec;
  /** The code page the mapping's `encodings` gives the item (or a group above it), in place of the layout's. */
  charset?: Charset;
  /** COMP-1/COMP-2: the format the profile stores them in. */
  floatFormat?: FloatFormat;
  /** SYNCHRONIZED, given or inherited from the 01 record. */
  synchronized?: boolean;
  /** Slack bytes before the item and after each of its occurrences (SYNCHRONIZED alignment). */
  slackBefore?: number;
  slackAfter?: number;
}

export interface BuiltLayout {
  root: Node;
  /** The one OCCURS DEPENDING ON table, when it is the last item of the record and in no other table. */
  odo: Node | null;
  /** Any other use of OCCURS DEPENDING ON (complex ODO): the record slides with its counts. */
  complex: OdoLayout<Node> | null;
  maxLength: number;
  minLength: number;
}

interface Ctx {
  fileName: string;
  profile: PlatformProfile;
  editing?: EditingOptions;
}

function fail(ctx: Ctx, at: { line: number; column: number }, reason: string, unsupported = false): never {
  throw new CopybookError(reason, { fileName: ctx.fileName, line: at.line, column: at.column }, unsupported);
}

/** cobolName → camelCase JSON name: ORD-QTY → ordQty. */
export function jsonNameOf(cobolName: string): string {
  const parts = cobolName
    .toLowerCase()
    .split(/[-_]+/)
    .filter((p) => p !== '');
  return parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
}

/** Nests flat entries by level number; returns the records (01/77) or a synthetic record for a fragment. */
function nest(entries: Entry[], ctx: Ctx, recordName: string | undefined, defaultName: string): Entry {
  const roots: Entry[] = [];
  const stack: Entry[] = [];
  let last: Entry | null = null;
  let fragment: Entry | null = null;
  let renaming: Entry | null = null;
  for (const e of entries) {
    if (e.level === 66) {
      renaming = fragment ?? roots.at(-1) ?? null;
      if (renaming === null || renaming.level === 77)
        fail(ctx, e, 'a level-66 RENAMES entry must follow the items of a record');
      (renaming.renamings ??= []).push(e);
      last = null;
      continue;
    }
    if (renaming !== null && e.level !== 1 && e.level !== 77)
      fail(ctx, e, `level ${e.level} after a level-66 entry: RENAMES entries come after the last item of the record`);
    renaming = null;
    if (e.level === 88) {
      if (last === null) fail(ctx, e, 'a level-88 condition must follow the item it belongs to');
      last.conditions.push(e);
      continue;
    }
    last = e;
    if (e.level === 1 || e.level === 77) {
      if (fragment !== null)
        fail(ctx, e, `level ${String(e.level).padStart(2, '0')} after items of a copybook fragment`);
      roots.push(e);
      stack.length = 0;
      stack.push(e);
      if (e.level === 77) stack.length = 0;
      continue;
    }
    while (stack.length > 0 && stack[stack.length - 1]!.level >= e.level) stack.pop();
    let parent = stack[stack.length - 1];
    if (parent === undefined) {
      if (roots.length > 0) fail(ctx, e, `level ${e.level} has no enclosing group (or follows a level-77 item)`);
      fragment ??= { level: 0, name: defaultName, line: e.line, column: e.column, conditions: [], children: [] };
      parent = fragment;
    }
    const sibling = parent.children[0];
    if (sibling !== undefined && sibling.level !== e.level) {
      fail(ctx, e, `level ${e.level} does not match the level ${sibling.level} of the other items in ${parent.name}`);
    }
    if (parent.picture) fail(ctx, e, `${parent.name} has a PICTURE, so it cannot contain ${e.name}`);
    parent.children.push(e);
    stack.push(e);
  }
  if (fragment !== null) return fragment;
  if (roots.length === 0)
    throw new CopybookError('the copybook declares no data items', { fileName: ctx.fileName, line: 1, column: 1 });
  if (recordName !== undefined) {
    const chosen = roots.find((r) => r.name === recordName.toUpperCase());
    if (chosen === undefined)
      throw new CopybookError(`no record named ${recordName} (records: ${roots.map((r) => r.name).join(', ')})`, {
        fileName: ctx.fileName,
        line: 1,
        column: 1,
      });
    return chosen;
  }
  if (roots.length > 1) {
    fail(
      ctx,
      roots[1]!,
      `the copybook declares several records (${roots.map((r) => r.name).join(', ')}); choose one with the record option`,
    );
  }
  return roots[0]!;
}

function build(e: Entry, parent: Node | null, inherited: { usage?: Usage; sign?: SignSpec }, ctx: Ctx): Node {
  if (e.occurs && (e.level === 1 || e.level === 77 || e.level === 0))
    fail(ctx, e, 'OCCURS is not allowed on a record (level 01/77)');
  const usage = e.usage ?? inherited.usage ?? 'display';
  if (e.usage && inherited.usage && e.usage !== inherited.usage)
    fail(ctx, e, `USAGE ${e.usage} contradicts the group's USAGE ${inherited.usage}`);
  const sign = e.sign ?? inherited.sign;
  const node: Node = {
    entry: e,
    level: e.level,
    name: e.name,
    parent,
    children: [],
    kind: 'group',
    usage,
    offset: 0,
    length: 0,
    size: 0,
    key: null,
    path: null,
  };
  if (e.occurs) node.occurs = e.occurs;
  if (e.children.length > 0) {
    if (e.justifiedRight || e.blankWhenZero)
      fail(ctx, e, 'JUSTIFIED and BLANK WHEN ZERO apply to elementary items only');
    node.children = e.children.map((c) => build(c, node, { usage: e.usage ?? inherited.usage, sign }, ctx));
    return node;
  }
  const bare = pictureLessSize(usage, ctx.profile);
  if (bare !== undefined) {
    const usageName = pictureLessName(usage)!;
    if (e.picture) fail(ctx, e.picture, `USAGE ${usageName} takes no PICTURE`);
    if (e.sign || e.justifiedRight || e.blankWhenZero)
      fail(ctx, e, `SIGN, JUSTIFIED and BLANK WHEN ZERO do not apply to USAGE ${usageName}`);
    node.kind = 'numeric';
    node.length = bare;
    if (usage === 'comp-1' || usage === 'comp-2') node.floatFormat = ctx.profile.floatFormat;
    return node;
  }
  if (!e.picture) fail(ctx, e, `${e.name} has neither a PICTURE nor subordinate items`);
  const pic = analyzePicture(
    e.picture.text,
    {
      fileName: ctx.fileName,
      line: e.picture.line,
      column: e.picture.column,
    },
    ctx.editing,
  );
  node.picture = pic;
  node.kind = pic.kind;
  if (pic.kind === 'national' || usage === 'national') {
    const problem = nationalProblem(pic, usage, sign);
    if (problem) fail(ctx, e, problem.reason, problem.unsupported);
    const numeric = pic.kind === 'numeric';
    if (e.blankWhenZero) {
      if (numeric) fail(ctx, e, 'BLANK WHEN ZERO on a national decimal item is not supported', true);
      fail(ctx, e, 'BLANK WHEN ZERO applies to numeric items only');
    }
    if (e.justifiedRight && numeric) fail(ctx, e, 'JUSTIFIED applies to alphanumeric items only');
    if (e.sign && !pic.signed) fail(ctx, e, 'SIGN needs S in the picture');
    node.usage = 'national';
    if (pic.signed) node.sign = sign!;
    node.length = (pic.size + (pic.signed ? 1 : 0)) * 2;
    return node;
  }
  if (pic.edited) {
    if (usage !== 'display') fail(ctx, e, `USAGE ${usage} cannot take an edited picture`);
    if (e.sign) fail(ctx, e, 'SIGN does not apply to edited pictures');
    if (e.justifiedRight) fail(ctx, e, 'JUSTIFIED does not apply to edited pictures');
    if (e.blankWhenZero && (pic.kind !== 'numeric' || pic.edited.pad === '*'))
      fail(ctx, e, 'BLANK WHEN ZERO needs a numeric item without check protection (*)');
    node.length = pic.size;
    return node;
  }
  if (pic.dbcs || usage === 'display-1') dbcsItem(node, e, ctx);
  else if (pic.kind !== 'numeric') {
    if (usage !== 'display') fail(ctx, e, `USAGE ${usage} needs a numeric picture`);
    if (e.sign) fail(ctx, e, 'SIGN applies to signed numeric items only');
    if (e.blankWhenZero) fail(ctx, e, 'BLANK WHEN ZERO applies to numeric items only');
    node.length = pic.size;
  } else {
    if (e.justifiedRight) fail(ctx, e, 'JUSTIFIED applies to alphanumeric items only');
    if (e.sign && !pic.signed) fail(ctx, e, 'SIGN needs S in the picture');
    if (pic.signed && usage === 'display') node.sign = sign ?? { position: 'trailing', separate: false };
    else if (e.sign) fail(ctx, e, 'SIGN applies to USAGE DISPLAY items only');
    if (e.blankWhenZero && (usage !== 'display' || pic.signed))
      fail(ctx, e, 'BLANK WHEN ZERO needs an unsigned USAGE DISPLAY item');
    if (usage === 'display') node.length = pic.digits + (node.sign?.separate ? 1 : 0);
    else if (usage === 'packed-decimal') node.length = Math.floor(pic.digits / 2) + 1;
    else {
      if (pic.digits > 18) fail(ctx, e, `a binary item holds at most 18 digits (PIC ${pic.normalized})`, true);
      node.length = binaryByteSize(pic.digits, ctx.profile.binarySizes);
    }
  }
  return node;
}

/** PIC G / USAGE DISPLAY-1: two bytes a character. DISPLAY-1 with another picture (PIC N) is refused. */
function dbcsItem(node: Node, e: Entry, ctx: Ctx): void {
  const pic = node.picture!;
  if (!pic.dbcs) fail(ctx, e, `USAGE DISPLAY-1 is supported with PIC G only (PIC ${pic.normalized})`, true);
  if (node.usage !== 'display' && node.usage !== 'display-1')
    fail(ctx, e, `PIC G needs USAGE DISPLAY-1, not ${node.usage}`);
  if (e.sign || e.blankWhenZero) fail(ctx, e, 'SIGN and BLANK WHEN ZERO apply to numeric items only');
  node.usage = 'display-1';
  node.length = 2 * pic.size;
}

/** Assigns offsets and sizes; resolves REDEFINES among siblings. */
function place(node: Node, offset: number, ctx: Ctx): void {
  node.offset = offset;
  if (node.children.length > 0) {
    let at = offset;
    let previous: Node | null = null;
    for (const child of node.children) {
      if (child.entry.redefines !== undefined) {
        const targetName = child.entry.redefines;
        // the redefined item is the nearest earlier sibling that is not itself a redefinition
        let base = previous;
        while (base?.redefines) base = base.redefines;
        if (base === null || base.name !== targetName) {
          fail(ctx, child.entry, `REDEFINES ${targetName}: it must name the item just before (at the same level)`);
        }
        child.redefines = base;
        place(child, base.offset, ctx);
        if (child.size > base.size) {
          fail(
            ctx,
            child.entry,
            `${child.name} (${child.size} bytes) is larger than the ${base.size}-byte ${base.name} it redefines`,
          );
        }
      } else {
        place(child, at, ctx);
        at += child.size;
      }
      previous = child;
    }
    node.length = at - offset;
  }
  node.size = node.length * (node.occurs?.max ?? 1);
}

/** Resolves a name, qualified as `NAME OF GROUP OF …`, to exactly one item. */
export function findByName(root: Node, qualified: string): Node[] {
  const [name, ...qualifiers] = qualified.toUpperCase().split(/\s+(?:OF|IN)\s+/);
  const found: Node[] = [];
  const visit = (n: Node) => {
    if (n.name === name) {
      let q = 0;
      for (let p = n.parent; p !== null && q < qualifiers.length; p = p.parent) if (p.name === qualifiers[q]) q++;
      if (q === qualifiers.length) found.push(n);
    }
    n.children.forEach(visit);
  };
  visit(root);
  return found;
}

function inTable(n: Node): boolean {
  for (let p: Node | null = n; p !== null; p = p.parent) if (p.occurs) return true;
  return false;
}

function underRedefines(n: Node): boolean {
  for (let p: Node | null = n; p !== null; p = p.parent) if (p.redefines || p.entry.redefines) return true;
  return false;
}

function* walk(n: Node): Generator<Node> {
  yield n;
  for (const c of n.children) yield* walk(c);
}

function resolveOdo(root: Node, ctx: Ctx): Node[] {
  const tables: Node[] = [];
  for (const n of walk(root)) {
    const dep = n.occurs?.dependingOn;
    if (dep === undefined) continue;
    tables.push(n);
    if (underRedefines(n)) fail(ctx, n.entry, 'OCCURS DEPENDING ON inside REDEFINES is not supported', true);
    const matches = findByName(root, dep);
    if (matches.length !== 1)
      fail(
        ctx,
        n.entry,
        matches.length === 0
          ? `DEPENDING ON ${dep}: no such item`
          : `DEPENDING ON ${dep}: the name is ambiguous; qualify it with OF`,
      );
    const counter = matches[0]!;
    if (counter.kind !== 'numeric' || (counter.picture?.scale ?? 0) !== 0)
      fail(ctx, n.entry, `DEPENDING ON ${dep}: the counter must be a numeric integer item`);
    if (inTable(counter)) fail(ctx, n.entry, `DEPENDING ON ${dep}: the counter must not be inside a table`);
    if (counter.offset + counter.size > n.offset)
      fail(ctx, n.entry, `DEPENDING ON ${dep}: the counter must come before the table`);
    n.counter = counter;
  }
  return tables;
}

function mappingTarget(root: Node, key: string): Node {
  const matches = findByName(root, key);
  if (matches.length === 0) throw new MappingError(key, 'no such item in the copybook');
  if (matches.length > 1) throw new MappingError(key, 'the name is ambiguous; qualify it as "NAME OF GROUP"');
  return matches[0]!;
}

/** The views of a redefined item, the item first, in layout order. */
export function viewsOf(base: Node): Node[] {
  return base.parent ? base.parent.children.filter((c) => c === base || c.redefines === base) : [base];
}

function viewChoice(root: Node, key: string, choice: ViewChoice, base: Node): NonNullable<Node['choice']> {
  if (
    typeof choice !== 'object' ||
    choice === null ||
    typeof choice.discriminator !== 'string' ||
    typeof choice.views !== 'object' ||
    choice.views === null
  ) {
    throw new MappingError(
      key,
      'a view choice is { "discriminator": "COBOL-NAME", "views": { "value": "VIEW-NAME" } }',
    );
  }
  const discriminator = mappingTarget(root, choice.discriminator);
  if (
    discriminator.children.length > 0 ||
    discriminator.occurs ||
    discriminator.parent !== base.parent ||
    discriminator.redefines ||
    underRedefines(discriminator)
  ) {
    throw new MappingError(
      key,
      `the discriminator ${discriminator.name} must be an elementary item of the group that holds ${base.name}, outside any REDEFINES or table`,
    );
  }
  const byValue = new Map<string, Node>();
  for (const [value, viewName] of Object.entries(choice.views)) {
    if (typeof viewName !== 'string') throw new MappingError(key, `the view for value "${value}" must be a COBOL name`);
    const view = mappingTarget(root, viewName);
    if (view !== base && view.redefines !== base)
      throw new MappingError(key, `${view.name} is not a view of ${base.name}`);
    if (view.occurs)
      throw new MappingError(key, `${view.name} is a table; a discriminator chooses a group or an elementary item`);
    const text = value.replace(/ +$/, '');
    if ([...byValue.values()].includes(view)) throw new MappingError(key, `${view.name} is named for two values`);
    byValue.set(text, view);
  }
  if (byValue.size === 0) throw new MappingError(key, 'a view choice names at least one view');
  return { discriminator, byValue };
}

/** Gives every item its JSON key and path, applying the mapping; checks for clashes. */
function name(root: Node, mapping: FieldMapping | undefined, ctx: Ctx): void {
  const renamed = new Map<Node, string | false>();
  for (const [key, to] of Object.entries(mapping?.fields ?? {})) {
    if (to !== false && (typeof to !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(to)))
      throw new MappingError(key, 'the JSON name must be an identifier, or false to omit the field');
    renamed.set(mappingTarget(root, key), to);
  }
  const shownRenames = new Set<Node>();
  for (const [key, show] of Object.entries(mapping?.renames ?? {})) {
    const n = mappingTarget(root, key);
    if (!n.renames) throw new MappingError(key, `${n.name} is not a level-66 RENAMES item`);
    if (typeof show !== 'boolean') throw new MappingError(key, 'true shows the RENAMES item in decode; false hides it');
    if (show) shownRenames.add(n);
  }
  const selected = new Map<Node, Node>();
  for (const [key, choice] of Object.entries(mapping?.redefines ?? {})) {
    const base = mappingTarget(root, key);
    if (base.redefines)
      throw new MappingError(key, `${base.name} redefines ${base.redefines.name}; name the redefined item`);
    if (typeof choice !== 'string') {
      base.choice = viewChoice(root, key, choice, base);
      if (renamed.get(base.choice.discriminator) === false)
        throw new MappingError(key, `the discriminator ${base.choice.discriminator.name} is left out of JSON`);
      continue;
    }
    const view = mappingTarget(root, choice);
    if (view !== base && view.redefines !== base)
      throw new MappingError(key, `${view.name} is not a view of ${base.name}`);
    selected.set(base, view);
  }
  const isView = (n: Node) =>
    n.redefines !== undefined ||
    n.renames !== undefined ||
    (n.parent?.children.some((o) => o.redefines === n) ?? false);
  // `pathless`: under a view decode does not show; keys for encode, no paths.
  const visit = (n: Node, prefix: string, pathless: boolean) => {
    const keys = new Map<string, Node>();
    const alternates: Node[] = [];
    for (const child of n.children) {
      const base = child.redefines ?? child;
      const shown = child.renames
        ? shownRenames.has(child)
        : base.choice
          ? [...base.choice.byValue.values()].includes(child)
          : (selected.get(base) ?? base) === child;
      const rename = renamed.get(child);
      if (child.name === 'FILLER' || rename === false) continue;
      if (!shown) {
        if (!base.choice && isView(child)) alternates.push(child);
        continue;
      }
      child.key = rename ?? jsonNameOf(child.name);
      const clash = keys.get(child.key);
      if (clash)
        fail(
          ctx,
          child.entry,
          `${child.name} and ${clash.name} both map to the JSON name "${child.key}"; rename one in the mapping`,
        );
      keys.set(child.key, child);
      child.path = pathless ? null : `${prefix}${prefix === '' ? '' : '.'}${child.key}${child.occurs ? '[]' : ''}`;
      visit(child, child.path ?? '', pathless);
    }
    for (const view of alternates) {
      // A view not shown is taken by encode under its own key, unless that key is taken.
      const key = renamed.get(view) || jsonNameOf(view.name);
      if (keys.has(key)) continue;
      view.altKey = key;
      keys.set(key, view);
      visit(view, '', true);
    }
  };
  root.path = '';
  root.key = '';
  visit(root, '', false);
}

/**
 * A level-66 item, after the record's last item. As in COBOL, renaming one elementary item gives an item with
 * its attributes; renaming a group, or a range with THRU, an alphanumeric item over the range's bytes.
 */
function renamesNode(root: Node, e: Entry, tables: Node[], ctx: Ctx): Node {
  const { from, thru, start, end } = renamedRange(root, e, tables, findByName, (at, reason, unsupported) =>
    fail(ctx, at, reason, unsupported),
  );
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
    node.picture = analyzePicture(`X(${end - start})`, { fileName: ctx.fileName, line: e.line, column: e.column });
  }
  return node;
}

/** Gives the items the mapping's `encodings` name, and the items under them, their code page; deeper wins. */
function applyEncodings(root: Node, mapping: FieldMapping | undefined): void {
  const depth = (n: Node): number => (n.parent ? depth(n.parent) + 1 : 0);
  const targets = Object.entries(mapping?.encodings ?? {}).map(([key, charset]) => {
    if (!isCharset(charset))
      throw new MappingError(key, `unknown code page ${JSON.stringify(charset)} (expected cpNNN)`);
    return { node: mappingTarget(root, key), charset };
  });
  targets.sort((a, b) => depth(a.node) - depth(b.node));
  const set = (n: Node, charset: Charset): void => {
    n.charset = charset;
    for (const c of n.children) set(c, charset);
  };
  for (const { node, charset } of targets) set(node, charset);
}

export function buildLayout(
  entries: Entry[],
  options: {
    fileName: string;
    profile: PlatformProfile;
    record?: string;
    mapping?: FieldMapping;
    editing?: EditingOptions;
  },
): BuiltLayout {
  const ctx: Ctx = { fileName: options.fileName, profile: options.profile };
  if (options.editing) ctx.editing = options.editing;
  const defaultName =
    options.fileName
      .replace(/^.*[\\/]/, '')
      .replace(/\.[^.]*$/, '')
      .toUpperCase() || 'RECORD';
  const rootEntry = nest(entries, ctx, options.record, defaultName);
  const root = build(rootEntry, null, {}, ctx);
  place(root, 0, ctx);
  alignSynchronized(root, ctx.profile, (n, reason, unsupported) => fail(ctx, n.entry, reason, unsupported));
  if (root.size === 0) fail(ctx, rootEntry, 'the record has no storage');
  const tables = resolveOdo(root, ctx);
  const single = tables.length === 1 ? tables[0]! : null;
  const odo = single && !inTable(single.parent!) && single.offset + single.size === root.size ? single : null;
  let complex: OdoLayout<Node> | null = null;
  if (tables.length > 0 && odo === null) {
    complex = odoLayout(root, tables);
    checkComplexOdo(complex, (n, reason, unsupported) => fail(ctx, n.entry, reason, unsupported));
    for (const [n, table] of variablyLocated(complex)) {
      n.afterOdo = table;
      // slack bytes are fixed when the layout is built; behind a variable table the alignment would move
      if (n.synchronized && (n.slackBefore || n.slackAfter))
        fail(ctx, n.entry, `SYNCHRONIZED ${n.name} behind the variable table ${table.name} is not supported`, true);
    }
  }
  for (const e of rootEntry.renamings ?? []) root.children.push(renamesNode(root, e, tables, ctx));
  name(root, options.mapping, ctx);
  applyEncodings(root, options.mapping);
  const minLength = complex
    ? minimumLength(complex)
    : odo
      ? root.size - (odo.occurs!.max - odo.occurs!.min) * odo.length
      : root.size;
  return { root, odo, complex, maxLength: root.size, minLength };
}

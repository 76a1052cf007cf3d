/**
 * CSV (RFC 4180) of decoded records: one column per elementary value of the JSON the decoder gives, named by its
 * JSON names joined with `_` (`caName_caFirstName`), a table's elements as `name_1` … `name_max` up to the OCCURS
 * maximum, nested tables too (`lines_2_parts_1_sku`).
 */
import type { LayoutItem } from '../types.ts';

/** How to reach a cell in a decoded value: a leaf, a group of members, or a table of `max` elements. */
type Plan =
  | { kind: 'leaf'; key: string }
  | { kind: 'group'; key: string; members: Plan[]; width: number }
  | { kind: 'table'; key: string; max: number; element: Plan; width: number };

/** The columns of a layout's CSV and the plan that fills them, built once per layout. */
export interface CsvTable {
  readonly columns: readonly string[];
  /** The header line, CRLF-terminated. */
  readonly header: string;
  /** One record's line, CRLF-terminated; `null` (a record that did not decode, `--on-error null`) is all empty. */
  row(value: Record<string, unknown> | null): string;
}

/** The last key of a JSON path template (`caLastTxns[]` → `caLastTxns`): keys are identifiers, so never a dot. */
function keyOf(path: string): string {
  const last = path.slice(path.lastIndexOf('.') + 1);
  return last.endsWith('[]') ? last.slice(0, -2) : last;
}

function planOf(item: LayoutItem, key: string): Plan {
  const shown = (item.children ?? []).filter((c) => c.jsonPath !== null);
  // a group is an object in the JSON; anything else (a RENAMES range too) is one value
  const one: Plan =
    item.kind === 'group' && item.renames === undefined
      ? (() => {
          const members = shown.map((c) => planOf(c, keyOf(c.jsonPath!)));
          return { kind: 'group', key, members, width: members.reduce((n, m) => n + widthOf(m), 0) };
        })()
      : { kind: 'leaf', key };
  if (item.occurs === undefined) return one;
  return { kind: 'table', key, max: item.occurs.max, element: one, width: item.occurs.max * widthOf(one) };
}

function widthOf(plan: Plan): number {
  return plan.kind === 'leaf' ? 1 : plan.width;
}

function namesOf(plan: Plan, prefix: string, out: string[]): void {
  const name = prefix === '' ? plan.key : `${prefix}_${plan.key}`;
  if (plan.kind === 'leaf') out.push(name);
  else if (plan.kind === 'group') for (const m of plan.members) namesOf(m, name, out);
  else {
    for (let i = 1; i <= plan.max; i++) {
      // an element is named by its number; a group element's members follow it
      if (plan.element.kind === 'leaf') out.push(`${name}_${i}`);
      else if (plan.element.kind === 'group') for (const m of plan.element.members) namesOf(m, `${name}_${i}`, out);
    }
  }
}

const NEEDS_QUOTES = /[",\r\n]/;

/** A cell as RFC 4180 writes it: quoted when it holds a comma, a quote, CR or LF, its quotes doubled. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // an empty string is quoted, so readers that tell them apart (DuckDB) see '' where the JSON has "", not null
  if (value === '') return '""';
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function fill(plan: Plan, value: unknown, cells: string[]): void {
  if (plan.kind === 'leaf') {
    cells.push(csvCell(value));
    return;
  }
  if (plan.kind === 'group') {
    const object = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
    for (const m of plan.members) fill(m, object?.[m.key], cells);
    return;
  }
  const array = Array.isArray(value) ? value : [];
  // elements past the record's count (OCCURS DEPENDING ON) leave their cells empty
  for (let i = 0; i < plan.max; i++) fill(plan.element, array[i], cells);
}

/**
 * The CSV table of a layout (a `CompiledLayout`, or anything with its `root`): only items the decoder puts in the
 * JSON have columns (no FILLER, no view the mapping does not show; views a discriminator chooses each have theirs,
 * empty where another view was chosen). Two columns of one name (a mapping's `_` in a JSON name) are refused.
 */
export function csvTable(layout: { root: LayoutItem }): CsvTable {
  const root: Plan = planOf({ ...layout.root, occurs: undefined } as LayoutItem, '');
  const columns: string[] = [];
  if (root.kind === 'group') for (const m of root.members) namesOf(m, '', columns);
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c)) throw new RangeError(`two CSV columns are named ${c}; rename one of the fields in the mapping`);
    seen.add(c);
  }
  const empty = `${','.repeat(Math.max(columns.length - 1, 0))}\r\n`;
  return {
    columns,
    header: `${columns.map(csvCell).join(',')}\r\n`,
    row(value) {
      if (value === null) return empty;
      const cells: string[] = [];
      fill(root, value, cells);
      return `${cells.join(',')}\r\n`;
    },
  };
}

/** The header line of a layout's CSV. */
export function csvHeader(layout: { root: LayoutItem }): string {
  return csvTable(layout).header;
}

/** Lines of a batch of decoded values. */
export function toCsvRows(table: CsvTable, values: ReadonlyArray<Record<string, unknown> | null>): string {
  let out = '';
  for (const v of values) out += table.row(v);
  return out;
}

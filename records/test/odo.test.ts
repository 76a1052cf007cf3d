/**
 * OCCURS DEPENDING ON as IBM's complex ODO (tables followed by items, several tables, tables inside table
 * elements) and level-66 RENAMES: unit cases of what a user sees, and a property over random copybooks:
 * decode(encode(x)) = x, with the record's length at the counts computed here from the copybook alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  compileCopybook,
  CopybookError,
  MappingError,
  RecordDecodeError,
  RecordEncodeError,
  type LayoutItem,
} from '../src/index.ts';
import { elementaryValueArb, keyOf, shownChildren } from './arbitraries.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');
const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 150);

const NESTED = fixed(
  '01 R.',
  '   05 C1 PIC 9.',
  '   05 C2 PIC 9.',
  '   05 T1 PIC X(2) OCCURS 1 TO 3 DEPENDING ON C1.',
  '   05 MID PIC S9(3).',
  '   05 T2 OCCURS 1 TO 3 DEPENDING ON C2.',
  '      10 K PIC X.',
  '      10 IN1 PIC X OCCURS 1 TO 2 DEPENDING ON C1.',
  '   05 TL PIC X(2).',
);

test('complex ODO: the record at its counts, the lengths, and inspect offsets', () => {
  const l = compileCopybook(NESTED, { profile: 'gnucobol' });
  // C1 counts T1 (1 to 3) and IN1 (1 to 2): 1 to 2; at the minimum 2 + 2 + 3 + (1 + 1) + 2
  assert.deepEqual([l.minLength, l.maxLength], [11, 22]);
  const json = {
    c1: 2,
    c2: 2,
    t1: ['AA', 'BB'],
    mid: -12,
    t2: [
      { k: 'K', in1: ['x', 'y'] },
      { k: 'L', in1: ['', 'z'] },
    ],
    tl: 'ZZ',
  };
  const bytes = l.encode(json);
  // the bytes cobc -fodoslide writes for the same MOVEs
  assert.equal(bytes.toString('latin1'), '22AABB01rKxyL zZZ');
  assert.deepEqual(l.decode(bytes), json);
  const t2 = l.root.children!.find((c) => c.cobolName === 'T2')!;
  assert.equal(t2.afterOdo, 'T1');
  assert.equal(l.root.children!.find((c) => c.cobolName === 'C2')!.afterOdo, undefined);
});

test('complex ODO: decode errors name the offset in the record as it is, encode errors the JSON path', () => {
  const l = compileCopybook(NESTED, { profile: 'gnucobol' });
  const bad = Buffer.from('22AABB0x1KxyL zZZ', 'latin1');
  assert.throws(
    () => l.decode(bad),
    (e: unknown) => e instanceof RecordDecodeError && e.offset === 7 && e.field === 'MID',
  );
  assert.throws(
    () => l.decode(Buffer.from('22AABB01rKxyL zZ', 'latin1')),
    (e: unknown) =>
      e instanceof RecordDecodeError && /the record is 16 bytes; the counts in C1, C2 make it 17/.test(e.message),
  );
  assert.throws(
    () => l.decode(Buffer.from('32AABBCC01rKxyzL zZZ', 'latin1')),
    (e: unknown) => e instanceof RecordDecodeError && e.offset === 0 && /count 3 is outside 1 to 2/.test(e.message),
  );
  assert.throws(
    () => l.encode({ t1: ['A', 'B'], t2: [{ in1: ['x'] }] }),
    (e: unknown) =>
      e instanceof RecordEncodeError && e.path === 't2[0].in1' && /has 1 elements, but C1 counts 2/.test(e.message),
  );
  assert.throws(
    () => l.encode({ c1: 1, t1: ['A', 'B'] }),
    (e: unknown) =>
      e instanceof RecordEncodeError && e.path === 'c1' && /is 1 but t1, t2\[\]\.in1 has 2/.test(e.message),
  );
});

test('complex ODO: a REDEFINES of an area holding a variable table is refused', () => {
  assert.throws(
    () =>
      compileCopybook(
        fixed(
          '01 R.',
          '   05 N PIC 9.',
          '   05 G.',
          '      10 T PIC X OCCURS 1 TO 2 DEPENDING ON N.',
          '   05 H REDEFINES G PIC X.',
          '   05 Z PIC X.',
        ),
      ),
    (e: unknown) =>
      e instanceof CopybookError && /H redefines G, which holds an OCCURS DEPENDING ON table/.test(e.message),
  );
});

test('complex ODO: one counter for tables whose ranges do not overlap is refused', () => {
  const source = fixed(
    '01 R.',
    '   05 N PIC 9.',
    '   05 T PIC X OCCURS 1 TO 2 DEPENDING ON N.',
    '   05 U PIC X OCCURS 3 TO 4 DEPENDING ON N.',
  );
  assert.throws(
    () => compileCopybook(source),
    (e: unknown) =>
      e instanceof CopybookError && e.line === 3 && /N counts T and U, whose ranges do not overlap/.test(e.message),
  );
});

const RENAMES = fixed(
  '01 R.',
  '   05 A PIC X(2).',
  '   05 B PIC 9(3).',
  '   05 C PIC X(2).',
  '66 AB RENAMES A THRU B.',
  '66 BB RENAMES B.',
);

test('RENAMES: hidden in decode unless selected; encode takes it; a view and its items must agree', () => {
  const hidden = compileCopybook(RENAMES, { profile: 'gnucobol' });
  assert.deepEqual(hidden.decode(Buffer.from('xy123zz')), { a: 'xy', b: 123, c: 'zz' });
  assert.equal(hidden.encode({ ab: 'pq042' }).toString(), 'pq042  ');
  const shown = compileCopybook(RENAMES, { profile: 'gnucobol', mapping: { renames: { AB: true, BB: true } } });
  const decoded = shown.decode(Buffer.from('xy123zz'));
  assert.deepEqual(decoded, { a: 'xy', b: 123, c: 'zz', ab: 'xy123', bb: 123 });
  assert.equal(shown.encode(decoded).toString(), 'xy123zz');
  assert.throws(
    () => shown.encode({ ...decoded, bb: 7 }),
    (e: unknown) => e instanceof RecordEncodeError && e.path === 'bb' && /disagrees with b, ab/.test(e.message),
  );
  const bb = shown.root.children!.find((c) => c.cobolName === 'BB')!;
  assert.deepEqual(
    [bb.level, bb.offset, bb.length, bb.kind, bb.picture, bb.renames],
    [66, 2, 3, 'numeric', '9(3)', { from: 'B', thru: 'B' }],
  );
  const ab = shown.root.children!.find((c) => c.cobolName === 'AB')!;
  assert.deepEqual([ab.offset, ab.length, ab.kind, ab.picture], [0, 5, 'alphanumeric', 'X(5)']);
  assert.throws(
    () => compileCopybook(RENAMES, { mapping: { renames: { A: true } } }),
    (e: unknown) => e instanceof MappingError && /A is not a level-66 RENAMES item/.test(e.message),
  );
});

// ── property: random complex ODO copybooks ──────────────────────────────────

interface Elem {
  pic: string;
  length: number;
}
type Item =
  | { kind: 'elem'; e: Elem }
  | { kind: 'odo'; counter: number; slack: [number, number]; body: Elem[]; inner?: Inner }
  | { kind: 'fixed'; times: number; body: Elem[]; inner: Inner };
interface Inner {
  counter: number;
  slack: [number, number];
  e: Elem;
}
interface Spec {
  ranges: Array<[number, number]>;
  binary: boolean[];
  items: Item[];
}

const elemArb: fc.Arbitrary<Elem> = fc.oneof(
  fc.integer({ min: 1, max: 4 }).map((n) => ({ pic: `X(${n})`, length: n })),
  fc.integer({ min: 1, max: 5 }).map((n) => ({ pic: `S9(${n})`, length: n })),
  fc.integer({ min: 1, max: 7 }).map((n) => ({ pic: `S9(${n}) COMP-3`, length: Math.floor(n / 2) + 1 })),
);

const specArb: fc.Arbitrary<Spec> = fc.integer({ min: 1, max: 3 }).chain((counters) => {
  const counterArb = fc.integer({ min: 0, max: counters - 1 });
  const slackArb = fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 2 }));
  const innerArb = fc.record({ counter: counterArb, slack: slackArb, e: elemArb });
  const itemArb: fc.Arbitrary<Item> = fc.oneof(
    fc.record({ kind: fc.constant('elem' as const), e: elemArb }),
    fc.record(
      {
        kind: fc.constant('odo' as const),
        counter: counterArb,
        slack: slackArb,
        body: fc.array(elemArb, { minLength: 1, maxLength: 3 }),
        inner: innerArb,
      },
      { requiredKeys: ['kind', 'counter', 'slack', 'body'] },
    ),
    fc.record({
      kind: fc.constant('fixed' as const),
      times: fc.integer({ min: 1, max: 3 }),
      body: fc.array(elemArb, { maxLength: 2 }),
      inner: innerArb,
    }),
  );
  return fc.record({
    ranges: fc.array(
      fc
        .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 2 }))
        .map(([lo, span]) => [lo, lo + span] as [number, number]),
      { minLength: counters, maxLength: counters },
    ),
    binary: fc.array(fc.boolean(), { minLength: counters, maxLength: counters }),
    items: fc.array(itemArb, { minLength: 1, maxLength: 5 }),
  });
});

/** The copybook text; each table's range covers its counter's range, widened by its slack. */
function render(spec: Spec): string {
  const lines = ['01 REC.'];
  spec.binary.forEach((b, i) => lines.push(`   05 CNT${i} PIC ${b ? '9(4) COMP' : '9(2)'}.`));
  const odo = (name: string, level: string, c: number, slack: [number, number], pic: string) => {
    const [lo, hi] = spec.ranges[c]!;
    lines.push(
      `${level} ${name}${pic === '' ? '' : ` PIC ${pic}`} OCCURS ${Math.max(0, lo - slack[0])} TO ${hi + slack[1]}`,
    );
    lines.push(`         DEPENDING ON CNT${c}.`);
  };
  spec.items.forEach((item, i) => {
    if (item.kind === 'elem') lines.push(`   05 F${i} PIC ${item.e.pic}.`);
    else {
      if (item.kind === 'odo') odo(`T${i}`, '   05', item.counter, item.slack, '');
      else lines.push(`   05 T${i} OCCURS ${item.times}.`);
      item.body.forEach((e, j) => lines.push(`      10 T${i}E${j} PIC ${e.pic}.`));
      if (item.inner) odo(`T${i}I`, '      10', item.inner.counter, item.inner.slack, item.inner.e.pic);
      if (item.body.length === 0 && !item.inner) lines.push(`      10 T${i}E PIC X.`);
    }
  });
  return fixed(...lines);
}

/** The record's length at these counts, from the spec alone. */
function lengthOf(spec: Spec, counts: number[]): number {
  let length = spec.binary.length * 2;
  for (const item of spec.items) {
    if (item.kind === 'elem') {
      length += item.e.length;
      continue;
    }
    let element = item.body.reduce((s, e) => s + e.length, 0);
    if (item.inner) element += counts[item.inner.counter]! * item.inner.e.length;
    if (item.body.length === 0 && !item.inner) element += 1;
    length += (item.kind === 'odo' ? counts[item.counter]! : item.times) * element;
  }
  return length;
}

/** The record at every table's own maximum, as `maxLength` measures it. */
function maxLengthOf(spec: Spec): number {
  let length = spec.binary.length * 2;
  const max = (c: number, slack: [number, number]) => spec.ranges[c]![1] + slack[1];
  for (const item of spec.items) {
    if (item.kind === 'elem') {
      length += item.e.length;
      continue;
    }
    let element = item.body.reduce((s, e) => s + e.length, 0);
    if (item.inner) element += max(item.inner.counter, item.inner.slack) * item.inner.e.length;
    if (item.body.length === 0 && !item.inner) element += 1;
    length += (item.kind === 'odo' ? max(item.counter, item.slack) : item.times) * element;
  }
  return length;
}

function valueArb(item: LayoutItem, counts: Map<string, number>): fc.Arbitrary<unknown> {
  const one: fc.Arbitrary<unknown> = item.children
    ? fc.record(Object.fromEntries(shownChildren(item).map((c) => [keyOf(c), valueArb(c, counts)])), {
        noNullPrototype: true,
      })
    : counts.has(item.cobolName)
      ? fc.constant(counts.get(item.cobolName))
      : elementaryValueArb(item, 'ascii');
  if (!item.occurs) return one;
  const n = item.occurs.dependingOn ? counts.get(item.occurs.dependingOn)! : item.occurs.max;
  return fc.array(one, { minLength: n, maxLength: n });
}

test('property: complex ODO records round-trip, at the length the counts give', () => {
  const caseArb = specArb.chain((spec) =>
    fc.tuple(...spec.ranges.map(([lo, hi]) => fc.integer({ min: lo, max: hi }))).chain((counts) => {
      const text = render(spec);
      const layout = compileCopybook(text, { profile: 'gnucobol' });
      const byName = new Map(counts.map((n, i) => [`CNT${i}`, n]));
      return fc.record({
        spec: fc.constant(spec),
        text: fc.constant(text),
        counts: fc.constant(counts),
        value: valueArb(layout.root, byName) as fc.Arbitrary<Record<string, unknown>>,
      });
    }),
  );
  fc.assert(
    fc.property(caseArb, ({ spec, text, counts, value }) => {
      const layout = compileCopybook(text, { profile: 'gnucobol' });
      const bytes = layout.encode(value);
      assert.equal(bytes.length, lengthOf(spec, counts), text);
      assert.deepStrictEqual(layout.decode(bytes), value);
      assert.equal(layout.encode(layout.decode(bytes)).toString('hex'), bytes.toString('hex'));
      assert.equal(layout.maxLength, maxLengthOf(spec));
      assert.ok(layout.minLength <= bytes.length && bytes.length <= layout.maxLength);
    }),
    { numRuns: NUM_RUNS },
  );
});

/**
 * Property-based tests of the record codec (issue 2, point 4). Random copybooks — real copybook text, compiled
 * under gnucobol, zos, and zos with encoding ascii, latin1 and cp1140 — and random values derived from each
 * layout's `root`:
 * - the layout follows the copybook (fixed and free format alike);
 * - decode(encode(x)) deep-equals x, and re-encoding gives the same bytes;
 * - other spellings of the same values, and values left out, encode as they must;
 * - encode refuses a value its picture cannot hold with a RecordEncodeError naming its JSON path;
 * - decode refuses corrupted records with a RecordDecodeError naming the byte offset, and what it accepts fits
 *   the layout's JSON Schema and encodes back.
 * On failure fast-check prints the seed, the shrunk copybook text and options, and the values.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compileCopybook, layoutItems, RecordDecodeError, RecordEncodeError } from '../src/index.ts';
import {
  corruptionArb,
  expectedLayout,
  invalidArb,
  layoutCaseArb,
  numericNoiseArb,
  omissionArb,
  renderCopybook,
  replaceAt,
  respelledArb,
  shapeOf,
  sitesOf,
  valueArb,
  type Corruption,
  type Invalid,
  type LayoutCase,
  type Site,
} from './arbitraries.ts';

/** Runs per property; PROPERTY_RUNS=5000 for a longer search. */
const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

interface ValueCase extends LayoutCase {
  value: Record<string, unknown>;
}

const printable = <T extends object>(c: T, describe: (c: T) => string): T =>
  Object.assign(c, { [fc.toStringMethod]: () => describe(c) });

const describeLayout = (c: LayoutCase) =>
  `\ncompileCopybook(${JSON.stringify(c.text)}, ${JSON.stringify(c.options)})\n${c.text}\n`;
const describeValue = (c: ValueCase) => `${describeLayout(c)}value: ${JSON.stringify(c.value)}\n`;

test('property: the layout follows the copybook and the mapping (levels, names, JSON paths, offsets, lengths by usage and profile), in fixed and free format', () => {
  fc.assert(
    fc.property(
      layoutCaseArb.map((c) => printable(c, describeLayout)),
      ({ spec, options, layout }) => {
        const expected = expectedLayout(spec, layout.profile.binarySizes);
        assert.deepStrictEqual([...layoutItems(layout.root)].slice(1).map(shapeOf), expected.items);
        assert.deepStrictEqual([layout.minLength, layout.maxLength], [expected.minLength, expected.maxLength]);
        const free = compileCopybook(renderCopybook(spec, 'free'), options);
        assert.deepStrictEqual([...layoutItems(free.root)].map(shapeOf), [...layoutItems(layout.root)].map(shapeOf));
        assert.equal(free.encode({}).toString('hex'), layout.encode({}).toString('hex'));
      },
    ),
    { numRuns: NUM_RUNS },
  );
});

const valueCaseArb: fc.Arbitrary<ValueCase> = layoutCaseArb.chain((c) =>
  valueArb(c.layout).map((value) => printable<ValueCase>({ ...c, value }, describeValue)),
);

test('property: decode(encode(x)) deep-equals x, and encode(decode(encode(x))) is the same bytes', () => {
  fc.assert(
    fc.property(valueCaseArb, ({ layout, value }) => {
      const bytes = layout.encode(value);
      assert.ok(
        bytes.length >= layout.minLength && bytes.length <= layout.maxLength,
        `record length ${bytes.length} outside ${layout.minLength}…${layout.maxLength}`,
      );
      const decoded = layout.decode(bytes);
      assert.deepStrictEqual(decoded, value);
      assert.equal(layout.encode(decoded).toString('hex'), bytes.toString('hex'));
    }),
    { numRuns: NUM_RUNS },
  );
});

interface RespelledCase extends ValueCase {
  respelled: { json: unknown; changes: string[] };
}

const respelledCaseArb: fc.Arbitrary<RespelledCase> = valueCaseArb.chain((c) =>
  respelledArb(c.layout, c.value).map((respelled) =>
    printable<RespelledCase>(
      { ...c, respelled },
      (x) => `${describeValue(x)}respelled: ${x.respelled.changes.join('; ')}\n`,
    ),
  ),
);

test('property: other spellings of the same values (+, leading and trailing zeros, -0, number or string, padding) encode to the same bytes', () => {
  fc.assert(
    fc.property(respelledCaseArb, ({ layout, value, respelled }) => {
      assert.equal(layout.encode(respelled.json).toString('hex'), layout.encode(value).toString('hex'));
    }),
    { numRuns: NUM_RUNS },
  );
});

interface OmissionCase extends ValueCase {
  omitted: { json: Record<string, unknown>; expected: Record<string, unknown>; changes: string[] };
}

const omissionCaseArb: fc.Arbitrary<OmissionCase> = valueCaseArb.chain((c) =>
  omissionArb(c.layout, c.value).map((omitted) =>
    printable<OmissionCase>(
      { ...c, omitted },
      (x) => `${describeValue(x)}sent: ${JSON.stringify(x.omitted.json)} (${x.omitted.changes.join('; ')})\n`,
    ),
  ),
);

test('property: fields left out and fixed tables cut short encode as defaults (zero, spaces; ODO count from the counter, the table or the minimum)', () => {
  fc.assert(
    fc.property(omissionCaseArb, ({ layout, omitted }) => {
      assert.deepStrictEqual(layout.decode(layout.encode(omitted.json)), omitted.expected);
    }),
    { numRuns: NUM_RUNS },
  );
});

interface InvalidCase extends ValueCase {
  site: Site;
  invalid: Invalid;
}

const invalidCaseArb: fc.Arbitrary<InvalidCase> = valueCaseArb.chain((c) => {
  const sites = sitesOf(c.layout, c.value);
  return fc
    .nat({ max: sites.length - 1 })
    .chain((k) =>
      invalidArb(sites[k]!, c.layout.profile.charset).map((invalid) =>
        printable<InvalidCase>(
          { ...c, site: sites[k]!, invalid },
          (x) =>
            `${describeValue(x)}at ${JSON.stringify(x.site.path)} (${x.site.item.cobolName}${x.site.item.picture ? ` PIC ${x.site.item.picture} ${x.site.item.usage}` : ''}): ` +
            `${x.invalid.label}: ${JSON.stringify(x.invalid.replacement)}; expected path ${JSON.stringify(x.invalid.expectedPath)}\n`,
        ),
      ),
    );
});

test('property: encode refuses a value its picture cannot hold, naming the JSON path (with indexes)', () => {
  fc.assert(
    fc.property(invalidCaseArb, ({ layout, value, site, invalid }) => {
      const json = replaceAt(value, site.keys, invalid.replacement);
      let error: unknown;
      let bytes: Buffer | undefined;
      try {
        bytes = layout.encode(json);
      } catch (e) {
        error = e;
      }
      assert.ok(error !== undefined, `encode accepted it: ${bytes?.toString('hex')}`);
      assert.ok(error instanceof RecordEncodeError, `expected RecordEncodeError, got ${String(error)}`);
      assert.equal(error.path, invalid.expectedPath, error.message);
    }),
    { numRuns: NUM_RUNS },
  );
});

interface CorruptCase extends ValueCase {
  corruption: Corruption;
}

const corruptCaseArb: fc.Arbitrary<CorruptCase> = valueCaseArb.chain((c) =>
  corruptionArb(c.layout, c.value, c.layout.encode(c.value)).map((corruption) =>
    printable<CorruptCase>(
      { ...c, corruption },
      (x) =>
        `${describeValue(x)}record: ${x.layout.encode(x.value).toString('hex')}\n${x.corruption.label}: ${x.corruption.bytes.toString('hex')}; expected offset ${x.corruption.expectedOffset}\n`,
    ),
  ),
);

test('property: decode refuses corrupted records (zoned, packed and binary data, length), naming the byte offset', () => {
  fc.assert(
    fc.property(corruptCaseArb, ({ layout, corruption }) => {
      let error: unknown;
      let json: unknown;
      try {
        json = layout.decode(corruption.bytes);
      } catch (e) {
        error = e;
      }
      assert.ok(error !== undefined, `decode accepted it: ${JSON.stringify(json)}`);
      assert.ok(error instanceof RecordDecodeError, `expected RecordDecodeError, got ${String(error)}`);
      assert.equal(error.offset, corruption.expectedOffset, error.message);
      if (corruption.expectedField !== undefined) assert.equal(error.field, corruption.expectedField, error.message);
    }),
    { numRuns: NUM_RUNS },
  );
});

type Schema = Record<string, unknown>;

/** Where a JSON value breaks the layout's JSON Schema (the subset schema.ts writes: no 88 levels here). */
function schemaViolations(schema: Schema, v: unknown, path = ''): string[] {
  const out: string[] = [];
  const at = path === '' ? '(record)' : path;
  switch (schema.type) {
    case 'object': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return [`${at}: not an object`];
      const properties = schema.properties as Record<string, Schema>;
      for (const [k, x] of Object.entries(v)) {
        const p = properties[k];
        if (p === undefined) out.push(`${at}: unexpected key ${k}`);
        else out.push(...schemaViolations(p, x, path === '' ? k : `${path}.${k}`));
      }
      return out;
    }
    case 'array': {
      if (!Array.isArray(v)) return [`${at}: not an array`];
      if (typeof schema.maxItems === 'number' && v.length > schema.maxItems)
        out.push(`${at}: ${v.length} > maxItems ${schema.maxItems}`);
      if (typeof schema.minItems === 'number' && v.length < schema.minItems)
        out.push(`${at}: ${v.length} < minItems ${schema.minItems}`);
      v.forEach((x, i) => out.push(...schemaViolations(schema.items as Schema, x, `${path}[${i}]`)));
      return out;
    }
    case 'string':
      if (typeof v !== 'string') return [`${at}: ${JSON.stringify(v)} is not a string`];
      if (typeof schema.maxLength === 'number' && v.length > schema.maxLength)
        out.push(`${at}: longer than maxLength ${schema.maxLength}`);
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(v))
        out.push(`${at}: ${JSON.stringify(v)} does not match ${schema.pattern}`);
      return out;
    case 'integer':
    case 'number': {
      if (typeof v !== 'number')
        return [`${at}: ${JSON.stringify(v)} is not a number (schema type ${String(schema.type)})`];
      if (schema.type === 'integer' && !Number.isInteger(v)) out.push(`${at}: ${v} is not an integer`);
      if (typeof schema.minimum === 'number' && v < schema.minimum) out.push(`${at}: ${v} < minimum ${schema.minimum}`);
      if (typeof schema.maximum === 'number' && v > schema.maximum) out.push(`${at}: ${v} > maximum ${schema.maximum}`);
      return out;
    }
    default:
      return [`${at}: unexpected schema type ${String(schema.type)}`];
  }
}

interface NoiseCase extends ValueCase {
  noise: { label: string; bytes: Buffer };
}

const noiseCaseArb: fc.Arbitrary<NoiseCase> = valueCaseArb.chain((c) =>
  numericNoiseArb(c.layout, c.value, c.layout.encode(c.value)).map((noise) =>
    printable<NoiseCase>(
      { ...c, noise },
      (x) =>
        `${describeValue(x)}record: ${x.layout.encode(x.value).toString('hex')}\nnoise in ${x.noise.label}: ${x.noise.bytes.toString('hex')}\n`,
    ),
  ),
);

test('property: what decode accepts (random bytes in numeric fields) fits jsonSchema() and encode takes it back', () => {
  fc.assert(
    fc.property(noiseCaseArb, ({ layout, noise }) => {
      let json: Record<string, unknown>;
      try {
        json = layout.decode(noise.bytes);
      } catch (e) {
        assert.ok(e instanceof RecordDecodeError, `expected RecordDecodeError, got ${String(e)}`);
        return;
      }
      assert.deepEqual(schemaViolations(layout.jsonSchema(), json), []);
      const again = layout.encode(json);
      assert.deepStrictEqual(layout.decode(again), json);
    }),
    { numRuns: NUM_RUNS },
  );
});

// ── regressions: the bugs these properties found in src/ (fixed in b91eec0 and f9c6612), as minimal cases ──

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

test('regression: an ODO counter wider than 15 digits at 0 decodes to an empty table', () => {
  // was `new Array(odoCount)` with the string "0": ["0"] (8-byte COMP-5 counters too)
  const layout = compileCopybook(fixed('01 R.', '   05 N PIC 9(16).', '   05 T PIC X OCCURS 0 TO 3 DEPENDING ON N.'), {
    profile: 'gnucobol',
  });
  const bytes = layout.encode({ n: '0', t: [] });
  assert.equal(bytes.toString('latin1'), '0'.repeat(16));
  assert.deepStrictEqual(layout.decode(bytes), { n: '0', t: [] });
});

test('regression: zos with encoding ascii refuses byte 0xFF in an overpunched sign position', () => {
  // was: cp037 sign bytes that ASCII lacks mapped to -1, and `-1 & 0xff` made 0xFF a valid punch (read as -9)
  const layout = compileCopybook(fixed('01 R.', '   05 N PIC S9.'), { profile: 'zos', encoding: 'ascii' });
  let json: Record<string, unknown> | undefined;
  try {
    json = layout.decode(Buffer.from([0xff]));
  } catch (e) {
    assert.ok(e instanceof RecordDecodeError && e.offset === 0 && e.field === 'N', String(e));
  }
  assert.equal(json, undefined, `decoded 0xFF as ${JSON.stringify(json)}`);
});

test('regression: an unsigned COMP-3 field with sign nibble D never decodes to a negative number', () => {
  // strict decode refuses the sign nibble (offset 1) — or at least never returns a value the picture cannot hold
  const layout = compileCopybook(fixed('01 R.', '   05 N PIC 9(3) COMP-3.'), { profile: 'zos' });
  let json: Record<string, unknown>;
  try {
    json = layout.decode(Buffer.from('123d', 'hex'));
  } catch (e) {
    assert.ok(e instanceof RecordDecodeError && e.offset === 1, String(e));
    return;
  }
  assert.deepEqual(schemaViolations(layout.jsonSchema(), json), []);
  assert.deepStrictEqual(layout.decode(layout.encode(json)), json);
});

test('regression: an 8-byte COMP-5 field of at most 15 digits decodes to what jsonSchema() says', () => {
  const layout = compileCopybook(fixed('01 R.', '   05 N PIC 9(10) COMP-5.'), { profile: 'zos' });
  assert.deepEqual(schemaViolations(layout.jsonSchema(), layout.decode(layout.encode({ n: 123 }))), []);
});

test('regression: jsonSchema() of PIC 9(16) COMP-5 admits the 8-byte range that encode and decode take', () => {
  const layout = compileCopybook(fixed('01 R.', '   05 N PIC 9(16) COMP-5.'), { profile: 'zos' });
  assert.deepEqual(
    schemaViolations(layout.jsonSchema(), layout.decode(layout.encode({ n: '18446744073709551615' }))),
    [],
  );
});

test('regression: the ODO counter takes the decimal strings any field of its picture takes ("+2", "2.0", "-0")', () => {
  const layout = compileCopybook(
    fixed('01 R.', '   05 N PIC 9.', '   05 M PIC 9.', '   05 T PIC X OCCURS 0 TO 3 DEPENDING ON N.'),
    { profile: 'gnucobol' },
  );
  for (const spelling of ['+2', '2.0', '02.00']) {
    assert.equal(layout.encode({ m: spelling }).toString('latin1', 1, 2), '2'); // any other PIC 9 field takes it
    assert.equal(layout.encode({ n: spelling, t: ['a', 'b'] }).toString('latin1'), '20ab', spelling);
  }
  assert.equal(layout.encode({ n: '-0', t: [] }).toString('latin1'), '00');
});

test('regression: a VALUE on a JUSTIFIED RIGHT item is stored left-justified, as COBOL does', () => {
  // cobc 3.1.2: `05 A PIC X(5) JUSTIFIED RIGHT VALUE "AB".` holds "AB   " (also after INITIALIZE … ALL TO VALUE);
  // JUSTIFIED governs MOVEs into the item, not its initial value. The codec wrote "   AB".
  const layout = compileCopybook(fixed('01 R.', '   05 A PIC X(5) JUSTIFIED RIGHT VALUE "AB".'), {
    profile: 'gnucobol',
  });
  assert.equal(layout.encode({}).toString('latin1'), 'AB   ');
  assert.deepStrictEqual(layout.decode(layout.encode({})), { a: 'AB   ' });
});

/** JSON Schema (draft 2020-12 subset, also valid for Ajv/TypeBox users) generated from a layout. */
import { pictureMax } from './decimal.ts';
import { nullableSchema } from './empty.ts';
import type { Node } from './layout.ts';
import type { Literal } from './parser.ts';
import { decodesAsString } from './specs.ts';
import { literalJson } from './template.ts';
import { pictureLessSchema } from './pictureless.ts';

export type JsonSchema = Record<string, unknown>;

function conditionValue(lit: Literal, numeric: boolean): string | number | undefined {
  if (lit.kind === 'string' || lit.kind === 'national') return numeric ? undefined : lit.text.replace(/ +$/, '');
  if (lit.kind === 'number') return numeric ? Number(lit.text) : undefined;
  if (lit.kind === 'figurative') {
    if (lit.name === 'ZERO') return numeric ? 0 : undefined;
    if (lit.name === 'SPACE') return numeric ? undefined : '';
  }
  return undefined;
}

function elementarySchema(n: Node, annotate: boolean): JsonSchema {
  const pic = n.picture!;
  let schema: JsonSchema = {};
  if (n.picture === undefined) {
    schema = pictureLessSchema(n);
  } else if (n.kind === 'national') {
    // in UTF-16 code units: a character beyond U+FFFF takes two
    schema.type = 'string';
    schema.maxLength = pic.size;
  } else if (n.kind !== 'numeric') {
    schema.type = 'string';
    schema.maxLength = n.usage === 'display-1' ? pic.size : pic.edited ? pic.edited.dataLength : n.length;
    if (n.kind === 'alphabetic') schema.pattern = '^[A-Za-z ]*$';
  } else if (decodesAsString(n)) {
    schema.type = 'string';
    // an 8-byte COMP-5 holds 19 digits signed, 20 unsigned, whatever its picture says
    const digits = n.usage === 'comp-5' ? (pic.signed ? 19 : 20) : pic.digits;
    const intDigits = digits - pic.scale;
    const fraction = pic.scale > 0 ? `(\\.\\d{1,${pic.scale}})?` : '';
    schema.pattern = `^${pic.signed ? '-?' : ''}\\d{1,${Math.max(intDigits, 1)}}${fraction}$`;
  } else {
    schema.type = pic.scale <= 0 ? 'integer' : 'number';
    if (pic.scale !== 0) schema.multipleOf = 10 ** -pic.scale;
    const max = Number(pictureMax(pic.digits, pic.scale));
    if (n.usage === 'comp-5') {
      const bits = n.length * 8;
      schema.minimum = pic.signed ? -(2 ** (bits - 1)) / 10 ** pic.scale : 0;
      schema.maximum = (pic.signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1) / 10 ** pic.scale;
    } else {
      schema.minimum = pic.signed ? -max : 0;
      schema.maximum = max;
    }
  }
  const conditions = n.entry.conditions;
  if (conditions.length > 0) {
    const numeric = n.kind === 'numeric';
    const values: Array<string | number> = [];
    const ranges: JsonSchema[] = [];
    for (const c of conditions) {
      for (const v of c.conditionValues ?? []) {
        const from = conditionValue(v.from, numeric);
        if (from === undefined) continue;
        if (v.to === undefined) values.push(from);
        else {
          const to = conditionValue(v.to, numeric);
          if (numeric && typeof to === 'number') ranges.push({ minimum: from, maximum: to });
        }
      }
    }
    if (ranges.length === 0) schema.enum = [...new Set(values)];
    else schema.anyOf = [...(values.length > 0 ? [{ enum: [...new Set(values)] }] : []), ...ranges];
    if (annotate) {
      const valuesOf = (c: (typeof conditions)[number]) =>
        (c.conditionValues ?? []).map((v) =>
          v.to ? [conditionValue(v.from, numeric), conditionValue(v.to, numeric)] : conditionValue(v.from, numeric),
        );
      schema['x-conditions'] = Object.fromEntries(conditions.map((c) => [c.name, valuesOf(c)]));
    }
  }
  const dflt = literalJson(n);
  if (dflt !== undefined) schema.default = dflt;
  return nullableSchema(n, schema);
}

function itemSchema(n: Node, annotate: boolean): JsonSchema {
  let schema: JsonSchema;
  if (n.children.length > 0) {
    const properties: Record<string, JsonSchema> = {};
    for (const c of n.children) if (c.key !== null) properties[c.key] = withOccurs(c, annotate);
    schema = { type: 'object', properties, additionalProperties: false };
  } else {
    schema = elementarySchema(n, annotate);
  }
  if (annotate) {
    const picture = n.picture ? { picture: n.picture.normalized } : {};
    schema['x-cobol'] = { name: n.name, offset: n.offset, length: n.length, usage: n.usage, ...picture };
  }
  return schema;
}

function withOccurs(n: Node, annotate: boolean): JsonSchema {
  const item = itemSchema(n, annotate);
  if (!n.occurs) return item;
  const minItems = n.occurs.dependingOn ? { minItems: n.occurs.min } : {};
  return { type: 'array', items: item, maxItems: n.occurs.max, ...minItems };
}

/** With `annotate`, each item carries `x-cobol` (name, offset, length, usage, picture) and `x-conditions`. */
export function schemaOf(root: Node, annotate = false): JsonSchema {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: root.name, ...itemSchema(root, annotate) };
}

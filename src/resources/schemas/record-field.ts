/**
 * Request fields whose limits (length, range, decimal places) come from the record field they are written to,
 * so the limits are never copied by hand and a copybook change shows in the contract.
 */
import { Type, type TInteger, type TNumber, type TString } from 'typebox';
import { loadMessageCatalog, type TranCode } from '../../backend/copybooks/index.ts';
import { layoutJsonSchema, type JsonSchema } from '@corebridge/records';

const catalog = loadMessageCatalog();

/** The JSON schema the copybook gives the request record's field at `path` (`cusaAddr.cusaAddrLine1`). */
function recordFieldSchema(tran: TranCode, path: string): JsonSchema {
  let schema: JsonSchema = layoutJsonSchema(catalog.request(tran));
  for (const key of path.split('.')) {
    const properties = schema['properties'] as Record<string, JsonSchema> | undefined;
    const next = properties?.[key];
    if (!next) throw new Error(`${tran} has no record field ${path}`);
    schema = next;
  }
  return schema;
}

type StringRules = NonNullable<Parameters<typeof Type.String>[0]>;
type NumberRules = NonNullable<Parameters<typeof Type.Number>[0]>;

/** A text field: the record's length is the most the route may allow. */
export function recordString(tran: TranCode, path: string, rules: StringRules = {}): TString {
  const field = recordFieldSchema(tran, path);
  if (field['type'] !== 'string') throw new Error(`${tran} ${path} is not a text field`);
  if (rules.maxLength !== undefined && rules.maxLength > Number(field['maxLength'])) {
    throw new Error(
      `${tran} ${path} holds ${String(field['maxLength'])} characters; the route allows ${rules.maxLength}`,
    );
  }
  return Type.String({ maxLength: field['maxLength'] as number, ...rules });
}

function numericLimits(tran: TranCode, path: string, rules: NumberRules, type: 'number' | 'integer') {
  const field = recordFieldSchema(tran, path);
  if (field['type'] !== type)
    throw new Error(`${tran} ${path} is not ${type === 'integer' ? 'an integer' : 'a decimal'} field`);
  const ownLower = rules.minimum !== undefined || rules.exclusiveMinimum !== undefined;
  const ownUpper = rules.maximum !== undefined || rules.exclusiveMaximum !== undefined;
  // A route may narrow what the record holds, never widen it.
  if (
    Number(rules.maximum ?? rules.exclusiveMaximum ?? -Infinity) > Number(field['maximum']) ||
    Number(rules.minimum ?? rules.exclusiveMinimum ?? Infinity) < Number(field['minimum'])
  ) {
    throw new Error(
      `${tran} ${path} holds ${String(field['minimum'])} to ${String(field['maximum'])}; the route allows more`,
    );
  }
  return {
    ...(field['multipleOf'] !== undefined ? { multipleOf: field['multipleOf'] as number } : {}),
    ...(ownLower ? {} : { minimum: field['minimum'] as number }),
    ...(ownUpper ? {} : { maximum: field['maximum'] as number }),
    ...rules,
  };
}

/** A decimal field: its range and decimal places from the picture, narrowed by the route's own rules. */
export function recordDecimal(tran: TranCode, path: string, rules: NumberRules = {}): TNumber {
  return Type.Number(numericLimits(tran, path, rules, 'number'));
}

/** An integer field: its range from the picture, narrowed by the route's own rules. */
export function recordInteger(tran: TranCode, path: string, rules: NumberRules = {}): TInteger {
  return Type.Integer(numericLimits(tran, path, rules, 'integer'));
}

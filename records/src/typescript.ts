/**
 * TypeScript declarations of a layout's JSON form: what `decode` returns and `encode` takes, so code that
 * builds or reads records is checked against the copybook (a renamed field fails the type check). Fields
 * with a VALUE clause are optional on the way in (encode writes the VALUE); decode always gives every field.
 */
import type { JsonSchema } from './schema.ts';

/** COBOL record name → TypeScript type name: ORDER-CREATE-REQUEST → OrderCreateRequest. */
export function typeNameOf(cobolName: string): string {
  return cobolName
    .toLowerCase()
    .split(/[-_]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

function typeOf(schema: JsonSchema, indent: string): string {
  const type = schema['type'];
  if (Array.isArray(type))
    return type.map((t) => (t === 'null' ? 'null' : typeOf({ ...schema, type: t }, indent))).join(' | ');
  switch (type) {
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
      const inner = `${indent}  `;
      const lines = Object.entries(properties).map(([key, property]) => {
        const optional = property['default'] !== undefined ? '?' : '';
        return `${inner}${key}${optional}: ${typeOf(property, inner)};`;
      });
      return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${indent}}`;
    }
    case 'array':
      return `Array<${typeOf(schema['items'] as JsonSchema, indent)}>`;
    case 'integer':
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      throw new TypeError(`no TypeScript type for JSON schema type ${JSON.stringify(schema['type'])}`);
  }
}

/** `export interface Name { … }` for a layout's JSON schema (layoutJsonSchema), with the COBOL name in a comment. */
export function layoutTypeScript(schema: JsonSchema, name = typeNameOf(String(schema['title']))): string {
  if (schema['type'] !== 'object') throw new TypeError('a record layout is an object');
  return `/** ${String(schema['title'])} */\nexport interface ${name} ${typeOf(schema, '')}\n`;
}

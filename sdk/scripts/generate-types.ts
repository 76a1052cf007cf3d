/**
 * Generates the SDK's sources that follow the contract, from openapi/v1.json:
 * - src/schema.ts: the paths, operations and components as TypeScript types (openapi-typescript);
 * - src/operations.ts: which operations take an Idempotency-Key, so the client sends one on those only.
 * Lists of values the contract declares open are open unions where the client reads them.
 * `npm run sdk:types` writes them; test/sdk/generated.test.ts fails when they are stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, {
  astToString,
  COMMENT_HEADER,
  STRING,
  tsIntersection,
  type OpenAPI3,
  type OperationObject,
  type ParameterObject,
} from 'openapi-typescript';
import ts from 'typescript';

export const CONTRACT_FILE = fileURLToPath(new URL('../../openapi/v1.json', import.meta.url));
export const SCHEMA_FILE = fileURLToPath(new URL('../src/schema.ts', import.meta.url));
export const OPERATIONS_FILE = fileURLToPath(new URL('../src/operations.ts', import.meta.url));

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const IDEMPOTENCY_KEY = 'idempotency-key';

type Contract = OpenAPI3 & { paths: Record<string, Partial<Record<(typeof METHODS)[number], OperationObject>>> };

/** The header parameters an operation declares inline (the contract has no parameter components). */
function headerParameters(operation: OperationObject): ParameterObject[] {
  return (operation.parameters ?? []).filter((p): p is ParameterObject => !('$ref' in p) && p.in === 'header');
}

/** `METHOD /path` → whether the contract requires the Idempotency-Key or merely accepts it. */
export function idempotencyKeyOperations(contract: Contract): Record<string, 'required' | 'optional'> {
  const out: Record<string, 'required' | 'optional'> = {};
  for (const path of Object.keys(contract.paths).sort()) {
    for (const method of METHODS) {
      const operation = contract.paths[path]?.[method];
      const key = operation && headerParameters(operation).find((p) => p.name.toLowerCase() === IDEMPOTENCY_KEY);
      if (key) out[`${method.toUpperCase()} ${path}`] = key.required ? 'required' : 'optional';
    }
  }
  return out;
}

/**
 * The contract as the SDK's callers see it: the client makes the Idempotency-Key when the caller gives
 * none, so the header is optional in the generated types even where the API requires it.
 */
function asSdkCallersSeeIt(contract: Contract): Contract {
  const copy = structuredClone(contract);
  for (const item of Object.values(copy.paths)) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      for (const p of headerParameters(operation)) if (p.name.toLowerCase() === IDEMPOTENCY_KEY) p.required = false;
    }
  }
  withOpenListsRead(copy);
  return copy;
}

/** The contract's mark on a list of values that grows by design (src/contract/schema-diff.ts, OPEN_ENUM). */
const OPEN_ENUM = 'x-open-enum';
/** A member added to such a list where the client reads it; generated as `string & {}`. */
const UNKNOWN_VALUE = 'x-sdk-unknown-value';

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every open list under `value` gains the unknown-value member. */
function openListsIn(value: unknown): void {
  if (Array.isArray(value)) value.forEach(openListsIn);
  if (!isJson(value)) return;
  for (const child of Object.values(value)) openListsIn(child);
  if (value[OPEN_ENUM] !== true) return;
  const unknown = { type: 'string', [UNKNOWN_VALUE]: true };
  if (Array.isArray(value.anyOf)) value.anyOf.push(unknown);
  else if (Array.isArray(value.enum)) {
    value.anyOf = [{ type: value.type, enum: value.enum }, unknown];
    delete value.enum;
    delete value.type;
  }
}

/**
 * Open lists where the client reads them (responses, webhooks, shared schemas) become `'A' | 'B' | (string & {})`:
 * the compiler then asks for a branch for values a later version adds, and still suggests the known ones. Requests
 * keep the closed list, which the server checks.
 */
function withOpenListsRead(contract: Contract): void {
  for (const item of Object.values(contract.paths)) {
    for (const method of METHODS) openListsIn(item?.[method]?.responses);
  }
  openListsIn(contract.webhooks);
  openListsIn(contract.components?.schemas);
}

/** `string & {}`: any string, without absorbing the literals beside it in a union. */
const OPEN_STRING = ts.factory.createParenthesizedType(tsIntersection([STRING, ts.factory.createTypeLiteralNode([])]));

export function readContract(file = CONTRACT_FILE): Contract {
  return JSON.parse(readFileSync(file, 'utf8')) as Contract;
}

/** The generated files' text, by path. */
export async function generatedSources(contract: Contract = readContract()): Promise<Record<string, string>> {
  const ast = await openapiTS(asSdkCallersSeeIt(contract), {
    silent: true,
    transform: (schema) => ((schema as Json)[UNKNOWN_VALUE] === true ? OPEN_STRING : undefined),
  });
  const schema = [
    COMMENT_HEADER.trimEnd(),
    '// Generated from openapi/v1.json by `npm run sdk:types` (sdk/scripts/generate-types.ts). The Idempotency-Key',
    '// header is optional here: the client makes one when the caller gives none.',
    '',
    astToString(ast),
  ].join('\n');
  const operations = idempotencyKeyOperations(contract);
  const lines = Object.entries(operations).map(([op, mode]) => `  '${op}': '${mode}',`);
  const operationsText = [
    '// Generated from openapi/v1.json by `npm run sdk:types` (sdk/scripts/generate-types.ts): do not edit.',
    '',
    '/**',
    ' * The operations that declare an Idempotency-Key header (`METHOD /path template`): the client sends a key on',
    ' * these, one per logical call, the same on every retry.',
    ' */',
    "export const IDEMPOTENCY_KEY_OPERATIONS: Readonly<Record<string, 'required' | 'optional'>> = {",
    ...lines,
    '};',
    '',
  ].join('\n');
  return { [SCHEMA_FILE]: schema, [OPERATIONS_FILE]: operationsText };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(
      'usage: npm run sdk:types\n  writes sdk/src/schema.ts and sdk/src/operations.ts from openapi/v1.json\n',
    );
    process.exit(0);
  }
  for (const [file, text] of Object.entries(await generatedSources())) {
    writeFileSync(file, text);
    process.stdout.write(`wrote ${file}\n`);
  }
}

/**
 * Every answer the API tests see is checked against the committed contract (openapi/v1.json): its status is
 * one the operation declares, its body matches the declared schema with no field the contract does not name,
 * and the API's own headers are declared and well-formed. A path the contract does not have must be answered
 * with a problem.
 */
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { readCommittedContract } from '../../src/contract/document.ts';
import { RESPONSE_HEADERS } from '../../src/api/openapi-operation.ts';

type Schema = Record<string, unknown>;
interface Operation {
  responses: Record<
    string,
    { content?: Record<string, { schema: Schema }>; headers?: Record<string, { schema: Schema }> }
  >;
}

const contract = readCommittedContract();
const components = ((contract['components'] as Schema | undefined)?.['schemas'] ?? {}) as Record<string, Schema>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// eslint-disable-next-line no-restricted-syntax -- ajv-formats types its default export for CommonJS
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

/** The schema with references inlined and every object closed: a field the contract does not name fails. */
function strict(schema: unknown, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((s) => strict(s, depth));
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Schema;
  if (typeof s['$ref'] === 'string') {
    const name = (s['$ref'] as string).replace('#/components/schemas/', '');
    const target = components[name];
    if (!target || depth > 20) throw new Error(`unresolved reference ${String(s['$ref'])}`);
    return strict(target, depth + 1);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    // Values of these keywords are data, not schemas.
    out[key] =
      key === 'enum' || key === 'const' || key === 'examples' || key === 'default' || key === 'required'
        ? value
        : strict(value, depth);
  }
  if (out['properties'] && out['additionalProperties'] === undefined && !out['allOf'])
    out['additionalProperties'] = false;
  return out;
}

const validators = new Map<Schema, ValidateFunction>();
function validatorFor(schema: Schema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) {
    v = ajv.compile(strict(schema) as Schema);
    validators.set(schema, v);
  }
  return v;
}

const templates = Object.keys(contract.paths).map((path) => ({
  path,
  pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

const PROBLEM = components['Problem']!;
/** The API's own response headers: where one appears, the contract must declare it. */
const API_HEADERS = Object.keys(RESPONSE_HEADERS);

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

function checkBody(where: string, schema: Schema, answer: Answer): void {
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    assert.fail(`${where}: the body is not JSON: ${answer.body.slice(0, 200)}`);
  }
  const validate = validatorFor(schema);
  assert.ok(
    validate(body),
    `${where}: the body does not match the contract: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${answer.body.slice(0, 500)}`,
  );
}

/** Fails the test when the answer is not one the contract allows for this request. */
export function assertContract(method: string, url: string, answer: Answer): void {
  const path = url.split('?')[0]!;
  const template = templates.find((t) => t.pattern.test(path));
  const where = `${method} ${path} → ${answer.statusCode}`;
  const mediaType = String(answer.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  if (!template) {
    // Paths outside the contract: the identity provider's, a deployment's own services (SERVICES_DIR), and
    // unknown ones, whose refusals are problems.
    if (!path.startsWith('/v1/') || answer.statusCode < 400) return;
    assert.equal(mediaType, 'application/problem+json', `${where}: a refusal must be a problem`);
    checkBody(where, PROBLEM, answer);
    return;
  }
  const operation = contract.paths[template.path]![method.toLowerCase()] as Operation | undefined;
  if (!operation) {
    assert.equal(
      answer.statusCode,
      method === 'OPTIONS' ? answer.statusCode : 405,
      `${where}: the contract has no ${method} on ${template.path}`,
    );
    return;
  }
  const response = operation.responses[String(answer.statusCode)];
  assert.ok(
    response,
    `${where}: status ${answer.statusCode} is not in the contract for ${method} ${template.path} (it has ${Object.keys(operation.responses).join(', ')})`,
  );
  if (response.content) {
    const declared = response.content[mediaType];
    assert.ok(
      declared,
      `${where}: content-type ${mediaType || '(none)'} is not in the contract (${Object.keys(response.content).join(', ')})`,
    );
    checkBody(where, declared.schema, answer);
  } else {
    assert.equal(answer.body, '', `${where}: the contract declares no body`);
  }
  const headers = response.headers ?? {};
  assert.ok(answer.headers['x-request-id'], `${where}: every answer carries X-Request-ID`);
  for (const name of API_HEADERS) {
    const value = answer.headers[name];
    if (value === undefined) continue;
    const declared = headers[name];
    assert.ok(declared, `${where}: header ${name} is sent but not in the contract`);
    const validate = validatorFor(declared.schema);
    assert.ok(
      validate(String(value)),
      `${where}: header ${name}: ${String(value)} does not match ${JSON.stringify(declared.schema)}`,
    );
  }
}

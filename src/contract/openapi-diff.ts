/**
 * compareContracts: every difference between two OpenAPI documents, each judged breaking or not for a
 * client that was correct against the base. Paths, operations, parameters, bodies and status codes here;
 * the rules for schemas in schema-diff.ts.
 */
import {
  compareSchema,
  resolveRef,
  type ContractChange,
  type Direction,
  type Schema,
  type SchemaComparison,
} from './schema-diff.ts';

export type { ContractChange, Severity } from './schema-diff.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const entries = (value: unknown): Array<[string, unknown]> => (isObject(value) ? Object.entries(value) : []);
const show = (value: unknown) => JSON.stringify(value);

/** Operations of a path or webhook, by method. */
function operations(pathItem: unknown): Map<string, Schema> {
  const found = new Map<string, Schema>();
  if (!isObject(pathItem)) return found;
  for (const method of METHODS) if (isObject(pathItem[method])) found.set(method, pathItem[method]);
  return found;
}

/** "/orders/{orderId}" and "/orders/{id}" are the same URL: parameter names do not reach the wire. */
const pathShape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

export function compareContracts(base: Schema, head: Schema): ContractChange[] {
  const changes: ContractChange[] = [];
  const seen = new Set<string>();
  const cmp: SchemaComparison = {
    base,
    head,
    compared: new Set(),
    report(severity, location, message) {
      const key = `${severity}\n${location}\n${message}`;
      if (seen.has(key)) return;
      seen.add(key);
      changes.push({ severity, location, message });
    },
  };
  comparePaths(cmp, base.paths, head.paths);
  compareWebhooks(cmp, base.webhooks, head.webhooks);
  return changes;
}

function comparePaths(cmp: SchemaComparison, basePaths: unknown, headPaths: unknown): void {
  const headByShape = new Map(entries(headPaths).map(([path, item]) => [pathShape(path), { path, item }]));
  const baseShapes = new Set<string>();
  for (const [path, baseItem] of entries(basePaths)) {
    baseShapes.add(pathShape(path));
    const match = headByShape.get(pathShape(path));
    if (!match) {
      cmp.report(
        'breaking',
        path,
        `path removed (${[...operations(baseItem).keys()].map((m) => m.toUpperCase()).join(', ')})`,
      );
      continue;
    }
    if (match.path !== path) cmp.report('non-breaking', path, `path parameters renamed: now ${match.path}`);
    const headOperations = operations(match.item);
    for (const [method, baseOperation] of operations(baseItem)) {
      const where = `${method.toUpperCase()} ${path}`;
      const headOperation = headOperations.get(method);
      if (!headOperation) cmp.report('breaking', where, 'operation removed');
      else {
        compareOperation(
          cmp,
          where,
          withPathParameters(baseItem, baseOperation),
          withPathParameters(match.item, headOperation),
        );
        compareSecurity(
          cmp,
          where,
          baseOperation.security ?? cmp.base.security,
          headOperation.security ?? cmp.head.security,
        );
      }
    }
    for (const method of headOperations.keys()) {
      if (!operations(baseItem).has(method))
        cmp.report('non-breaking', `${method.toUpperCase()} ${path}`, 'operation added');
    }
  }
  for (const [shape, { path, item }] of headByShape) {
    if (!baseShapes.has(shape))
      cmp.report(
        'non-breaking',
        path,
        `path added (${[...operations(item).keys()].map((m) => m.toUpperCase()).join(', ')})`,
      );
  }
}

/** Parameters declared on the path item apply to each of its operations unless an operation redeclares them. */
function withPathParameters(pathItem: unknown, operation: Schema): Schema {
  if (!isObject(pathItem) || !Array.isArray(pathItem.parameters)) return operation;
  return {
    ...operation,
    parameters: [...pathItem.parameters, ...(Array.isArray(operation.parameters) ? operation.parameters : [])],
  };
}

/**
 * Webhooks run the other way: the service sends the request and the subscriber reads it, so their
 * parameters and bodies are judged as responses. What a subscriber answers is not compared.
 */
function compareWebhooks(cmp: SchemaComparison, baseHooks: unknown, headHooks: unknown): void {
  const headMap = new Map(entries(headHooks));
  for (const [name, baseItem] of entries(baseHooks)) {
    const headOperations = operations(headMap.get(name));
    for (const [method, baseOperation] of operations(baseItem)) {
      const where = `webhook ${name} (${method.toUpperCase()})`;
      const headOperation = headOperations.get(method);
      if (!headOperation) cmp.report('breaking', where, 'webhook removed: subscribers no longer receive it');
      else compareRequest(cmp, where, baseOperation, headOperation, 'response');
    }
  }
  const baseMap = new Map(entries(baseHooks));
  for (const [name, headItem] of headMap) {
    for (const method of operations(headItem).keys()) {
      if (!operations(baseMap.get(name)).has(method))
        cmp.report('non-breaking', `webhook ${name} (${method.toUpperCase()})`, 'webhook added');
    }
  }
}

function compareOperation(cmp: SchemaComparison, where: string, base: Schema, head: Schema): void {
  for (const keyword of ['summary', 'description', 'operationId', 'tags']) {
    if (show(base[keyword]) !== show(head[keyword])) cmp.report('non-breaking', where, `${keyword} changed`);
  }
  if (base.deprecated !== true && head.deprecated === true)
    cmp.report('non-breaking', where, 'operation now deprecated');
  compareRequest(cmp, where, base, head, 'request');
  compareResponses(cmp, where, base.responses, head.responses);
}

/** Parameters and body of a request, written by the client (or, for webhooks, read by it). */
function compareRequest(cmp: SchemaComparison, where: string, base: Schema, head: Schema, direction: Direction): void {
  const clientWrites = direction === 'request';
  const baseParameters = parameters(cmp.base, base.parameters);
  const headParameters = parameters(cmp.head, head.parameters);
  for (const [key, baseParameter] of baseParameters) {
    const location = `${where} ${key}`;
    const headParameter = headParameters.get(key);
    if (!headParameter) {
      cmp.report(
        'breaking',
        location,
        clientWrites ? 'parameter removed: clients that send it lose its effect' : 'parameter removed: no longer sent',
      );
      continue;
    }
    compareRequired(
      cmp,
      location,
      baseParameter.required === true,
      headParameter.required === true,
      direction,
      'parameter',
    );
    if (show(baseParameter.description) !== show(headParameter.description))
      cmp.report('non-breaking', location, 'description changed');
    compareSchema(cmp, direction, baseParameter.schema, headParameter.schema, location);
  }
  for (const [key, headParameter] of headParameters) {
    if (baseParameters.has(key)) continue;
    if (clientWrites && headParameter.required === true)
      cmp.report('breaking', `${where} ${key}`, 'new required parameter: requests without it are refused');
    else cmp.report('non-breaking', `${where} ${key}`, clientWrites ? 'new optional parameter' : 'new parameter sent');
  }
  compareBody(cmp, `${where} request body`, base.requestBody, head.requestBody, direction);
}

/** Parameters by "in name" (header names are case-insensitive). */
function parameters(document: Schema, list: unknown): Map<string, Schema> {
  const found = new Map<string, Schema>();
  for (const item of Array.isArray(list) ? list : []) {
    const parameter = resolveRef(document, item).schema;
    const name = String(parameter.name);
    found.set(`${String(parameter.in)} ${parameter.in === 'header' ? name.toLowerCase() : name}`, parameter);
  }
  return found;
}

/** A required flag: a client must now send something, or may no longer count on receiving it. */
function compareRequired(
  cmp: SchemaComparison,
  location: string,
  was: boolean,
  is: boolean,
  direction: Direction,
  what: string,
): void {
  if (was === is) return;
  if (direction === 'request') {
    cmp.report(
      is ? 'breaking' : 'non-breaking',
      location,
      is ? `${what} now required: requests without it are refused` : `${what} now optional`,
    );
  } else {
    cmp.report(
      is ? 'non-breaking' : 'breaking',
      location,
      is ? `${what} now always sent` : `${what} no longer always sent: may be absent`,
    );
  }
}

function compareBody(
  cmp: SchemaComparison,
  where: string,
  baseValue: unknown,
  headValue: unknown,
  direction: Direction,
): void {
  if (baseValue === undefined && headValue === undefined) return;
  const base = resolveRef(cmp.base, baseValue).schema;
  const head = resolveRef(cmp.head, headValue).schema;
  if (baseValue === undefined) {
    const required = head.required === true && direction === 'request';
    cmp.report(
      required ? 'breaking' : 'non-breaking',
      where,
      required ? 'request body now required' : 'request body added',
    );
    return;
  }
  if (headValue === undefined) {
    cmp.report(
      'breaking',
      where,
      direction === 'request' ? 'request body no longer accepted' : 'request body no longer sent',
    );
    return;
  }
  compareRequired(cmp, where, base.required === true, head.required === true, direction, 'body');
  compareContent(cmp, where, base.content, head.content, direction);
}

/** Media types of a body and their schemas; "application/json" goes without saying in locations. */
function compareContent(
  cmp: SchemaComparison,
  where: string,
  baseContent: unknown,
  headContent: unknown,
  direction: Direction,
): void {
  const headMap = new Map(entries(headContent));
  const named = (mediaType: string) => (mediaType === 'application/json' ? where : `${where} (${mediaType})`);
  for (const [mediaType, baseMedia] of entries(baseContent)) {
    const headMedia = headMap.get(mediaType);
    if (!isObject(headMedia)) {
      cmp.report(
        'breaking',
        named(mediaType),
        direction === 'request' ? `${mediaType} no longer accepted` : `${mediaType} no longer answered`,
      );
      continue;
    }
    compareSchema(
      cmp,
      direction,
      isObject(baseMedia) ? baseMedia.schema : undefined,
      headMedia.schema,
      named(mediaType),
    );
  }
  const baseMap = new Map(entries(baseContent));
  for (const mediaType of headMap.keys()) {
    if (!baseMap.has(mediaType)) {
      cmp.report(
        'non-breaking',
        named(mediaType),
        direction === 'request' ? `${mediaType} now accepted` : `${mediaType} may now be answered`,
      );
    }
  }
}

const isSuccess = (status: string) => /^2/.test(status);

function compareResponses(cmp: SchemaComparison, where: string, baseResponses: unknown, headResponses: unknown): void {
  const headMap = new Map(entries(headResponses));
  const baseMap = new Map(entries(baseResponses));
  const addedSuccess = [...headMap.keys()].filter((status) => !baseMap.has(status) && isSuccess(status));
  for (const [status, baseValue] of baseMap) {
    const location = `${where} response ${status}`;
    if (!headMap.has(status)) {
      const replacement = isSuccess(status) && addedSuccess.length > 0 ? ` (now ${addedSuccess.join(', ')})` : '';
      cmp.report('breaking', location, `status ${status} removed${replacement}: clients that expect it break`);
      continue;
    }
    const base = resolveRef(cmp.base, baseValue).schema;
    const head = resolveRef(cmp.head, headMap.get(status)).schema;
    if (show(base.description) !== show(head.description)) cmp.report('non-breaking', location, 'description changed');
    compareHeaders(cmp, location, base.headers, head.headers);
    compareContent(cmp, `${location} body`, base.content, head.content, 'response');
  }
  for (const status of headMap.keys()) {
    if (!baseMap.has(status)) cmp.report('non-breaking', `${where} response ${status}`, `status ${status} added`);
  }
}

function compareHeaders(cmp: SchemaComparison, where: string, baseHeaders: unknown, headHeaders: unknown): void {
  const byName = (document: Schema, headers: unknown) =>
    new Map(entries(headers).map(([name, value]) => [name.toLowerCase(), resolveRef(document, value).schema]));
  const baseMap = byName(cmp.base, baseHeaders);
  const headMap = byName(cmp.head, headHeaders);
  for (const [name, base] of baseMap) {
    const location = `${where} header ${name}`;
    const head = headMap.get(name);
    if (!head) {
      cmp.report('breaking', location, 'header no longer sent');
      continue;
    }
    compareRequired(cmp, location, base.required === true, head.required === true, 'response', 'header');
    if (show(base.description) !== show(head.description)) cmp.report('non-breaking', location, 'description changed');
    compareSchema(cmp, 'response', base.schema, head.schema, location);
  }
  for (const name of headMap.keys()) {
    if (!baseMap.has(name)) cmp.report('non-breaking', `${where} header ${name}`, 'header added');
  }
}

/** Security requirements: alternatives, each a map of scheme → scopes that must all be held. */
type Requirement = Map<string, Set<string>>;

function requirements(value: unknown): Requirement[] {
  if (!Array.isArray(value)) return [];
  return value.map(
    (alternative) =>
      new Map(
        entries(alternative).map(([scheme, scopes]) => [
          scheme,
          new Set(Array.isArray(scopes) ? scopes.map(String) : []),
        ]),
      ),
  );
}

/** `loose` asks for nothing that `strict` does not: whoever satisfies strict satisfies loose. */
const asksNoMore = (loose: Requirement, strict: Requirement) =>
  [...loose].every(
    ([scheme, scopes]) => strict.has(scheme) && [...scopes].every((scope) => strict.get(scheme)!.has(scope)),
  );

const showRequirement = (requirement: Requirement) =>
  [...requirement]
    .map(([scheme, scopes]) => `${scheme}${scopes.size > 0 ? ` (${[...scopes].join(' ')})` : ''}`)
    .join(' + ') || 'none';

/** A client that met some base alternative must still meet one: a new scheme or scope locks it out. */
function compareSecurity(cmp: SchemaComparison, where: string, baseValue: unknown, headValue: unknown): void {
  if (show(baseValue) === show(headValue)) return;
  const base = requirements(baseValue);
  const head = requirements(headValue);
  // No requirement at all (absent or []) means anyone may call.
  const open = (list: Requirement[]) => list.length === 0 || list.some((requirement) => requirement.size === 0);
  if (open(head)) {
    cmp.report('non-breaking', `${where} security`, 'security requirements relaxed');
    return;
  }
  const lockedOut = open(base) ? [new Map()] : base.filter((held) => !head.some((needed) => asksNoMore(needed, held)));
  for (const held of lockedOut) {
    cmp.report(
      'breaking',
      `${where} security`,
      `clients holding ${showRequirement(held)} are no longer let in: now ${head.map(showRequirement).join(' or ')}`,
    );
  }
  if (lockedOut.length === 0)
    cmp.report(
      'non-breaking',
      `${where} security`,
      'security requirements changed; every client let in before still is',
    );
}

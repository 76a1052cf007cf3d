/**
 * The rules for one JSON Schema of the contract against its earlier version. Requests and responses are
 * asymmetric: a client that was correct yesterday must stay correct, so a request may only widen (accept
 * more) and a response may only narrow (send less variety). Each rule below judges a change by direction.
 */

export type Severity = 'breaking' | 'non-breaking';

export interface ContractChange {
  severity: Severity;
  /** "METHOD /path where: field.path", or a JSON pointer into components for a shared schema */
  location: string;
  /** What changed, in plain words */
  message: string;
}

/** Who writes the value: the client (request) or the server (response, and what a webhook sends). */
export type Direction = 'request' | 'response';

export type Schema = Record<string, unknown>;

export interface SchemaComparison {
  base: Schema;
  head: Schema;
  report(severity: Severity, location: string, message: string): void;
  /** Pairs of $refs already compared in a direction: shared schemas are reported once, cycles end. */
  compared: Set<string>;
}

/** A change that makes a value set tighter, looser, or neither (a changed pattern or format). */
type Shift = 'tighter' | 'looser' | 'changed';

/** Numeric limits: which way of moving the value accepts fewer values. */
const NUMERIC_LIMITS: ReadonlyArray<{ keyword: string; tighterWhen: 'lower' | 'higher' }> = [
  { keyword: 'maxLength', tighterWhen: 'lower' },
  { keyword: 'maxItems', tighterWhen: 'lower' },
  { keyword: 'maxProperties', tighterWhen: 'lower' },
  { keyword: 'maximum', tighterWhen: 'lower' },
  { keyword: 'exclusiveMaximum', tighterWhen: 'lower' },
  { keyword: 'minLength', tighterWhen: 'higher' },
  { keyword: 'minItems', tighterWhen: 'higher' },
  { keyword: 'minProperties', tighterWhen: 'higher' },
  { keyword: 'minimum', tighterWhen: 'higher' },
  { keyword: 'exclusiveMinimum', tighterWhen: 'higher' },
];

/** Keywords whose any change is incomparable: added is tighter, removed is looser. */
const SHAPE_KEYWORDS = ['pattern', 'format'] as const;

/** Which shifts break whom: a tighter request refuses what clients send, a looser response surprises them. */
function shiftSeverity(direction: Direction, shift: Shift): Severity {
  if (shift === 'changed') return 'breaking';
  return (direction === 'request') === (shift === 'tighter') ? 'breaking' : 'non-breaking';
}

/**
 * The mark of a response list of values that grows by design (event types, delivery states): clients were told to
 * handle values they do not know, so a new one breaks nobody. Only the base's mark counts: it is what clients read.
 */
export const OPEN_ENUM = 'x-open-enum';
const isOpen = (schema: Schema) => schema[OPEN_ENUM] === true;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows a local $ref ("#/components/schemas/X") within its own document. */
export function resolveRef(document: Schema, value: unknown): { schema: Schema; ref?: string } {
  let schema: Schema = isObject(value) ? value : {};
  let ref: string | undefined;
  for (let hops = 0; typeof schema.$ref === 'string' && schema.$ref.startsWith('#/') && hops < 20; hops++) {
    ref = schema.$ref;
    let target: unknown = document;
    for (const token of ref.slice(2).split('/')) {
      target = isObject(target) ? target[token.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
    }
    schema = isObject(target) ? target : {};
  }
  return ref === undefined ? { schema } : { schema, ref };
}

/** The values a schema allows when it lists them: enum, const, or a union of such (TypeBox literals). */
function literalValues(document: Schema, schema: Schema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  const members = unionMembers(schema);
  if (!members) return undefined;
  const values: unknown[] = [];
  for (const member of members) {
    const memberValues = literalValues(document, resolveRef(document, member).schema);
    if (!memberValues) return undefined;
    values.push(...memberValues);
  }
  return values;
}

function unionMembers(schema: Schema): unknown[] | undefined {
  const members = schema.anyOf ?? schema.oneOf;
  return Array.isArray(members) && members.length > 0 ? members : undefined;
}

function typeSet(document: Schema, schema: Schema): Set<string> | undefined {
  const types = new Set<string>();
  if (typeof schema.type === 'string') types.add(schema.type);
  else if (Array.isArray(schema.type)) for (const type of schema.type) types.add(String(type));
  else if (literalValues(document, schema) && unionMembers(schema)) {
    for (const member of unionMembers(schema) ?? []) {
      for (const type of typeSet(document, resolveRef(document, member).schema) ?? []) types.add(type);
    }
  } else return undefined;
  if (schema.nullable === true) types.add('null'); // OpenAPI 3.0 spelling
  return types;
}

/** Whether a value of `type` is also valid under `types` (every integer is a number). */
const covers = (types: Set<string>, type: string) => types.has(type) || (type === 'integer' && types.has('number'));

const show = (value: unknown) => JSON.stringify(value);
const showTypes = (types: Set<string>) => [...types].sort().join(' | ');
const join = (field: string, name: string) => (field === '' ? name : `${field}.${name}`);
const at = (where: string, field: string) => (field === '' ? where : `${where}: ${field}`);

/** Compares one schema and everything under it; `where` names the place, `field` the path inside it. */
export function compareSchema(
  cmp: SchemaComparison,
  direction: Direction,
  baseValue: unknown,
  headValue: unknown,
  where: string,
  field = '',
): void {
  const baseResolved = resolveRef(cmp.base, baseValue);
  const headResolved = resolveRef(cmp.head, headValue);
  if (baseResolved.ref !== undefined || headResolved.ref !== undefined) {
    const key = `${direction} ${baseResolved.ref ?? '-'} ${headResolved.ref ?? '-'}`;
    if (cmp.compared.has(key)) return;
    cmp.compared.add(key);
    // The same shared schema on both sides: its changes are reported once, where it is defined.
    if (baseResolved.ref === headResolved.ref) {
      where = `${baseResolved.ref} (${direction === 'request' ? 'in requests' : 'in responses'})`;
      field = '';
    }
  }
  const base = baseResolved.schema;
  const head = headResolved.schema;
  const location = at(where, field);
  const report = (severity: Severity, message: string) => cmp.report(severity, location, message);

  compareAnnotations(report, direction, base, head);
  const baseLiterals = literalValues(cmp.base, base);
  const headLiterals = literalValues(cmp.head, head);
  if (baseLiterals || headLiterals) compareLiterals(report, direction, baseLiterals, headLiterals, isOpen(base));
  const literalUnion = (document: Schema, schema: Schema) =>
    Boolean(unionMembers(schema) && literalValues(document, schema));
  if (!literalUnion(cmp.base, base) && !literalUnion(cmp.head, head) && (unionMembers(base) || unionMembers(head))) {
    // A lone schema is a union of one: the $ref as written, so that it pairs with the same $ref.
    const members = (value: unknown, schema: Schema) => unionMembers(schema) ?? [value];
    compareAlternatives(cmp, direction, members(baseValue, base), members(headValue, head), where, field);
    return;
  }
  if (!compareTypes(report, direction, typeSet(cmp.base, base), typeSet(cmp.head, head))) return;
  compareLimits(report, direction, base, head);
  compareProperties(cmp, direction, base, head, where, field);
  if (base.items !== undefined && head.items !== undefined) {
    compareSchema(cmp, direction, base.items, head.items, where, `${field}[]`);
  }
}

function compareAnnotations(
  report: (s: Severity, m: string) => void,
  direction: Direction,
  base: Schema,
  head: Schema,
): void {
  for (const keyword of ['description', 'title', 'examples', 'example']) {
    if (show(base[keyword]) !== show(head[keyword])) report('non-breaking', `${keyword} changed`);
  }
  if (base.deprecated !== true && head.deprecated === true) report('non-breaking', 'now deprecated');
  // Its own line: values added in the same change are still judged by the base's (closed) promise.
  if (!isOpen(base) && isOpen(head)) {
    report(
      'non-breaking',
      direction === 'request'
        ? 'list of values now open: later versions may accept more'
        : 'list of values now open: later versions may return more, clients must handle unknown ones',
    );
  } else if (isOpen(base) && !isOpen(head)) report('non-breaking', 'list of values no longer open');
  if (show(base.default) !== show(head.default)) {
    // A request default is what the server assumes when the field is left out: clients that leave it out change
    // behaviour.
    report(
      direction === 'request' ? 'breaking' : 'non-breaking',
      `default changed from ${show(base.default)} to ${show(head.default)}`,
    );
  }
}

function compareLiterals(
  report: (s: Severity, m: string) => void,
  direction: Direction,
  base: unknown[] | undefined,
  head: unknown[] | undefined,
  baseOpen: boolean,
): void {
  if (base && head) {
    const removed = base.filter((value) => !head.some((other) => show(other) === show(value)));
    const added = head.filter((value) => !base.some((other) => show(other) === show(value)));
    for (const value of removed) {
      if (direction === 'request') report('breaking', `value ${show(value)} is no longer accepted`);
      else report('non-breaking', `value ${show(value)} is no longer returned`);
    }
    for (const value of added) {
      if (direction === 'request') report('non-breaking', `value ${show(value)} is now accepted too`);
      else if (baseOpen) report('non-breaking', `new value ${show(value)} may be returned (the list is open)`);
      else
        report(
          'breaking',
          `new value ${show(value)} may be returned: clients that handle only the listed values meet an unknown one`,
        );
    }
  } else if (base) {
    const limited = `no longer limited to ${base.map(show).join(', ')}`;
    if (direction === 'request') report('non-breaking', limited);
    else if (baseOpen) report('non-breaking', `${limited} (the list was open)`);
    else report('breaking', `${limited}: any value may be returned`);
  } else if (head) {
    if (direction === 'request')
      report('breaking', `now limited to ${head.map(show).join(', ')}: other values are refused`);
    else report('non-breaking', `now limited to ${head.map(show).join(', ')}`);
  }
}

/** Returns false when the types have nothing in common, so that comparing deeper would only add noise. */
function compareTypes(
  report: (s: Severity, m: string) => void,
  direction: Direction,
  base: Set<string> | undefined,
  head: Set<string> | undefined,
): boolean {
  if (!base && !head) return true;
  if (!base || !head) {
    const declared = showTypes((base ?? head) as Set<string>);
    const widened = !head;
    report(
      shiftSeverity(direction, widened ? 'looser' : 'tighter'),
      widened ? `type ${declared} no longer declared` : `type now declared as ${declared}`,
    );
    return true;
  }
  const change = `type changed from ${showTypes(base)} to ${showTypes(head)}`;
  const lost = [...base].filter((type) => !covers(head, type));
  const gained = [...head].filter((type) => !covers(base, type));
  if (direction === 'request') {
    if (lost.length > 0) report('breaking', `${change}: a ${lost.join(' or ')} is no longer accepted`);
    else if (gained.length > 0 || base.size !== head.size) report('non-breaking', `${change} (wider)`);
  } else {
    if (gained.length > 0) report('breaking', `${change}: may now be ${gained.join(' or ')}`);
    // A value that could be null no longer can be: typed clients generated from the contract change their types.
    else if (base.has('null') && !head.has('null')) report('breaking', `${change}: no longer null`);
    else if (lost.length > 0 || base.size !== head.size) report('non-breaking', `${change} (narrower)`);
  }
  return [...base].some((type) => covers(head, type)) || [...head].some((type) => covers(base, type));
}

function numericShift(tighterWhen: 'lower' | 'higher', base: unknown, head: unknown): Shift | undefined {
  if (base === head) return undefined;
  if (typeof base !== 'number') return 'tighter';
  if (typeof head !== 'number') return 'looser';
  return head < base === (tighterWhen === 'lower') ? 'tighter' : 'looser';
}

/** multipleOf: the new step accepts every old value when the old step is a whole multiple of it. */
function multipleOfShift(base: unknown, head: unknown): Shift | undefined {
  if (base === head) return undefined;
  if (typeof base !== 'number') return 'tighter';
  if (typeof head !== 'number') return 'looser';
  const whole = (ratio: number) => Math.abs(ratio - Math.round(ratio)) < 1e-9;
  if (whole(base / head)) return 'looser';
  return whole(head / base) ? 'tighter' : 'changed';
}

function compareLimits(
  report: (s: Severity, m: string) => void,
  direction: Direction,
  base: Schema,
  head: Schema,
): void {
  const judge = (keyword: string, shift: Shift | undefined) => {
    if (!shift) return;
    const from = base[keyword] === undefined ? 'none' : show(base[keyword]);
    const to = head[keyword] === undefined ? 'none' : show(head[keyword]);
    const severity = shiftSeverity(direction, shift);
    const why =
      severity === 'non-breaking'
        ? ''
        : direction === 'request'
          ? ': values valid before may now be refused'
          : ': values outside what clients were told may now be returned';
    report(severity, `${keyword} ${from} → ${to} (${shift})${why}`);
  };
  for (const { keyword, tighterWhen } of NUMERIC_LIMITS)
    judge(keyword, numericShift(tighterWhen, base[keyword], head[keyword]));
  judge('multipleOf', multipleOfShift(base.multipleOf, head.multipleOf));
  for (const keyword of SHAPE_KEYWORDS) {
    const [from, to] = [base[keyword], head[keyword]];
    if (from !== to) judge(keyword, from === undefined ? 'tighter' : to === undefined ? 'looser' : 'changed');
  }
  if (base.uniqueItems !== head.uniqueItems) judge('uniqueItems', head.uniqueItems === true ? 'tighter' : 'looser');
  const closed = (schema: Schema) => schema.additionalProperties === false;
  if (closed(base) !== closed(head)) judge('additionalProperties', closed(head) ? 'tighter' : 'looser');
}

/** Properties and required names of an object schema, including those its allOf members add. */
function objectShape(document: Schema, schema: Schema): { properties: Map<string, unknown>; required: Set<string> } {
  const properties = new Map<string, unknown>();
  const required = new Set<string>();
  const visit = (part: Schema, depth: number) => {
    if (isObject(part.properties))
      for (const [name, value] of Object.entries(part.properties)) properties.set(name, value);
    if (Array.isArray(part.required)) for (const name of part.required) required.add(String(name));
    if (Array.isArray(part.allOf) && depth < 10)
      for (const member of part.allOf) visit(resolveRef(document, member).schema, depth + 1);
  };
  visit(schema, 0);
  return { properties, required };
}

function compareProperties(
  cmp: SchemaComparison,
  direction: Direction,
  base: Schema,
  head: Schema,
  where: string,
  field: string,
): void {
  const before = objectShape(cmp.base, base);
  const after = objectShape(cmp.head, head);
  const report = (severity: Severity, name: string, message: string) =>
    cmp.report(severity, at(where, join(field, name)), message);
  for (const [name, schema] of before.properties) {
    if (!after.properties.has(name)) {
      if (direction === 'request')
        report('breaking', name, 'property removed: clients that send it are refused or ignored');
      else report('breaking', name, 'property removed: no longer returned');
      continue;
    }
    const [wasRequired, isRequired] = [before.required.has(name), after.required.has(name)];
    if (!wasRequired && isRequired) {
      report(
        direction === 'request' ? 'breaking' : 'non-breaking',
        name,
        direction === 'request' ? 'now required' : 'now always returned',
      );
    } else if (wasRequired && !isRequired) {
      report(
        direction === 'request' ? 'non-breaking' : 'breaking',
        name,
        direction === 'request' ? 'now optional' : 'no longer required: may now be absent',
      );
    }
    compareSchema(cmp, direction, schema, after.properties.get(name), where, join(field, name));
  }
  for (const name of after.properties.keys()) {
    if (before.properties.has(name)) continue;
    if (direction === 'request' && after.required.has(name))
      report('breaking', name, 'new required property: requests without it are refused');
    else report('non-breaking', name, direction === 'request' ? 'new optional property' : 'new property returned');
  }
}

/** A name for a union member, to pair it with its counterpart: its $ref, else its types. */
function memberKey(document: Schema, member: unknown): string {
  const { schema, ref } = resolveRef(document, member);
  return ref ?? (typeSet(document, schema) ? showTypes(typeSet(document, schema) as Set<string>) : 'any value');
}

/** anyOf/oneOf: members are paired by $ref or type, and each pair compared. */
function compareAlternatives(
  cmp: SchemaComparison,
  direction: Direction,
  baseMembers: unknown[],
  headValues: unknown[],
  where: string,
  field: string,
): void {
  const headMembers = headValues.map((member) => ({ member, key: memberKey(cmp.head, member), paired: false }));
  const location = at(where, field);
  for (const member of baseMembers) {
    const key = memberKey(cmp.base, member);
    const counterpart = headMembers.find((candidate) => !candidate.paired && candidate.key === key);
    if (counterpart) {
      counterpart.paired = true;
      compareSchema(cmp, direction, member, counterpart.member, where, field);
    } else if (direction === 'request') {
      cmp.report('breaking', location, `no longer accepts ${key} values`);
    } else {
      cmp.report(key === 'null' ? 'breaking' : 'non-breaking', location, `no longer returned as ${key}`);
    }
  }
  for (const { key, paired } of headMembers) {
    if (paired) continue;
    if (direction === 'request') cmp.report('non-breaking', location, `now also accepts ${key} values`);
    else cmp.report('breaking', location, `may now be returned as ${key}`);
  }
}

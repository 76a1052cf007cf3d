/**
 * Service files (`SERVICES_DIR/*.json`): an HTTP operation served by a COBOL program, declared from its
 * copybooks. Loading checks what the JSON schema cannot; a bad file stops startup naming the file and pointer.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import {
  compileCopybook,
  CopybookError,
  currencySignProblem,
  fileCopybookReader,
  layoutItems,
  MappingError,
  RecordEncodeError,
  type CompiledLayout,
  type CompileOptions,
  type EmptyNumeric,
  type FieldMapping,
  type ViewChoice,
} from '@corebridge/records';
import type { Role, Scope } from '../../auth/roles.ts';
import type { FieldLists } from '../../resources/fields.ts';
import type { ErrorCode } from '../../errors.ts';
import type { RouteAccess } from '../route-table.ts';

export const SERVICE_SCHEMA_FILE = fileURLToPath(new URL('../../../schemas/service.schema.json', import.meta.url));

/** A service file as the schema describes it. */
interface ServiceFile {
  method: RouteAccess['method'];
  path: string;
  summary: string;
  description?: string;
  program: string;
  transaction?: string;
  request: RecordSpec;
  response: RecordSpec;
  /** Directories for COPY, relative to the service file, searched after the copybook's own directory. */
  copybookPath?: string[];
  /** The default of both records for numeric items holding only LOW-VALUES, HIGH-VALUES or spaces. */
  emptyNumeric?: EmptyNumeric;
  /** The program's SPECIAL-NAMES, for its edited pictures: CURRENCY SIGN and DECIMAL-POINT IS COMMA. */
  currencySign?: string;
  decimalPointIsComma?: boolean;
  scope: Scope;
  roles: Role[];
  ownership: { rule: 'customer-in-request'; field: string } | { rule: 'backend-owner' | 'none' };
  /** Per role, the top-level response fields it receives. */
  responseFields?: Partial<Record<Role, string[]>>;
  idempotency?: 'required' | 'optional';
  outcomes: Outcome[];
}

interface RecordSpec {
  copybook: string;
  fields?: Record<string, string | false>;
  constants?: Record<string, string | number>;
  views?: Record<string, string | ViewChoice>;
  renames?: Record<string, boolean>;
  emptyNumeric?: Record<string, EmptyNumeric>;
}

/** What both records of a service file are compiled with, besides their own mapping. */
type RecordOptions = Pick<CompileOptions, 'emptyNumeric' | 'currencySign' | 'decimalPointIsComma' | 'readCopybook'>;

/** The parts of a record's mapping, each under its own key of the record in the service file. */
type Section = 'fields' | 'renames' | 'views' | 'emptyNumeric';

export interface Outcome {
  returnCode: number;
  reasonCode?: string;
  status: number;
  businessStatus?: string;
  error?: ErrorCode;
  detail?: string;
}

export interface ServiceDefinition {
  /** The service file, for messages. */
  file: string;
  /** From the file name: the OpenAPI operationId. */
  operationId: string;
  method: RouteAccess['method'];
  /** Fastify's form: /v1/customers/:customerId/checks. */
  url: string;
  /** Path parameters: JSON fields of the request record. */
  params: string[];
  summary: string;
  description: string | undefined;
  program: string;
  transaction: string;
  /** `<program>.cbl` beside the service file. */
  programSource: string;
  /** The directory of the file: its copybooks and program source. */
  dir: string;
  /** `copybookPath`, resolved: where COPY finds copybooks after the including one's directory (cobc -I). */
  copybookDirs: string[];
  request: CompiledLayout;
  response: CompiledLayout;
  /** JSON paths (dotted) the request record always gets, with their values; not in the JSON schema. */
  constants: Array<{ path: string[]; value: string | number }>;
  access: RouteAccess;
  /** For `customer-in-request`: the request field naming the customer. */
  ownershipField: string | null;
  /** The response fields each role receives (`responseFields`); null: every field to every role. */
  responseFields: FieldLists | null;
  outcomes: Outcome[];
}

export class ServiceFileError extends Error {
  override readonly name = 'ServiceFileError';
  readonly file: string;
  readonly pointer: string;
  constructor(file: string, pointer: string, reason: string) {
    super(`${file}: ${pointer || '/'}: ${reason}`);
    this.file = file;
    this.pointer = pointer;
  }
}

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const validate = ajv.compile<ServiceFile>(JSON.parse(readFileSync(SERVICE_SCHEMA_FILE, 'utf8')) as object);

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

function camel(name: string): string {
  return name
    .replace(/\.json$/i, '')
    .replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase())
    .replace(/^[^A-Za-z]+/, '');
}

/** Internal JSON names for constant fields: never a client's key. */
const constantKey = (i: number) => `corebridgeConstant${i}`;

/**
 * The part of the mapping a MappingError comes from: the first section that, added to the ones before it,
 * gives the error again. A key may stand in several sections (a group in `fields` and in `emptyNumeric`).
 */
function failingSection(
  error: MappingError,
  compile: (mapping: FieldMapping) => unknown,
  mapping: FieldMapping,
): Section {
  const parts: Array<[Section, FieldMapping]> = [
    ['fields', mapping.fields ? { fields: mapping.fields } : {}],
    ['renames', mapping.renames ? { renames: mapping.renames } : {}],
    ['views', mapping.redefines ? { redefines: mapping.redefines } : {}],
    ['emptyNumeric', mapping.emptyNumeric ? { emptyNumeric: mapping.emptyNumeric } : {}],
  ];
  let tried: FieldMapping = {};
  for (const [section, part] of parts) {
    tried = { ...tried, ...part };
    try {
      compile(tried);
    } catch (e) {
      if (e instanceof MappingError && e.key === error.key) return section;
    }
  }
  return 'fields';
}

function compileRecord(
  file: string,
  dir: string,
  at: '/request' | '/response',
  spec: RecordSpec,
  options: RecordOptions,
): { layout: CompiledLayout; constants: ServiceDefinition['constants'] } {
  const copybook = resolve(dir, spec.copybook);
  if (!existsSync(copybook))
    throw new ServiceFileError(file, `${at}/copybook`, `no copybook ${spec.copybook} beside the service file`);
  const fields: Record<string, string | false> = { ...spec.fields };
  const constantNames = Object.keys(spec.constants ?? {});
  constantNames.forEach((name, i) => {
    if (Object.hasOwn(fields, name))
      throw new ServiceFileError(file, `${at}/constants/${escapePointer(name)}`, 'is also in fields');
    fields[name] = constantKey(i);
  });
  const mapping: FieldMapping = {
    fields,
    ...(spec.views ? { redefines: spec.views } : {}),
    ...(spec.renames ? { renames: spec.renames } : {}),
    ...(spec.emptyNumeric ? { emptyNumeric: spec.emptyNumeric } : {}),
  };
  const text = readFileSync(copybook, 'utf8');
  const compile = (m: FieldMapping) =>
    compileCopybook(text, { fileName: spec.copybook, profile: 'gnucobol', mapping: m, ...options });
  let layout: CompiledLayout;
  try {
    layout = compile(mapping);
  } catch (error) {
    if (error instanceof MappingError) {
      const section = failingSection(error, compile, mapping);
      const named = section === 'fields' && constantNames.includes(error.key) ? 'constants' : section;
      throw new ServiceFileError(file, `${at}/${named}/${escapePointer(error.key)}`, error.message);
    }
    if (error instanceof CopybookError) throw new ServiceFileError(file, `${at}/copybook`, error.message);
    // The codec checks the default policy when it applies it, with a TypeError.
    if (error instanceof TypeError && error.message.startsWith('emptyNumeric:') && options.emptyNumeric !== undefined)
      throw new ServiceFileError(file, '/emptyNumeric', error.message);
    throw error;
  }
  const constants = constantNames.map((name, i) => {
    const item = [...layoutItems(layout.root)].find((it) => it.jsonPath?.split('.').at(-1) === constantKey(i));
    const pointer = `${at}/constants/${escapePointer(name)}`;
    if (!item?.jsonPath || item.children || item.jsonPath.includes('[]'))
      throw new ServiceFileError(file, pointer, 'a constant is an elementary item outside tables and REDEFINES views');
    return { path: item.jsonPath.split('.'), value: spec.constants![name]! };
  });
  for (const [i, c] of constants.entries()) {
    try {
      layout.encode(withConstants({}, [c]));
    } catch (error) {
      if (error instanceof RecordEncodeError)
        throw new ServiceFileError(
          file,
          `${at}/constants/${escapePointer(constantNames[i]!)}`,
          `the value does not fit: ${error.reason}`,
        );
      throw error;
    }
  }
  return { layout, constants };
}

/** A copy of `json` with the constants set at their paths. */
export function withConstants(
  json: Record<string, unknown>,
  constants: ServiceDefinition['constants'],
): Record<string, unknown> {
  const out = { ...json };
  for (const { path, value } of constants) {
    let node = out;
    for (const key of path.slice(0, -1)) {
      const inner = node[key];
      node = node[key] =
        typeof inner === 'object' && inner !== null && !Array.isArray(inner)
          ? { ...(inner as Record<string, unknown>) }
          : {};
    }
    node[path.at(-1)!] = value;
  }
  return out;
}

/** Top-level JSON keys of a layout. */
function topKeys(layout: CompiledLayout): Set<string> {
  return new Set(
    (layout.root.children ?? [])
      .map((c) => c.jsonPath)
      .filter((p): p is string => p !== null)
      .map((p) => p.replace(/\[\]$/, '')),
  );
}

/**
 * The error to report about the first wrong value. oneOf/anyOf summaries come after the errors of their
 * branches; the branch whose type the value has says why (an unknown key, a wrong member), rather than
 * "must be one of" of a branch for another type; else the deepest error says most.
 */
function mostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
  const branches = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  const at = branches[0]?.instancePath ?? '';
  const here = branches.filter((e) => e.instancePath === at || e.instancePath.startsWith(`${at}/`));
  const deepest = here.reduce<ErrorObject | undefined>(
    (best, e) => (best && best.instancePath.length >= e.instancePath.length ? best : e),
    undefined,
  );
  return here.find((e) => !['type', 'enum', 'const'].includes(e.keyword)) ?? deepest ?? errors[0];
}

export function loadServiceFile(file: string): ServiceDefinition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ServiceFileError(file, '', `not JSON: ${(error as Error).message}`);
  }
  if (!validate(parsed)) {
    const errors = validate.errors ?? [];
    const first = mostSpecific(errors);
    const extra =
      first?.keyword === 'additionalProperties'
        ? ` "${String((first.params as { additionalProperty?: string }).additionalProperty)}"`
        : '';
    throw new ServiceFileError(
      file,
      first?.instancePath ?? '',
      `${first?.message ?? 'does not match the service schema'}${extra} (schema: schemas/service.schema.json)`,
    );
  }
  const spec = parsed;
  const dir = resolve(file, '..');
  for (const [i, p] of (spec.copybookPath ?? []).entries()) {
    if (statSync(resolve(dir, p), { throwIfNoEntry: false })?.isDirectory() !== true)
      throw new ServiceFileError(file, `/copybookPath/${i}`, `no directory ${p} (relative to the service file)`);
  }
  const currencyProblem = spec.currencySign === undefined ? undefined : currencySignProblem(spec.currencySign);
  if (currencyProblem !== undefined) throw new ServiceFileError(file, '/currencySign', currencyProblem);
  const options: RecordOptions = {
    // COPY resolved against the service file's directory; file names in messages are relative to it.
    readCopybook: fileCopybookReader(spec.copybookPath ?? [], { baseDir: dir }),
    ...(spec.emptyNumeric !== undefined ? { emptyNumeric: spec.emptyNumeric } : {}),
    ...(spec.currencySign !== undefined ? { currencySign: spec.currencySign } : {}),
    ...(spec.decimalPointIsComma !== undefined ? { decimalPointIsComma: spec.decimalPointIsComma } : {}),
  };
  const request = compileRecord(file, dir, '/request', spec.request, options);
  if (spec.response.constants)
    throw new ServiceFileError(file, '/response/constants', 'constants are for the request record');
  const response = compileRecord(file, dir, '/response', spec.response, options).layout;

  const requestKeys = topKeys(request.layout);
  for (const c of request.constants) requestKeys.delete(c.path[0]!);
  const params = [...spec.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  for (const p of params) {
    if (!requestKeys.has(p))
      throw new ServiceFileError(
        file,
        '/path',
        `{${p}} is not a top-level JSON field of the request record (fields: ${[...requestKeys].join(', ')})`,
      );
  }
  if (new Set(params).size !== params.length)
    throw new ServiceFileError(file, '/path', 'a path parameter appears twice');
  const ownershipField = spec.ownership.rule === 'customer-in-request' ? spec.ownership.field : null;
  if (ownershipField !== null && !requestKeys.has(ownershipField)) {
    throw new ServiceFileError(
      file,
      '/ownership/field',
      `"${ownershipField}" is not a top-level JSON field of the request record`,
    );
  }
  if (spec.ownership.rule === 'none' && spec.roles.includes('customer'))
    throw new ServiceFileError(
      file,
      '/ownership/rule',
      'the customer role may call this service, so it must name the customer (customer-in-request) or let the program check the caller (backend-owner)',
    );
  const responseFields = checkResponseFields(file, spec, topKeys(response));
  spec.outcomes.forEach((o, i) => {
    const at = `/outcomes/${i}`;
    if (o.status >= 400 && !o.error) throw new ServiceFileError(file, at, `status ${o.status} needs an error code`);
    if (o.status < 400 && o.error)
      throw new ServiceFileError(file, `${at}/error`, `status ${o.status} is not an error`);
    if (o.businessStatus && (o.status < 200 || o.status > 299))
      throw new ServiceFileError(file, `${at}/businessStatus`, 'is for 2xx statuses');
    if (o.status >= 300 && o.status < 400)
      throw new ServiceFileError(file, `${at}/status`, 'redirects are not answers a program gives');
  });
  if (spec.outcomes.some((o) => o.businessStatus)) {
    const clash = ['status', 'reason'].find((k) => topKeys(response).has(k));
    if (clash)
      throw new ServiceFileError(
        file,
        '/response/fields',
        `the response record has a field "${clash}", which businessStatus adds; rename it`,
      );
  }
  if (!spec.outcomes.some((o) => o.status < 400))
    throw new ServiceFileError(file, '/outcomes', 'no outcome answers with a success status');
  const programSource = join(dir, `${spec.program}.cbl`);
  if (!existsSync(programSource))
    throw new ServiceFileError(file, '/program', `no ${spec.program}.cbl beside the service file`);
  if (['GET', 'DELETE'].includes(spec.method) && spec.idempotency)
    throw new ServiceFileError(file, '/idempotency', `${spec.method} is idempotent already`);

  return {
    file,
    operationId: camel(basename(file)),
    method: spec.method,
    url: spec.path.replace(/\{([^}]+)\}/g, ':$1'),
    params,
    summary: spec.summary,
    description: spec.description,
    program: spec.program,
    transaction: spec.transaction ?? spec.program,
    programSource,
    dir,
    copybookDirs: (spec.copybookPath ?? []).map((p) => resolve(dir, p)),
    request: request.layout,
    response,
    constants: request.constants,
    access: {
      method: spec.method,
      url: spec.path.replace(/\{([^}]+)\}/g, ':$1'),
      scope: spec.scope,
      roles: spec.roles,
      ownership: spec.ownership.rule,
      ...(spec.idempotency ? { idempotency: spec.idempotency } : {}),
    },
    ownershipField,
    responseFields,
    outcomes: spec.outcomes,
  };
}

/**
 * `responseFields` as field lists: every role of `roles` needs a list (a role left out would receive
 * nothing, which is never what the author meant), and each names top-level fields of the response record.
 */
function checkResponseFields(file: string, spec: ServiceFile, responseKeys: Set<string>): FieldLists | null {
  if (!spec.responseFields) return null;
  const lists: FieldLists = { customer: [], agent: [], partner: [] };
  for (const [role, fields] of Object.entries(spec.responseFields) as Array<[Role, string[]]>) {
    if (!spec.roles.includes(role))
      throw new ServiceFileError(file, `/responseFields/${role}`, `${role} is not one of the service's roles`);
    fields.forEach((field, i) => {
      if (!responseKeys.has(field))
        throw new ServiceFileError(
          file,
          `/responseFields/${role}/${i}`,
          `"${field}" is not a top-level JSON field of the response record (fields: ${[...responseKeys].join(', ')})`,
        );
    });
    lists[role] = fields;
  }
  const missing = spec.roles.find((role) => !spec.responseFields?.[role]);
  if (missing)
    throw new ServiceFileError(file, '/responseFields', `no list for the ${missing} role, which may call the service`);
  return lists;
}

/** Every `*.json` in `dir`, loaded and checked; duplicates of method and path are refused. */
export function loadServices(dir: string): ServiceDefinition[] {
  if (!existsSync(dir)) throw new ServiceFileError(dir, '', 'SERVICES_DIR does not exist');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const services = files.map((f) => loadServiceFile(join(dir, f)));
  const seen = new Map<string, string>();
  for (const s of services) {
    const key = `${s.method} ${s.url.replace(/:[^/]+/g, ':')}`;
    const other = seen.get(key);
    if (other) throw new ServiceFileError(s.file, '/path', `${s.method} ${s.url} is also declared by ${other}`);
    seen.set(key, s.file);
  }
  const programs = new Map<string, string>();
  for (const s of services) {
    const other = programs.get(s.program);
    if (other && other !== s.programSource)
      throw new ServiceFileError(s.file, '/program', `another program ${s.program} is declared by ${other}`);
    programs.set(s.program, s.programSource);
  }
  return services;
}

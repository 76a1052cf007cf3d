/**
 * The routes of declared services (src/api/services/definition.ts): validation and OpenAPI from the
 * copybooks, the caller in CBHDR, the request record as the COMMAREA of the COBOL program, its return and
 * reason codes mapped as the service file says.
 */
import { principalIdFor, principalWidth } from '../../auth/principal-id.ts';
import type { FastifyRequest } from 'fastify';
import { loadLinkCatalog } from '../../backend/copybooks/index.ts';
import { RC, writeCommareaMessage } from '../../backend/message.ts';
import { RecordDecodeError, RecordEncodeError, type JsonSchema } from '@corebridge/records';
import type { Transport } from '../../transport/transport.ts';
import { ROLE_CODES } from '../../auth/roles.ts';
import { createMessageSender, type MessageSender } from '../../client/backend-client.ts';
import { requestTraceparent } from '../../observability/index.ts';
import { requestContext, type RequestBackend } from '../backend.ts';
import { ApiError } from '../../errors.ts';
import { assertMayNameCustomer } from '../plugins/auth.ts';
import { problem } from '../schemas/problem.ts';
import { STANDARD_ERRORS, type Api } from '../routes/common.ts';
import { accessInWords } from '../route-table.ts';
import { projectFields, rolesReceiving } from '../../resources/fields.ts';
import { ServiceFileError, withConstants, type Outcome, type ServiceDefinition } from './definition.ts';

/** The header as the program host lays it out (GnuCOBOL on Linux), as for linked programs. */
const hostCatalog = loadLinkCatalog();
const hostPrincipalWidth = principalWidth(hostCatalog.header);

type Properties = Record<string, JsonSchema>;

/** A layout's JSON schema as an OpenAPI/Fastify schema: no $schema, no title, optional keys removed. */
function objectSchema(schema: JsonSchema, remove: string[][] = []): JsonSchema {
  const copy = structuredClone(schema);
  delete copy['$schema'];
  delete copy['title'];
  for (const path of remove) {
    let node: JsonSchema | undefined = copy;
    for (const key of path.slice(0, -1)) node = (node?.['properties'] as Properties | undefined)?.[key];
    delete (node?.['properties'] as Properties | undefined)?.[path.at(-1)!];
  }
  return copy;
}

/** A path parameter's schema: the string form of its record field. */
function paramSchema(field: JsonSchema): JsonSchema {
  // A path segment is never null, whatever an emptyNumeric policy lets the record field hold.
  const type = Array.isArray(field['type']) ? field['type'].find((t) => t !== 'null') : field['type'];
  if (type === 'integer') return { type: 'string', pattern: `^[0-9]{1,${String(field['maximum'] ?? 9).length}}$` };
  if (type === 'string')
    return { type: 'string', minLength: 1, ...(field['maxLength'] ? { maxLength: field['maxLength'] } : {}) };
  return { type: 'string', minLength: 1 };
}

function matchOutcome(outcomes: Outcome[], returnCode: number, reasonCode: string): Outcome | undefined {
  return outcomes.find(
    (o) => o.returnCode === returnCode && (o.reasonCode === undefined || o.reasonCode === reasonCode),
  );
}

/**
 * `transport` reaches the programs of the services; `customers` is the back-end that owns the customers,
 * asked whether a partner may name the customer a request names.
 */
export function serviceRoutes(
  app: Api,
  services: readonly ServiceDefinition[],
  transport: Transport,
  customers: RequestBackend,
): void {
  const backend = createMessageSender({ catalog: hostCatalog, transport, observability: app.observability });
  for (const service of services) {
    try {
      registerService(app, service, backend, customers);
    } catch (error) {
      // A path Corebridge serves already: told as the service file's mistake.
      if ((error as { code?: string }).code === 'FST_ERR_DUPLICATED_ROUTE') {
        throw new ServiceFileError(
          service.file,
          '/path',
          `${service.method} ${service.url} is a route Corebridge serves already`,
        );
      }
      throw error;
    }
  }
}

/**
 * `customer-in-request`: a customer may name only themselves; a partner only the customers the back-end's
 * own customer inquiry shows it (those it onboarded or is linked to), as the built-in programs decide; staff
 * anyone. Fails closed: anything else the inquiry answers is "not found".
 */
async function assertMayNameCustomerIn(req: FastifyRequest, customers: RequestBackend, customerId: string) {
  assertMayNameCustomer(req.principal, customerId);
  if (req.principal?.role !== 'partner') return;
  try {
    await customers.call('CUSINQ', req, { cuskCustomerId: customerId });
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'NOT_FOUND' || error.code === 'VALIDATION_FAILED'))
      throw new ApiError('NOT_FOUND', 'customer not found');
    throw error;
  }
}

/**
 * The response schema as each role may receive it: a field some role does not receive is not required, and
 * carries the roles that do (`x-roles`), as the built-in resources' fields do.
 */
function restrictFields(response: JsonSchema, s: ServiceDefinition): void {
  const fields = s.responseFields;
  if (!fields) return;
  const properties = response['properties'] as Properties;
  const forEveryRole = (key: string) => s.access.roles.every((role) => fields[role].includes(key));
  for (const [key, property] of Object.entries(properties)) {
    if (!forEveryRole(key)) property['x-roles'] = rolesReceiving(fields, key);
  }
  const required = response['required'] as string[] | undefined;
  if (required) response['required'] = required.filter(forEveryRole);
}

function registerService(app: Api, s: ServiceDefinition, backend: MessageSender, customers: RequestBackend): void {
  const requestSchema = s.request.jsonSchema();
  const requestProperties = requestSchema['properties'] as Properties;
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(s.method);
  const body = objectSchema(requestSchema, [...s.constants.map((c) => c.path), ...s.params.map((p) => [p])]);
  const businessStatuses = [
    ...new Set(s.outcomes.map((o) => o.businessStatus).filter((b): b is string => b !== undefined)),
  ];
  const response = objectSchema(s.response.jsonSchema());
  restrictFields(response, s);
  if (businessStatuses.length > 0) {
    (response['properties'] as Properties)['status'] = {
      type: 'string',
      enum: businessStatuses,
      description: "The outcome, from the program's return code",
    };
    (response['properties'] as Properties)['reason'] = {
      type: 'string',
      description: "The program's reason code, when it gives one",
    };
  }
  const responses: Record<string, unknown> = {};
  for (const o of s.outcomes) {
    if (o.status < 400)
      responses[String(o.status)] ??= {
        description:
          businessStatuses.length > 0
            ? `Status ${s.outcomes
                .filter((x) => x.status === o.status && x.businessStatus)
                .map((x) => x.businessStatus)
                .join(' or ')}`
            : 'Success',
        ...response,
      };
  }

  app.route({
    method: s.method,
    url: s.url,
    config: { access: s.access },
    schema: {
      operationId: s.operationId,
      tags: ['services'],
      summary: s.summary,
      // What the client needs; which program and copybooks serve it stays inside.
      description: `${s.description ? `${s.description}\n\n` : ''}${accessInWords(s.access)}`,
      security: [{ oauth2: [s.access.scope] }, { bearerAuth: [s.access.scope] }],
      ...(s.params.length > 0
        ? {
            params: {
              type: 'object',
              properties: Object.fromEntries(s.params.map((p) => [p, paramSchema(requestProperties[p]!)])),
              required: s.params,
              additionalProperties: false,
            },
          }
        : {}),
      ...(hasBody ? { body } : {}),
      response: {
        ...responses,
        ...STANDARD_ERRORS,
        502: problem('The program failed, or answered with a return code the service does not declare'),
        503: problem('The COBOL program host is not available (Retry-After)'),
        504: problem('The program did not answer in time'),
      },
    },
    handler: async (req, reply) => {
      const params = (req.params ?? {}) as Record<string, string>;
      const json = withConstants({ ...((hasBody ? req.body : {}) as Record<string, unknown>), ...params }, s.constants);
      if (s.ownershipField !== null)
        await assertMayNameCustomerIn(req, customers, String(json[s.ownershipField] ?? ''));
      const { returnCode, reasonCode, reasonText, record } = await callProgram(req, s, backend, json);
      const outcome = matchOutcome(s.outcomes, returnCode, reasonCode);
      if (!outcome) {
        req.log.error(
          { program: s.program, rc: returnCode, reason: reasonCode || undefined },
          'the program answered with a return code the service does not declare',
        );
        throw new ApiError('BACKEND_PROGRAM_FAILED');
      }
      // The program's reason text only where the service file names the reason code: free text written for
      // operators never reaches a client unreviewed.
      if (outcome.error) {
        const detail = outcome.detail ?? (outcome.reasonCode !== undefined ? reasonText || undefined : undefined);
        // Every 400 lists what to fix; the service file names no member, so the entry is the whole body's.
        const violations =
          outcome.error === 'VALIDATION_FAILED'
            ? [{ pointer: '', in: 'body' as const, detail: detail ?? 'is not valid' }]
            : undefined;
        throw new ApiError(outcome.error, detail, {
          ...(reasonCode ? { reason: reasonCode } : {}),
          ...(violations ? { violations } : {}),
        });
      }
      let answer: Record<string, unknown>;
      try {
        answer = s.response.decode(record.subarray(0, s.response.maxLength));
      } catch (error) {
        if (!(error instanceof RecordDecodeError)) throw error;
        req.log.error({ err: error, program: s.program }, 'the program left a response record that does not decode');
        throw new ApiError('BACKEND_PROGRAM_FAILED');
      }
      if (s.responseFields) answer = projectFields(answer, s.responseFields, req.principal?.role);
      if (outcome.businessStatus)
        Object.assign(answer, { status: outcome.businessStatus }, reasonCode ? { reason: reasonCode } : {});
      return reply.code(outcome.status).send(answer);
    },
  });
}

/** The program call: CBHDR with the caller, the COMMAREA; what it answered. */
async function callProgram(
  req: FastifyRequest,
  s: ServiceDefinition,
  backend: MessageSender,
  json: Record<string, unknown>,
): Promise<{ returnCode: number; reasonCode: string; reasonText: string; record: Buffer }> {
  const principal = req.principal;
  if (!principal) throw new Error('service call without an authenticated caller');
  let message: Buffer;
  try {
    message = writeCommareaMessage(
      hostCatalog,
      {
        tranCode: s.transaction,
        correlationId: req.id,
        principal: principalIdFor(principal.subject, hostPrincipalWidth),
        role: ROLE_CODES[principal.role],
        customerId: principal.customerId ?? '',
        idempotencyKey: req.idempotency?.key ?? '',
        returnCode: 0,
        reasonCode: '',
        reasonText: '',
        traceparent: requestTraceparent(req),
      },
      s,
      json,
    );
  } catch (error) {
    if (!(error instanceof RecordEncodeError)) throw error;
    // The record's JSON paths are the request's: the pointer names what the client sent.
    const pointer = `/${error.path.replaceAll('.', '/').replace(/\[(\d+)\]/g, '/$1')}`;
    throw new ApiError('VALIDATION_FAILED', `${pointer}: ${error.reason}`, {
      violations: [{ pointer, in: s.params.includes(error.path) ? 'path' : 'body', detail: error.reason }],
    });
  }
  const { header, body } = await backend.send(requestContext(req), s.transaction, message);
  if (header.returnCode === RC.ABEND || header.returnCode === RC.UNKNOWN_TRAN) {
    req.log.error(
      { program: s.program, rc: header.returnCode, reason: header.reasonCode, text: header.reasonText },
      'the program failed',
    );
    throw new ApiError('BACKEND_PROGRAM_FAILED');
  }
  return { returnCode: header.returnCode, reasonCode: header.reasonCode, reasonText: header.reasonText, record: body };
}

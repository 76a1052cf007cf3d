/**
 * The examples of the committed contract (openapi/v1.json) are true: each one matches its schema, tells a
 * consistent story (a completed payment has no failure reason, a payment goes between two accounts), and each
 * operation's example request, sent as a demo user allowed to call it, gets the success the contract documents.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readCommittedContract } from '../../src/contract/document.ts';
import { exactMultipleOf } from '../../src/api/schemas/exact-multiple-of.ts';
import { ROUTES } from '../../src/api/route-table.ts';
import { DEMO_IDENTITIES, type Role } from '../../src/auth/roles.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

type Json = Record<string, unknown>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Json;
  example?: unknown;
}
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}

const contract = readCommittedContract();
const components = ((contract['components'] as Json | undefined)?.['schemas'] ?? {}) as Record<string, Json>;
const ajv = exactMultipleOf(new Ajv2020({ strict: false, allErrors: true }));
// eslint-disable-next-line no-restricted-syntax -- ajv-formats types its default export for CommonJS
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

/**
 * The schema with its references inlined, so each piece validates on its own; `closed`: every object of it takes
 * no field the contract does not name (as the API tests check the answers).
 */
function inline(schema: unknown, depth = 0, closed = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, depth, closed));
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Json;
  if (typeof s['$ref'] === 'string') {
    const target = components[s['$ref'].replace('#/components/schemas/', '')];
    if (!target || depth > 20) throw new Error(`unresolved reference ${s['$ref']}`);
    return inline(target, depth + 1, closed);
  }
  const out: Json = Object.fromEntries(
    Object.entries(s).map(([key, value]) => [
      key,
      ['enum', 'const', 'examples', 'example', 'default', 'required'].includes(key)
        ? value
        : inline(value, depth, closed),
    ]),
  );
  if (closed && out['properties'] && out['additionalProperties'] === undefined && !out['allOf'])
    out['additionalProperties'] = false;
  return out;
}

function schemaErrors(schema: Json, value: unknown, closed: boolean): string | null {
  const validate = ajv.compile(inline(schema, 0, closed) as Json);
  return validate(value) ? null : JSON.stringify(validate.errors?.slice(0, 3));
}

/** A found example: where it is, its value, and the schema it must match. */
interface Example {
  where: string;
  value: unknown;
  schema: Json;
  /** From a response or a webhook: something the server says. */
  answer: boolean;
}

/** Every example in the document: of a schema (its `examples`), a media object, or a parameter. */
function allExamples(): Example[] {
  const found: Example[] = [];
  const mediaExamples = (where: string, media: Media, answer: boolean) => {
    const schema = media.schema ?? {};
    if (media.example !== undefined) found.push({ where: `${where} example`, value: media.example, schema, answer });
    for (const [name, { value }] of Object.entries(media.examples ?? {}))
      found.push({ where: `${where} examples.${name}`, value, schema, answer });
  };
  const walk = (node: unknown, where: string, answer: boolean) => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${where}/${i}`, answer));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as Json;
    if (Array.isArray(n['examples']) && ('type' in n || 'anyOf' in n || '$ref' in n || 'properties' in n)) {
      for (const value of n['examples']) found.push({ where: `${where} examples`, value, schema: n, answer });
    }
    for (const [key, value] of Object.entries(n)) {
      if (key === 'examples' || key === 'example' || key === 'enum' || key === 'const') continue;
      walk(value, `${where}/${key}`, answer);
    }
  };
  const operations = (paths: Record<string, Record<string, unknown>>, prefix: string) => {
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, value] of Object.entries(item)) {
        const operation = value as Operation;
        const at = `${method.toUpperCase()} ${prefix}${path}`;
        // A webhook's request is what the server sends.
        const requestIsAnswer = prefix !== '';
        for (const p of operation.parameters ?? []) {
          if (p.example !== undefined)
            found.push({ where: `${at} parameter ${p.name}`, value: p.example, schema: p.schema ?? {}, answer: false });
          walk(p.schema, `${at} parameter ${p.name}`, false);
        }
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
          mediaExamples(`${at} request ${type}`, media, requestIsAnswer);
          walk(media.schema, `${at} request ${type}`, requestIsAnswer);
        }
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const [type, media] of Object.entries(response.content ?? {})) {
            mediaExamples(`${at} → ${status} ${type}`, media, true);
            walk(media.schema, `${at} → ${status} ${type}`, true);
          }
        }
      }
    }
  };
  operations(contract.paths, '');
  operations((contract['webhooks'] ?? {}) as Record<string, Record<string, unknown>>, 'webhook ');
  walk(components, '#/components/schemas', true);
  return found;
}

/** Objects inside an example (the example itself, a page's items, an event's data). */
function objectsIn(value: unknown): Json[] {
  if (Array.isArray(value)) return value.flatMap(objectsIn);
  if (value === null || typeof value !== 'object') return [];
  return [value as Json, ...Object.values(value).flatMap(objectsIn)];
}

test('every example in the contract matches its schema', () => {
  const examples = allExamples();
  assert.ok(examples.length > 50, `only ${examples.length} examples found: is the walk right?`);
  const wrong = examples
    .map((e) => ({ ...e, errors: schemaErrors(e.schema, e.value, e.answer) }))
    .filter((e) => e.errors !== null)
    .map((e) => `${e.where}: ${JSON.stringify(e.value)} ${e.errors}`);
  assert.deepEqual(wrong, []);
});

test('the examples tell a consistent story', () => {
  const wrong: string[] = [];
  for (const { where, value } of allExamples()) {
    for (const o of objectsIn(value)) {
      // Only a rejection has a reason (a completed payment did not fail for insufficient funds).
      if ('reason' in o && o['status'] !== 'REJECTED')
        wrong.push(`${where}: reason with status ${String(o['status'])}`);
      if ('debtorAccount' in o && o['debtorAccount'] === o['creditorAccount'])
        wrong.push(`${where}: a payment from and to the same account`);
      if ('reference' in o && o['reference'] === '') wrong.push(`${where}: an empty reference`);
      // An event is about the resource it carries.
      if ('specversion' in o && o['data'] && !Object.values(o['data'] as Json).includes(o['subject']))
        wrong.push(`${where}: subject ${String(o['subject'])} is not the id of its data`);
    }
  }
  assert.deepEqual(wrong, []);
});

/**
 * Where the docs would build an answer from the fields' own examples, a status and a reason of different stories
 * meet (COMPLETED with INSUFFICIENT_FUNDS): such an answer, and every request body, has an example of its own.
 */
test('request bodies and answers that have a status and a reason carry a whole example', () => {
  const missing: string[] = [];
  const hasStatusAndReason = (schema: Json | undefined): boolean => {
    const s = inline(schema ?? {}) as Json;
    const properties = (s['properties'] ?? {}) as Record<string, Json>;
    if ('status' in properties && 'reason' in properties) return true;
    return Object.values(properties).some((p) => hasStatusAndReason((p['items'] as Json | undefined) ?? p));
  };
  const hasExample = (media: Media) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;
  const webhooks = (contract['webhooks'] ?? {}) as Record<string, Record<string, unknown>>;
  for (const [path, item] of [...Object.entries(contract.paths), ...Object.entries(webhooks)]) {
    for (const [method, value] of Object.entries(item)) {
      const operation = value as Operation;
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        if (!hasExample(media)) missing.push(`${method.toUpperCase()} ${path} request ${type}`);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith('2')) continue;
        for (const [type, media] of Object.entries(response.content ?? {}))
          if (hasStatusAndReason(media.schema) && !hasExample(media))
            missing.push(`${method.toUpperCase()} ${path} → ${status} ${type}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

/** The success each operation's example request documents. */
const SUCCESS: Record<string, number> = {
  health: 200,
  createOrder: 201,
  listOrders: 200,
  getOrder: 200,
  updateOrder: 200,
  cancelOrder: 200,
  getCustomer: 200,
  updateCustomer: 200,
  createCustomer: 201,
  getBalance: 200,
  listCustomerAccounts: 200,
  createPayment: 201,
  listPayments: 200,
  getPayment: 200,
  createLoanApplication: 201,
  listLoanApplications: 200,
  getLoanApplication: 200,
  listEvents: 200,
  getEvent: 200,
  listEventTypes: 200,
  sendWebhookTestEvent: 202,
  createWebhookSubscription: 201,
  listWebhookSubscriptions: 200,
  getWebhookSubscription: 200,
  updateWebhookSubscription: 200,
  deleteWebhookSubscription: 204,
  listWebhookDeliveries: 200,
  retryWebhookDelivery: 202,
  getWebhookDelivery: 200,
  listWebhookDeliveryAttempts: 200,
  rotateWebhookSecret: 200,
  recoverWebhookSubscription: 202,
  getOperation: 200,
};

/** The demo identity a role's example request is sent as. */
const DEMO_OF_ROLE = new Map<Role, string>(
  (['customer', 'partner', 'agent'] as const).map((role) => [
    role,
    DEMO_IDENTITIES.find((i) => i.role === role && (role !== 'customer' || i.customerId === '1001'))!.subject,
  ]),
);

interface Call {
  method: Method;
  url: string;
  as?: string;
  body?: unknown;
  headers: Record<string, string>;
}

const operationsById = new Map<string, { path: string; method: Method; operation: Operation }>();
for (const [path, item] of Object.entries(contract.paths)) {
  for (const [method, value] of Object.entries(item)) {
    const operation = value as Operation;
    operationsById.set(operation.operationId ?? `health ${path}`, {
      path,
      method: method.toUpperCase() as Method,
      operation,
    });
  }
}

/**
 * The one value of an example not sent as written: the webhook URL names a public host, and this machine resolves
 * no public names (the API checks the URL's address on subscribing); a loopback receiver the test allows stands in.
 */
const TEST_HOOK_URL = 'http://127.0.0.1:9/hooks';
let hooksSubscribed = 0;
const HOOK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_ALLOWED_PORTS: '9' };

/** The operation's example request, as the docs show it; `state` replaces what only exists once created. */
function exampleCall(id: string, state: { params?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const { path, method, operation } = operationsById.get(id)!;
  // Public operations (health, the event types) name no role: sent without a token.
  const roles = id in ROUTES ? ROUTES[id as keyof typeof ROUTES].roles : [];
  // The narrowest role allowed: an example naming data its demo user may not reach fails there first.
  const role = (['customer', 'partner', 'agent'] as const).find((r) => roles.includes(r));
  const call: Call = {
    method,
    url: path,
    headers: { ...state.headers },
    ...(role ? { as: DEMO_OF_ROLE.get(role)! } : {}),
  };
  const query = new URLSearchParams();
  for (const p of operation.parameters ?? []) {
    const given = state.params?.[p.name] ?? state.headers?.[p.name];
    const value = given ?? p.example;
    if (value === undefined) {
      assert.ok(!p.required, `${id}: the required ${p.in} parameter ${p.name} has no example`);
      continue;
    }
    if (p.in === 'path') call.url = call.url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else if (p.in === 'query') query.set(p.name, String(value));
    else call.headers[p.name] = String(value);
  }
  if (query.size > 0) call.url += `?${query.toString()}`;
  const content = operation.requestBody?.content ?? {};
  const [type, media] = Object.entries(content)[0] ?? [];
  if (type && media) {
    assert.ok(media.example !== undefined, `${id}: the request body has no example`);
    // A URL of its own each time: a second subscription like the first is refused (SUBSCRIPTION_EXISTS).
    const hookUrl = `${TEST_HOOK_URL}/${++hooksSubscribed}`;
    call.body = id === 'createWebhookSubscription' ? { ...(media.example as Json), url: hookUrl } : media.example;
    call.headers['content-type'] = type;
  }
  return call;
}

/** What differs from one run to the next: made when the request runs. */
const VARYING = new Set(['orderId', 'paymentId', 'loanId', 'createdAt', 'updatedAt']);
const withoutVarying = (o: Json) => Object.fromEntries(Object.entries(o).filter(([key]) => !VARYING.has(key)));

/**
 * Sends an operation's example and returns the answer, after checking its documented status and, where the contract
 * shows that answer (one resource, not a page whose items depend on what came before), that it is the answer given.
 */
async function sendExample(h: TestApp, id: string, state?: Parameters<typeof exampleCall>[1]) {
  const answer = await h.request(exampleCall(id, state));
  const status = SUCCESS[id.startsWith('health') ? 'health' : id]!;
  assert.equal(answer.statusCode, status, `${id}: ${answer.body}`);
  const shown = operationsById.get(id)!.operation.responses[String(status)]?.content?.['application/json']?.example;
  if (shown !== undefined && !('items' in (shown as Json)))
    assert.deepEqual(
      withoutVarying(answer.json()),
      withoutVarying(shown as Json),
      `${id}: the answer is not the example`,
    );
  return answer;
}

/** The creating example again, as a request of its own (the example's key would replay the first answer). */
const again = (key: string) => ({ headers: { 'idempotency-key': key } });

/** A subscription from its example and the delivery to it of an example order placed under `key`. */
async function exampleDelivery(h: TestApp, key: string): Promise<{ subscriptionId: string; deliveryId: string }> {
  const subscriptionId = (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId as string;
  const subscriber = exampleCall('createWebhookSubscription').as!;
  const order = await h.request({ ...exampleCall('createOrder', again(key)), as: subscriber });
  assert.equal(order.statusCode, 201, order.body);
  const url = `/v1/webhook-subscriptions/${subscriptionId}/deliveries`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const [delivery] = (await h.request({ method: 'GET', url, as: subscriber, headers: {} })).json().items;
    if (delivery) return { subscriptionId, deliveryId: delivery.deliveryId };
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail('no delivery of the example order within 10 s');
}

/** Operations whose example names something that exists only once created: they create it from examples first. */
const STATE: Record<string, (h: TestApp) => Promise<Parameters<typeof exampleCall>[1]>> = {
  async getOrder(h) {
    return { params: { orderId: (await sendExample(h, 'createOrder', again('order-to-read'))).json().orderId } };
  },
  async updateOrder(h) {
    const orderId = (await sendExample(h, 'createOrder', again('order-to-update'))).json().orderId as string;
    const etag = (await sendExample(h, 'getOrder', { params: { orderId } })).headers['etag'];
    return { params: { orderId }, headers: { 'if-match': String(etag) } };
  },
  async cancelOrder(h) {
    return { params: { orderId: (await sendExample(h, 'createOrder', again('order-to-cancel'))).json().orderId } };
  },
  async getPayment(h) {
    return {
      params: { paymentId: (await sendExample(h, 'createPayment', again('payment-to-read'))).json().paymentId },
    };
  },
  async getLoanApplication(h) {
    return { params: { loanId: (await sendExample(h, 'createLoanApplication', again('loan-to-read'))).json().loanId } };
  },
  async getOperation(h) {
    // Its own key: the example's key is held to the example request, which runs at once.
    const later = await h.request(
      exampleCall('createLoanApplication', { headers: { prefer: 'respond-async', 'idempotency-key': 'loan-later-1' } }),
    );
    assert.equal(later.statusCode, 202, later.body);
    return { params: { operationId: later.json().operationId } };
  },
  async getWebhookSubscription(h) {
    return { params: { subscriptionId: (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId } };
  },
  async updateWebhookSubscription(h) {
    return { params: { subscriptionId: (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId } };
  },
  async deleteWebhookSubscription(h) {
    return { params: { subscriptionId: (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId } };
  },
  async rotateWebhookSecret(h) {
    return { params: { subscriptionId: (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId } };
  },
  async recoverWebhookSubscription(h) {
    return { params: { subscriptionId: (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId } };
  },
  async sendWebhookTestEvent(h) {
    return { params: { subscriptionId: (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId } };
  },
  // The example order's event, once in the feed of the one who placed it.
  async getEvent(h) {
    const orderId = (await sendExample(h, 'createOrder', again('order-for-event'))).json().orderId as string;
    const reader = exampleCall('getEvent', { params: { eventId: '-' } }).as!;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const feed = await h.request({ method: 'GET', url: '/v1/events?limit=100', as: reader, headers: {} });
      const event = feed.json().items.find((e: { subject: string }) => e.subject === orderId);
      if (event) return { params: { eventId: event.id } };
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail('no event of the example order within 10 s');
  },
  async listWebhookDeliveries(h) {
    return { params: { subscriptionId: (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId } };
  },
  // A delivery is made when an event the subscription asked for happens: the example order is one.
  async retryWebhookDelivery(h) {
    const subscriptionId = (await sendExample(h, 'createWebhookSubscription')).json().subscriptionId as string;
    const subscriber = exampleCall('createWebhookSubscription').as!;
    const order = await h.request({ ...exampleCall('createOrder', again('order-to-deliver')), as: subscriber });
    assert.equal(order.statusCode, 201, order.body);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const [delivery] = (
        await h.request({
          method: 'GET',
          url: `/v1/webhook-subscriptions/${subscriptionId}/deliveries`,
          as: subscriber,
          headers: {},
        })
      ).json().items;
      if (delivery) return { params: { subscriptionId, deliveryId: delivery.deliveryId } };
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail('no delivery of the example order within 10 s');
  },
  async getWebhookDelivery(h) {
    return { params: await exampleDelivery(h, 'order-to-read-delivery') };
  },
  async listWebhookDeliveryAttempts(h) {
    return { params: await exampleDelivery(h, 'order-to-read-attempts') };
  },
};

test('every operation of the contract has its documented success here', () => {
  const ids = [...operationsById.keys()].map((id) => (id.startsWith('health') ? 'health' : id));
  assert.deepEqual([...new Set(ids)].sort(), Object.keys(SUCCESS).sort());
});

test('each operation example request gets the documented success', async (t) => {
  const h = await startApp(t, HOOK_ENV);
  for (const id of operationsById.keys()) {
    await t.test(id, async () => {
      await sendExample(h, id, await STATE[id]?.(h));
    });
  }
});

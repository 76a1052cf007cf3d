/**
 * compareContracts on the committed contract and copies of it changed on purpose: each change a client
 * would trip over is breaking and says where; additions and looser requests are reported, not breaking.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCommittedContract } from '../../src/contract/document.ts';
import { compareContracts, type ContractChange } from '../../src/contract/openapi-diff.ts';
import { OPEN_ENUM } from '../../src/contract/schema-diff.ts';

/** Documents are edited by hand below, through any path. */
type Json = Record<string, any>;

const committed = readCommittedContract() as Json;

/** A copy of the committed contract changed by `edit`, compared against the original. */
function changesAfter(edit: (document: Json) => void): ContractChange[] {
  const head = structuredClone(committed);
  edit(head);
  return compareContracts(committed, head);
}

const body = (document: Json, path: string, method: string) =>
  document.paths[path][method].requestBody.content['application/json'].schema;
const response = (document: Json, path: string, method: string, status: string) =>
  document.paths[path][method].responses[status].content['application/json'].schema;
const parameter = (document: Json, path: string, method: string, name: string) =>
  document.paths[path][method].parameters.find((p: Json) => p.name === name);

function assertBreaking(changes: ContractChange[], location: string, message: RegExp): void {
  const found = changes.find((change) => change.location === location && message.test(change.message));
  assert.ok(found, `no change at ${location} matching ${message}; got ${JSON.stringify(changes, null, 2)}`);
  assert.equal(found.severity, 'breaking', JSON.stringify(found));
}

function assertNothingBreaks(changes: ContractChange[], location: string, message: RegExp): void {
  assert.deepEqual(
    changes.filter((change) => change.severity === 'breaking'),
    [],
  );
  assert.ok(
    changes.some((change) => change.location === location && message.test(change.message)),
    `no change at ${location} matching ${message}; got ${JSON.stringify(changes, null, 2)}`,
  );
}

test('the committed contract compared with itself has no changes', () => {
  assert.ok(Object.keys(committed.paths).length > 10, 'the committed contract has its paths');
  assert.deepEqual(compareContracts(committed, structuredClone(committed)), []);
});

test('breaking: a removed path, operation or status code (201 replaced by 200)', () => {
  assertBreaking(
    changesAfter((d) => delete d.paths['/v1/payments/{paymentId}']),
    '/v1/payments/{paymentId}',
    /path removed \(GET\)/,
  );
  assertBreaking(
    changesAfter((d) => delete d.paths['/v1/orders/{orderId}'].delete),
    'DELETE /v1/orders/{orderId}',
    /operation removed/,
  );
  const replaced = changesAfter((d) => {
    const responses = d.paths['/v1/customers'].post.responses;
    responses['200'] = responses['201'];
    delete responses['201'];
  });
  assertBreaking(replaced, 'POST /v1/customers response 201', /status 201 removed \(now 200\)/);
  assert.ok(replaced.some((c) => c.severity === 'non-breaking' && c.location === 'POST /v1/customers response 200'));
});

test('breaking: a response field removed, made optional, or allowed to be null', () => {
  assertBreaking(
    changesAfter((d) => delete response(d, '/v1/orders', 'post', '201').properties.amount),
    'POST /v1/orders response 201 body: amount',
    /property removed: no longer returned/,
  );
  assertBreaking(
    changesAfter((d) => {
      const schema = response(d, '/v1/orders', 'post', '201');
      schema.required = schema.required.filter((name: string) => name !== 'currency');
    }),
    'POST /v1/orders response 201 body: currency',
    /may now be absent/,
  );
  assertBreaking(
    changesAfter((d) => {
      response(d, '/v1/orders', 'post', '201').properties.amount.type = ['number', 'null'];
    }),
    'POST /v1/orders response 201 body: amount',
    /type changed from number to null \| number: may now be null/,
  );
});

test('breaking: a new value in a response enum, reported once where the shared schema lives', () => {
  const changes = changesAfter((d) =>
    d.components.schemas.Problem.properties.code.anyOf.push({ type: 'string', enum: ['NEW_CODE'] }),
  );
  assertBreaking(changes, '#/components/schemas/Problem (in responses): code', /new value "NEW_CODE" may be returned/);
  assert.equal(changes.length, 1, JSON.stringify(changes));
});

/** Every schema in `document` that bears the open mark, by JSON pointer. */
function openLists(document: Json): string[] {
  const found: string[] = [];
  const visit = (value: unknown, pointer: string) => {
    if (typeof value !== 'object' || value === null) return;
    if ((value as Json)[OPEN_ENUM] === true) found.push(pointer);
    for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${key.replaceAll('/', '~1')}`);
  };
  visit(document, '#');
  return found;
}

const cloudEventType = (d: Json) => d.components.schemas.CloudEvent.properties.type;
const deliveryState = (d: Json) =>
  response(d, '/v1/webhook-subscriptions/{subscriptionId}/deliveries/{deliveryId}', 'get', '200').properties.state;

test('the contract declares open the lists that grow by design, and keeps listing their values', () => {
  const open = openLists(committed);
  for (const pointer of [
    '#/components/schemas/CloudEvent/properties/type',
    '#/paths/~1v1~1event-types/get/responses/200/content/application~1json/schema/properties/items/items/properties/type',
    '#/paths/~1v1~1webhook-subscriptions~1{subscriptionId}/get/responses/200/content/application~1json/schema/properties/eventTypes/items',
    '#/paths/~1v1~1webhook-subscriptions~1{subscriptionId}~1deliveries~1{deliveryId}/get/responses/200/content/application~1json/schema/properties/eventType',
    '#/paths/~1v1~1webhook-subscriptions~1{subscriptionId}~1deliveries~1{deliveryId}/get/responses/200/content/application~1json/schema/properties/state',
    '#/webhooks/WebhookTest/post/requestBody/content/application~1json/schema/properties/data/properties/eventTypes/items',
  ])
    assert.ok(open.includes(pointer), `${pointer} is not declared open; open: ${JSON.stringify(open, null, 2)}`);
  // Business states stay closed: a new order status is a breaking change.
  assert.ok(!open.some((pointer) => pointer.includes('/v1~1orders')), JSON.stringify(open));
  assert.ok(!open.some((pointer) => pointer.includes('Problem')), JSON.stringify(open));
  assert.deepEqual(
    cloudEventType(committed)
      .anyOf.map((member: Json) => member.enum[0])
      .slice(0, 2),
    ['OrderConfirmed', 'OrderRejected'],
  );
  assert.match(deliveryState(committed).description, /More values may be added: handle unknown ones/);
});

test('not breaking: a new value in a response list the base declares open', () => {
  const changes = changesAfter((d) => {
    cloudEventType(d).anyOf.push({ type: 'string', enum: ['LoanDisbursed'] });
    deliveryState(d).anyOf.push({ type: 'string', enum: ['expired'] });
  });
  assertNothingBreaks(
    changes,
    '#/components/schemas/CloudEvent (in responses): type',
    /new value "LoanDisbursed" may be returned \(the list is open\)/,
  );
  assertNothingBreaks(
    changes,
    'GET /v1/webhook-subscriptions/{subscriptionId}/deliveries/{deliveryId} response 200 body: state',
    /new value "expired" may be returned \(the list is open\)/,
  );
  // An open list may also stop listing its values: clients already handle any value.
  assertNothingBreaks(
    changesAfter((d) => {
      const state = deliveryState(d);
      delete state.anyOf;
      state.type = 'string';
    }),
    'GET /v1/webhook-subscriptions/{subscriptionId}/deliveries/{deliveryId} response 200 body: state',
    /no longer limited to "pending", .* \(the list was open\)/,
  );
});

test('a list the base leaves closed: a head that declares it open does not excuse the values it adds', () => {
  const base = structuredClone(committed);
  delete cloudEventType(base)[OPEN_ENUM];
  const head = structuredClone(committed);
  cloudEventType(head).anyOf.push({ type: 'string', enum: ['LoanDisbursed'] });
  const changes = compareContracts(base, head);
  const location = '#/components/schemas/CloudEvent (in responses): type';
  assertBreaking(changes, location, /new value "LoanDisbursed" may be returned: clients that handle only the listed/);
  const declared = changes.find((c) => c.location === location && /list of values now open/.test(c.message));
  assert.equal(declared?.severity, 'non-breaking', JSON.stringify(changes, null, 2));
  assert.match(declared.message, /clients must handle unknown ones/);
  // Declaring it open alone adds no value: not breaking.
  assertNothingBreaks(compareContracts(base, committed), location, /list of values now open/);
});

test('an open list closed again, and open lists in requests: judged as before', () => {
  assertNothingBreaks(
    changesAfter((d) => delete cloudEventType(d)[OPEN_ENUM]),
    '#/components/schemas/CloudEvent (in responses): type',
    /list of values no longer open/,
  );
  // Requests: the mark promises nothing to senders; a value no longer accepted still breaks them.
  assertBreaking(
    changesAfter((d) => {
      const state = parameter(d, '/v1/webhook-subscriptions/{subscriptionId}/deliveries', 'get', 'state').schema;
      state.anyOf = state.anyOf.filter((member: Json) => member.enum[0] !== 'failed');
    }),
    'GET /v1/webhook-subscriptions/{subscriptionId}/deliveries query state',
    /value "failed" is no longer accepted/,
  );
});

test('breaking: a request field made required, a new required field, a removed accepted field', () => {
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/customers/{customerId}', 'patch').required = ['email'];
    }),
    'PATCH /v1/customers/{customerId} request body: email',
    /now required/,
  );
  assertBreaking(
    changesAfter((d) => {
      const schema = body(d, '/v1/orders', 'post');
      schema.properties.channel = { type: 'string' };
      schema.required.push('channel');
    }),
    'POST /v1/orders request body: channel',
    /new required property/,
  );
  assertBreaking(
    changesAfter((d) => delete body(d, '/v1/payments', 'post').properties.reference),
    'POST /v1/payments request body: reference',
    /property removed: clients that send it/,
  );
});

test('breaking: a request type narrowed or changed, a union losing a member', () => {
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/loan-applications', 'post').properties.amount.type = 'integer';
    }),
    'POST /v1/loan-applications request body: amount',
    /type changed from number to integer: a number is no longer accepted/,
  );
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/orders', 'post').properties.quantity.type = 'string';
    }),
    'POST /v1/orders request body: quantity',
    /type changed from integer to string/,
  );
  assertBreaking(
    changesAfter((d) => body(d, '/v1/loan-applications', 'post').properties.customerId.anyOf.pop()),
    'POST /v1/loan-applications request body: customerId',
    /no longer accepts integer values/,
  );
});

test('breaking: a request limit added or tightened', () => {
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/orders', 'post').properties.productId.maxLength = 8;
    }),
    'POST /v1/orders request body: productId',
    /maxLength 16 → 8 \(tighter\)/,
  );
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/loan-applications', 'post').properties.amount.maximum = 100000;
    }),
    'POST /v1/loan-applications request body: amount',
    /maximum 200000 → 100000 \(tighter\)/,
  );
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/payments', 'post').properties.amount.minimum = 1;
    }),
    'POST /v1/payments request body: amount',
    /minimum none → 1 \(tighter\)/,
  );
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/loan-applications', 'post').properties.amount.multipleOf = 1;
    }),
    'POST /v1/loan-applications request body: amount',
    /multipleOf 0.01 → 1/,
  );
  assertBreaking(
    changesAfter((d) => {
      body(d, '/v1/payments', 'post').properties.reference.pattern = '^[A-Z]+$';
    }),
    'POST /v1/payments request body: reference',
    /pattern/,
  );
});

test('breaking: a removed enum value in a query parameter, a new required header', () => {
  assertBreaking(
    changesAfter((d) => parameter(d, '/v1/orders', 'get', 'status').schema.anyOf.pop()),
    'GET /v1/orders query status',
    /value "CANCELLED" is no longer accepted/,
  );
  assertBreaking(
    changesAfter((d) =>
      d.paths['/v1/events'].get.parameters.push({
        in: 'header',
        name: 'X-Tenant',
        required: true,
        schema: { type: 'string' },
      }),
    ),
    'GET /v1/events header x-tenant',
    /new required parameter/,
  );
  assertBreaking(
    changesAfter((d) => {
      parameter(d, '/v1/orders', 'post', 'idempotency-key').required = true;
    }),
    'POST /v1/orders header idempotency-key',
    /parameter now required/,
  );
});

test('not breaking: an optional request field, a path, a status, a response field, a description, a looser request limit', () => {
  assertNothingBreaks(
    changesAfter((d) => {
      body(d, '/v1/orders', 'post').properties.note = { type: 'string' };
    }),
    'POST /v1/orders request body: note',
    /new optional property/,
  );
  assertNothingBreaks(
    changesAfter((d) => {
      d.paths['/v1/products'] = { get: { responses: { 200: { description: 'Products' } } } };
    }),
    '/v1/products',
    /path added \(GET\)/,
  );
  assertNothingBreaks(
    changesAfter((d) => {
      d.paths['/v1/orders'].post.responses['202'] = { description: 'Accepted' };
    }),
    'POST /v1/orders response 202',
    /status 202 added/,
  );
  assertNothingBreaks(
    changesAfter((d) => {
      response(d, '/v1/orders', 'post', '201').properties.channel = { type: 'string' };
    }),
    'POST /v1/orders response 201 body: channel',
    /new property returned/,
  );
  assertNothingBreaks(
    changesAfter((d) => {
      d.paths['/v1/orders'].post.description = 'Places an order.';
    }),
    'POST /v1/orders',
    /description changed/,
  );
  assertNothingBreaks(
    changesAfter((d) => {
      body(d, '/v1/orders', 'post').properties.productId.maxLength = 32;
    }),
    'POST /v1/orders request body: productId',
    /maxLength 16 → 32 \(looser\)/,
  );
  assertNothingBreaks(
    changesAfter((d) =>
      parameter(d, '/v1/orders', 'get', 'status').schema.anyOf.push({ type: 'string', enum: ['SHIPPED'] }),
    ),
    'GET /v1/orders query status',
    /value "SHIPPED" is now accepted too/,
  );
});

test('webhooks run the other way: what the service sends is judged like a response', () => {
  const payload = (d: Json) => d.webhooks.OrderConfirmed.post.requestBody.content['application/json'].schema;
  assertBreaking(
    changesAfter((d) => delete payload(d).properties.subject),
    'webhook OrderConfirmed (POST) request body: subject',
    /property removed: no longer returned/,
  );
  assertBreaking(
    changesAfter((d) => delete d.webhooks.LoanRejected),
    'webhook LoanRejected (POST)',
    /webhook removed/,
  );
  assertNothingBreaks(
    changesAfter((d) => {
      payload(d).properties.partition = { type: 'string' };
    }),
    'webhook OrderConfirmed (POST) request body: partition',
    /new property returned/,
  );
});

test('security: a new scope required locks out callers (breaking); another accepted alternative does not', () => {
  assertBreaking(
    changesAfter((d) => {
      for (const requirement of d.paths['/v1/orders'].get.security)
        Object.values(requirement).forEach((scopes: any) => scopes.push('orders:admin'));
    }),
    'GET /v1/orders security',
    /clients holding oauth2 \(orders:read\) are no longer let in/,
  );
  assertNothingBreaks(
    changesAfter((d) => d.paths['/v1/orders'].get.security.push({ apiKey: [] })),
    'GET /v1/orders security',
    /every client let in before still is/,
  );
});

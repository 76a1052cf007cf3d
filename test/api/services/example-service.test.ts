/**
 * The example service (examples/services: PMVERIFY and its copybooks) over HTTP, as a user runs it with
 * SERVICES_DIR: answers, business statuses, the REDEFINES views chosen both ways, errors in the client's
 * words, access rules, the request log line, and the OpenAPI operation generated from the copybooks.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { cobolSkip } from '../../helpers/cobol.ts';
import { editedExample } from '../../helpers/services.ts';

const SERVICES_DIR = fileURLToPath(new URL('../../../examples/services/', import.meta.url));
const URL_1001 = '/v1/customers/1001/payment-method-checks';

function check(h: TestApp, body: unknown, as = 'ada', url = URL_1001) {
  return h.request({ method: 'POST', url, as, body });
}

test(
  'a card or a bank account is checked by the COBOL program; the answer carries its view and business status',
  { skip: cobolSkip },
  async (t) => {
    const h = await startApp(t, { SERVICES_DIR });
    const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');

    const visa = await check(h, { card: { number: '4111111111111111', expiry: '1230' } });
    assert.equal(visa.statusCode, 200);
    assert.deepEqual(visa.json(), {
      customerId: 1001,
      method: 'C',
      card: { brand: 'VISA', last4: '1111' },
      checkedOn: today,
      status: 'VERIFIED',
    });

    const wrongDigit = await check(h, { card: { number: '5500000000000005', expiry: '1230' } });
    assert.deepEqual(wrongDigit.json(), {
      customerId: 1001,
      method: 'C',
      card: { brand: 'MASTERCARD', last4: '0005' },
      checkedOn: today,
      status: 'DECLINED',
      reason: 'CARD_NUMBER_INVALID',
    });
    const expired = await check(h, { method: 'C', card: { number: '378282246310005', expiry: '0120' } });
    assert.deepEqual(expired.json(), {
      customerId: 1001,
      method: 'C',
      card: { brand: 'AMEX', last4: '0005' },
      checkedOn: today,
      status: 'DECLINED',
      reason: 'CARD_EXPIRED',
    });

    // The bank-account view, chosen by the key alone; the response's view by the method the program answered.
    const ach = await check(h, { bankAccount: { routingNumber: '011000015', accountNumber: '000123456789' } });
    assert.equal(ach.statusCode, 200);
    assert.deepEqual(ach.json(), {
      customerId: 1001,
      method: 'A',
      bankAccount: { routingNumber: '011000015', accountLast4: '6789' },
      checkedOn: today,
      status: 'VERIFIED',
    });
    const badRouting = await check(h, { method: 'A', bankAccount: { routingNumber: '011000016', accountNumber: '1' } });
    assert.equal(badRouting.json().status, 'DECLINED');
    assert.equal(badRouting.json().reason, 'ROUTING_NUMBER_INVALID');

    // The agent may check for any customer.
    assert.equal(
      (
        await check(
          h,
          { card: { number: '4111111111111111', expiry: '1230' } },
          'clerk',
          '/v1/customers/1002/payment-method-checks',
        )
      ).json().customerId,
      1002,
    );

    // The request's one log line names the program's transaction and return code.
    const line = h.logs.find((l) => l['requestId'] === visa.headers['x-request-id'] && l['backend']) as
      { backend: Record<string, unknown> } | undefined;
    assert.deepEqual([line?.backend['tran'], line?.backend['rc']], ['PMVERIFY', 0]);
  },
);

test(
  'bad input: 400 problem+json naming the field, from the schema, the views or the program',
  { skip: cobolSkip },
  async (t) => {
    const h = await startApp(t, { SERVICES_DIR });
    // From the copybook-derived schema: lengths, unknown keys, the constant field is not the client's.
    for (const body of [
      { card: { number: '4'.repeat(20), expiry: '1230' } },
      { card: { number: '4111111111111111', expiry: '1230', cvv: '123' } },
      { channel: 'BATCH', card: { number: '4111111111111111', expiry: '1230' } },
      { method: 'X', card: { number: '4111111111111111', expiry: '1230' } },
    ]) {
      assertProblem(await check(h, body), 400, 'VALIDATION_FAILED');
    }
    // Two views, or a view the discriminator does not name.
    const both = await check(h, {
      card: { number: '4111111111111111', expiry: '1230' },
      bankAccount: { routingNumber: '011000015', accountNumber: '1' },
    });
    assertProblem(both, 400, 'VALIDATION_FAILED');
    assert.deepEqual(both.json().errors, [
      { pointer: '/bankAccount', in: 'body', detail: 'is an alternative to card: give one of card, bankAccount' },
    ]);
    const mismatch = await check(h, { method: 'C', bankAccount: { routingNumber: '011000015', accountNumber: '1' } });
    assert.deepEqual(mismatch.json().errors, [
      { pointer: '/bankAccount', in: 'body', detail: 'method "C" selects card' },
    ]);
    // The program's own refusal (return code 20): its reason text, in the client's words, and its reason code.
    const short = await check(h, { card: { number: '4111', expiry: '1230' } });
    assertProblem(short, 400, 'VALIDATION_FAILED');
    assert.equal(short.json().detail, 'the card number has 12 to 19 digits');
    assert.equal(short.json().reason, 'CARD_NUMBER_FORMAT');
    assert.deepEqual(short.json().errors, [{ pointer: '', in: 'body', detail: 'the card number has 12 to 19 digits' }]);
    // A path parameter that is not a customer number.
    assertProblem(
      await check(
        h,
        { card: { number: '4111111111111111', expiry: '1230' } },
        'clerk',
        '/v1/customers/abc/payment-method-checks',
      ),
      400,
      'VALIDATION_FAILED',
    );
  },
);

test("access: the service file's scope, roles and ownership rule", { skip: cobolSkip }, async (t) => {
  const h = await startApp(t, { SERVICES_DIR });
  const card = { card: { number: '4111111111111111', expiry: '1230' } };
  assertProblem(await h.request({ method: 'POST', url: URL_1001, body: card }), 401, 'UNAUTHENTICATED');
  assertProblem(await check(h, card, 'ada', '/v1/customers/1002/payment-method-checks'), 404, 'NOT_FOUND');
  // The partner has the scope, but the service is for customers and agents.
  assertProblem(await check(h, card, 'acme-shop'), 403, 'FORBIDDEN');
  const ordersOnly = await h.token('ada', { scopes: ['orders:read'] });
  assertProblem(
    await h.request({ method: 'POST', url: URL_1001, token: ordersOnly, body: card }),
    403,
    'INSUFFICIENT_SCOPE',
  );
});

test('the OpenAPI operation is generated from the copybooks and the service file', { skip: cobolSkip }, async (t) => {
  const h = await startApp(t, { SERVICES_DIR });
  const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/v1/customers/{customerId}/payment-method-checks'].post;
  assert.equal(op.operationId, 'paymentMethodCheck');
  assert.deepEqual(op.tags, ['services']);
  assert.deepEqual(op.security, [{ oauth2: ['customers:read'] }, { bearerAuth: ['customers:read'] }]);
  assert.deepEqual(
    op.parameters.map((p: { name: string; in: string; schema: unknown }) => [p.name, p.in, p.schema]),
    [
      ['customerId', 'path', { type: 'string', pattern: '^[0-9]{1,10}$' }],
      ['x-request-id', 'header', { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' }],
    ],
  );
  const body = op.requestBody.content['application/json'].schema;
  // PMVERI: PMV-METHOD X(1) with its 88 values, PMV-CARD-NUMBER X(19), PMV-ACH-ACCOUNT X(17); no PMV-CHANNEL (a
  // constant).
  assert.deepEqual(Object.keys(body.properties), ['method', 'card', 'bankAccount']);
  assert.deepEqual(body.properties.method, { type: 'string', maxLength: 1, enum: ['C', 'A'] });
  assert.equal(body.properties.card.properties.number.maxLength, 19);
  assert.equal(body.properties.bankAccount.properties.accountNumber.maxLength, 17);
  const answer = op.responses['200'].content['application/json'].schema;
  assert.deepEqual(Object.keys(answer.properties), [
    'customerId',
    'method',
    'card',
    'bankAccount',
    'checkedOn',
    'status',
    'reason',
  ]);
  assert.deepEqual(answer.properties.status.enum, ['VERIFIED', 'DECLINED']);
  assert.deepEqual(answer.properties.customerId, { type: 'integer', minimum: 0, maximum: 9_999_999_999 });
  for (const status of ['400', '401', '403', '404', '502', '503', '504'])
    assert.ok(op.responses[status], `response ${status}`);
});

test(
  'a return code the service file does not declare: 502 BACKEND_PROGRAM_FAILED, nothing of the program shown',
  { skip: cobolSkip },
  async (t) => {
    // Without the outcome for return code 4, a declined card is an answer the service does not know.
    const dir = editedExample((s) => {
      s['outcomes'] = s['outcomes'].filter((o: { returnCode: number }) => o.returnCode !== 4);
    });
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const h = await startApp(t, { SERVICES_DIR: dir });
    assert.equal((await check(h, { card: { number: '4111111111111111', expiry: '1230' } })).statusCode, 200);
    const declined = await check(h, { card: { number: '4111111111111112', expiry: '1230' } });
    assertProblem(declined, 502, 'BACKEND_PROGRAM_FAILED');
    assert.doesNotMatch(declined.body, /PMVERIFY|CARD_NUMBER_INVALID|return code/);
  },
);

test(
  'a service partners may call: partner links decide the customer, each role gets its fields, reason text only where named',
  { skip: cobolSkip },
  async (t) => {
    const dir = editedExample((s) => {
      s['roles'] = ['customer', 'agent', 'partner'];
      const all = ['customerId', 'method', 'card', 'bankAccount', 'checkedOn'];
      s['responseFields'] = { customer: all, agent: all, partner: ['customerId', 'method', 'checkedOn'] };
      // Return code 20 by its return code alone: the program's reason texts are not the service file's words.
      s['outcomes'] = s['outcomes'].filter((o: { reasonCode?: string }) => o.reasonCode === undefined);
    });
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const h = await startApp(t, { SERVICES_DIR: dir });
    const card = { card: { number: '4111111111111111', expiry: '1230' } };
    const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');

    // acme-shop is linked to customer 1001 (partner_customers): its fields only.
    const linked = await check(h, card, 'acme-shop');
    assert.equal(linked.statusCode, 200, linked.body);
    assert.deepEqual(linked.json(), { customerId: 1001, method: 'C', checkedOn: today, status: 'VERIFIED' });
    // The customer and the agent get the whole record.
    for (const as of ['ada', 'clerk'])
      assert.deepEqual(Object.keys((await check(h, card, as)).json()), [
        'customerId',
        'method',
        'card',
        'checkedOn',
        'status',
      ]);

    // Customer 1002 is not acme-shop's, 9999 is nobody's: the same 404, and the program never ran.
    for (const customer of ['1002', '9999']) {
      const refused = await check(h, card, 'acme-shop', `/v1/customers/${customer}/payment-method-checks`);
      assertProblem(refused, 404, 'NOT_FOUND');
      assert.doesNotMatch(refused.body, /Grace|Hopper|VERIFIED|card/);
      const line = h.logs.find((l) => l['requestId'] === refused.headers['x-request-id'] && l['status'] === 404);
      assert.ok(line, 'the request line of the refusal');
      assert.equal((line['backend'] as { tran?: string } | undefined)?.tran, 'CUSINQ', 'the program was not called');
    }
    // A customer the partner onboarded is its own.
    const onboarded = await h.request({
      method: 'POST',
      url: '/v1/customers',
      as: 'acme-shop',
      body: { name: 'Onboarded Person', email: 'onboarded@example.com' },
    });
    assert.equal(onboarded.statusCode, 201, onboarded.body);
    const own = await check(h, card, 'acme-shop', `/v1/customers/${onboarded.json().customerId}/payment-method-checks`);
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().customerId, Number(onboarded.json().customerId));

    // A refusal matched by return code alone: the error code's own text, never the program's; its reason code stays.
    const short = await check(h, { card: { number: '4111', expiry: '1230' } });
    assertProblem(short, 400, 'VALIDATION_FAILED');
    assert.equal(short.json().title, 'The request is not valid');
    assert.equal(short.json().detail, undefined);
    assert.equal(short.json().reason, 'CARD_NUMBER_FORMAT');
    assert.doesNotMatch(short.body, /12 to 19 digits/);

    // The contract shows who receives what.
    const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json();
    const answer =
      doc.paths['/v1/customers/{customerId}/payment-method-checks'].post.responses['200'].content['application/json']
        .schema;
    assert.deepEqual(answer.properties.card['x-roles'], ['customer', 'agent']);
    assert.equal(answer.properties.customerId['x-roles'], undefined, 'every role receives customerId');
    assert.ok(!(answer.required ?? []).includes('card'), 'a field some role does not receive is not required');
  },
);

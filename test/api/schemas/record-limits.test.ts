/**
 * What the back-end's records can hold, told in a client's words: limits come from the copybooks, a value
 * the record cannot take is refused at its JSON pointer, and text is stored in code page 1140 (with €).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMessageCatalog } from '../../../src/backend/copybooks/index.ts';
import { PAYMENT_AMOUNT_MINOR } from '../../../src/backend/limits.ts';
import { fromMinorUnits } from '../../../src/backend/money.ts';
import { layoutJsonSchema } from '@corebridge/records';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';

const TRANSFER = { debtorAccount: '1003-01', creditorAccount: '1001-01', amount: 10, currency: 'EUR' };
const COBOL_WORDS = /picture|PIC |cp037|cp1140|record|COMP|copybook/i;

function pay(h: TestApp, body: Record<string, unknown>, key: string) {
  return h.request({ method: 'POST', url: '/v1/payments', as: 'grace', body, headers: { 'idempotency-key': key } });
}

function onlyViolation(body: Record<string, unknown>): { pointer: string; in: string; detail: string } {
  const errors = body['errors'] as Array<{ pointer: string; in: string; detail: string }>;
  assert.equal(errors.length, 1, JSON.stringify(errors));
  return errors[0]!;
}

test('an amount with three decimals is refused at /amount in plain words, no COBOL in the answer', async (t) => {
  const h = await startApp(t);
  const res = assertProblem(await pay(h, { ...TRANSFER, amount: 5.555 }, 'three-decimals'), 400, 'VALIDATION_FAILED');
  assert.deepEqual(onlyViolation(res), {
    pointer: '/amount',
    in: 'body',
    detail: 'must have at most 2 decimal places',
  });
  assert.doesNotMatch(JSON.stringify(res), COBOL_WORDS);
  // Decimal, not binary-float, arithmetic: amounts a float `multipleOf` would refuse are taken.
  for (const [amount, key] of [
    [1234.57, 'f1'],
    [0.07, 'f2'],
    [9.99, 'f3'],
  ] as const) {
    const ok = await pay(h, { ...TRANSFER, amount }, key);
    assert.equal(ok.statusCode, 201, `${amount}: ${ok.body}`);
    assert.equal(ok.json().amount, amount);
  }
});

test('€ is stored (code page 1140); a character the back-end cannot store is refused at its pointer', async (t) => {
  const h = await startApp(t);
  const euro = await pay(h, { ...TRANSFER, reference: 'Miete €' }, 'euro');
  assert.equal(euro.statusCode, 201, euro.body);
  const read = await h.request({ method: 'GET', url: `/v1/payments/${euro.json().paymentId}`, as: 'grace' });
  assert.equal(read.json().reference, 'Miete €');

  const dash = assertProblem(await pay(h, { ...TRANSFER, reference: 'Rent – May' }, 'dash'), 400, 'VALIDATION_FAILED');
  const violation = onlyViolation(dash);
  assert.equal(violation.pointer, '/reference');
  assert.match(
    violation.detail,
    /^character "–" cannot be stored: text holds the Western European \(Latin-1\) letters, digits and punctuation, and €$/,
  );
  assert.doesNotMatch(JSON.stringify(dash), COBOL_WORDS);

  const before = (await h.request({ method: 'GET', url: '/v1/accounts/1003-01/balance', as: 'grace' })).json().balance;
  assert.equal(before, 10_000 - 10, 'only the € payment moved money');
});

test('customer text outside the code page: 400 at /name, /address/line1 and in a patch, nothing stored', async (t) => {
  const h = await startApp(t);
  const person = { name: 'Łukasz Nowak', email: 'lukasz@example.com' };
  const name = assertProblem(
    await h.request({ method: 'POST', url: '/v1/customers', as: 'clerk', body: person }),
    400,
    'VALIDATION_FAILED',
  );
  assert.equal(onlyViolation(name).pointer, '/name');
  assert.match(onlyViolation(name).detail, /^character "Ł" cannot be stored/);

  const address = { line1: 'ul. Świętokrzyska 1', postalCode: '00-001', city: 'Warszawa', country: 'PL' };
  const line = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'clerk',
    body: { name: 'Lukasz Nowak', email: 'ln@example.com', address },
  });
  assert.equal(onlyViolation(assertProblem(line, 400, 'VALIDATION_FAILED')).pointer, '/address/line1');

  // Latin-1 names are fine.
  const ok = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'clerk',
    body: { name: 'Zoë Ångström', email: 'zoe@example.com' },
  });
  assert.equal(ok.statusCode, 201, ok.body);
  assert.equal(ok.json().name, 'Zoë Ångström');

  const merge = { 'content-type': 'application/merge-patch+json' };
  const patch = await h.request({
    method: 'PATCH',
    url: '/v1/customers/1001',
    as: 'clerk',
    headers: merge,
    body: { name: 'Ada Łovelace' },
  });
  assert.equal(onlyViolation(assertProblem(patch, 400, 'VALIDATION_FAILED')).pointer, '/name');
  assert.equal(
    (await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'clerk' })).json().name,
    'Ada Lovelace',
  );

  // Nothing was created for the refused requests: the e-mail addresses are still free.
  const again = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'clerk',
    body: { ...person, name: 'Lukasz Nowak' },
  });
  assert.equal(again.statusCode, 201, again.body);
});

test("request limits in the contract are the copybooks' (not copied by hand)", async (t) => {
  const h = await startApp(t);
  const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json();
  const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
  const catalog = loadMessageCatalog();
  const field = (tran: 'PAYCRT' | 'CUSADD', name: string) =>
    (layoutJsonSchema(catalog.request(tran)) as { properties: Record<string, Record<string, unknown>> }).properties[
      name
    ]!;

  const payment = body('/v1/payments', 'post').properties;
  assert.equal(payment.reference.maxLength, field('PAYCRT', 'paycRemittance')['maxLength']);
  assert.equal(payment.amount.multipleOf, 0.01);
  // The business range, within what the record holds.
  assert.equal(payment.amount.maximum, fromMinorUnits(PAYMENT_AMOUNT_MINOR.max));
  assert.ok(payment.amount.maximum <= Number(field('PAYCRT', 'paycAmount')['maximum']));
  const customer = body('/v1/customers', 'post').properties;
  assert.equal(customer.name.maxLength, field('CUSADD', 'cusaName')['maxLength']);
  assert.equal(customer.email.maxLength, field('CUSADD', 'cusaEmail')['maxLength']);

  const long = assertProblem(
    await pay(h, { ...TRANSFER, reference: 'x'.repeat(141) }, 'long'),
    400,
    'VALIDATION_FAILED',
  );
  assert.deepEqual(onlyViolation(long), {
    pointer: '/reference',
    in: 'body',
    detail: 'must NOT have more than 140 characters',
  });
});

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { LoanDecision } from '../../src/resources/loan.ts';
import { assertProblem, assertShape } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { cobolSkip } from '../helpers/cobol.ts';

const KEYS = [
  'loanId',
  'status',
  'customerId',
  'requestedAmount',
  'approvedAmount',
  'interestRate',
  'installmentValue',
  'installments',
  'currency',
  'createdAt',
];

function apply(h: TestApp, body: Record<string, unknown>, as = 'ada', headers: Record<string, string> = {}) {
  return h.request({ method: 'POST', url: '/v1/loan-applications', as, body, headers });
}

/** The same acceptance tests with the decision rule in TypeScript and in COBOL (LNDECIDE in the program host). */
const MODES = [
  { name: 'TypeScript rule', env: {} as Record<string, string>, cobol: false },
  { name: 'COBOL LNDECIDE', env: { PROGRAMS_COBOL: 'LNDECIDE' }, cobol: true },
];

for (const mode of MODES) {
  const skip = mode.cobol ? cobolSkip : false;
  const start = (t: TestContext): Promise<TestApp> => startApp(t, mode.env);

  test(
    `${mode.name}: approved in full: rate by rating, installment by the annuity formula, stored decision`,
    { skip },
    async (t) => {
      const h = await start(t);
      const res = await apply(h, { customerId: '1001', amount: 10000, installments: 24 });
      assert.equal(res.statusCode, 201);
      const d = res.json();
      assertShape(LoanDecision, d, KEYS);
      assert.equal(d.status, 'APPROVED');
      assert.equal(d.customerId, '1001');
      assert.equal(d.requestedAmount, 10000);
      assert.equal(d.approvedAmount, 10000);
      assert.equal(d.interestRate, 6.9);
      // 10000 · r / (1 − (1 + r)^−24), r = 6.9 / 1200 → 447.27
      assert.equal(d.installmentValue, 447.27);
      assert.equal(res.headers['location'], `/v1/loan-applications/${d.loanId}`);
      const read = await h.request({ method: 'GET', url: `/v1/loan-applications/${d.loanId}`, as: 'ada' });
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.json(), d);

      // LoanApproved and the audit row were written with the decision, under the request's correlation id.
      const [event] = await queryStore(
        h,
        "SELECT * FROM events WHERE event_type = 'LoanApproved' AND subject = ?",
        d.loanId,
      );
      assert.ok(event);
      assert.equal(event['correlation_id'], res.headers['x-request-id']);
      assert.equal(event['owner_customer_id'], '1001');
      assert.equal(event['record_name'], 'LOANREC');
      assert.equal(JSON.parse(String(event['record_json'])).lnApprovedAmount, 10000);
      const [audit] = await queryStore(
        h,
        "SELECT action, principal FROM audit_log WHERE entity = 'loan' AND entity_id = ?",
        d.loanId,
      );
      assert.deepEqual({ ...audit }, { action: 'approved', principal: 'ada' });
    },
  );

  test(`${mode.name}: more than 60 installments add 1.00 to the rate`, { skip }, async (t) => {
    const h = await start(t);
    const d = (await apply(h, { customerId: '1001', amount: 20000, installments: 72 })).json();
    assert.equal(d.status, 'APPROVED');
    assert.equal(d.interestRate, 7.9);
    // r = 7.9 / 1200, n = 72 → 349.69 (checked with exact decimal arithmetic)
    assert.equal(d.installmentValue, 349.69);
  });

  test(
    `${mode.name}: reduced approval: the largest affordable multiple of 100 when at least half the request`,
    { skip },
    async (t) => {
      const h = await start(t);
      // Alan: rating C (12.90 %), income 2,500.00 → at most 1,000.00 a month.
      const d = (await apply(h, { customerId: '1002', amount: 12000, installments: 12 }, 'alan')).json();
      assert.equal(d.status, 'APPROVED');
      assert.equal(d.interestRate, 12.9);
      assert.equal(d.requestedAmount, 12000);
      assert.equal(d.approvedAmount, 11200);
      assert.ok(d.installmentValue <= 1000);
      // 11,300.00 would cost 1,008.76 a month.
      assert.equal(d.installmentValue, 999.83);
    },
  );

  test(
    `${mode.name}: REJECTED with 200, one shape for every reason: rating D, insufficient income`,
    { skip },
    async (t) => {
      const h = await start(t);
      // Grace: rating D, not lent to, however small the loan. Alan: rating C, 50,000.00 would cost far more than 40 %
      // of his income.
      const grace = await apply(h, { customerId: '1003', amount: 1000, installments: 12 }, 'grace');
      const alan = await apply(h, { customerId: '1002', amount: 50000, installments: 12 }, 'alan');
      for (const [res, reason, customerId] of [
        [grace, 'RISK_RATING', '1003'],
        [alan, 'INSUFFICIENT_INCOME', '1002'],
      ] as const) {
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['location'], undefined);
        assertShape(LoanDecision, res.json(), [...KEYS, 'reason']);
        const { loanId: _id, createdAt: _at, ...decision } = res.json();
        // A rejection offers nothing: no amount, no rate, no installment, whatever the reason.
        assert.deepEqual(decision, {
          status: 'REJECTED',
          reason,
          customerId,
          requestedAmount: res === grace ? 1000 : 50000,
          approvedAmount: 0,
          interestRate: 0,
          installmentValue: 0,
          installments: 12,
          currency: 'EUR',
        });
        const read = await h.request({
          method: 'GET',
          url: `/v1/loan-applications/${res.json().loanId}`,
          as: customerId === '1003' ? 'grace' : 'alan',
        });
        assert.deepEqual(read.json(), res.json());
      }
      const events = await queryStore(
        h,
        'SELECT event_type FROM events WHERE subject IN (?, ?) ORDER BY seq',
        grace.json().loanId,
        alan.json().loanId,
      );
      assert.deepEqual(
        events.map((e) => e['event_type']),
        ['LoanRejected', 'LoanRejected'],
        'a rejection raises LoanRejected, never LoanApproved',
      );
      assert.equal(
        (await h.request({ method: 'GET', url: `/v1/loan-applications/${alan.json().loanId}`, as: 'alan' })).json()
          .status,
        'REJECTED',
      );
    },
  );

  test(
    `${mode.name}: 400 outside 500.00–200,000.00 or 6–120 installments, wrong types, unknown fields; 404 for others`,
    { skip },
    async (t) => {
      const h = await start(t);
      const bad = [
        { customerId: '1001', amount: 499.99, installments: 12 },
        { customerId: '1001', amount: 200000.01, installments: 12 },
        { customerId: '1001', amount: 1000, installments: 5 },
        { customerId: '1001', amount: 1000, installments: 121 },
        { customerId: '1001', amount: 1000, installments: 12.5 },
        { customerId: '1001', amount: '1000', installments: 12 },
        { customerId: '1001', amount: 1000 },
        { customerId: '1001', amount: 1000, installments: 12, interestRate: 0.1 },
        { customerId: '1001', amount: 1000, installments: 1000 },
        { customerId: '1001', amount: 1000, installments: -12 },
        { customerId: '1001', amount: 1e20, installments: 12 },
        { customerId: '1001', amount: 1000.001, installments: 12 },
      ];
      for (const b of bad) assertProblem(await apply(h, b), 400, 'VALIDATION_FAILED');
      assertProblem(await apply(h, { customerId: '1002', amount: 1000, installments: 12 }), 404, 'NOT_FOUND');
      assertProblem(await apply(h, { customerId: '9999', amount: 1000, installments: 12 }, 'clerk'), 404, 'NOT_FOUND');
      assertProblem(
        await h.request({ method: 'GET', url: '/v1/loan-applications/LN-0000000000000000', as: 'ada' }),
        404,
        'NOT_FOUND',
      );
    },
  );

  test(
    `${mode.name}: customerId is the customer's string identifier; the deprecated JSON integer names the same customer`,
    { skip },
    async (t) => {
      const h = await start(t);
      const canonical = await apply(h, { customerId: '1001', amount: 1000, installments: 12 });
      assert.equal(canonical.statusCode, 201);
      assert.equal(canonical.json().customerId, '1001');
      const legacy = await apply(h, { customerId: 1001, amount: 1000, installments: 12 });
      assert.equal(legacy.statusCode, 201);
      assert.equal(legacy.json().customerId, '1001', 'answered as a string either way');
      const stored = await queryStore(
        h,
        'SELECT customer_id FROM loan_applications WHERE loan_id IN (?, ?)',
        canonical.json().loanId,
        legacy.json().loanId,
      );
      assert.deepEqual(
        stored.map((r) => String(r['customer_id'])),
        ['1001', '1001'],
      );
      // Another customer's number is refused the same way in either form.
      assertProblem(await apply(h, { customerId: 1002, amount: 1000, installments: 12 }), 404, 'NOT_FOUND');
      for (const customerId of ['10a1', '', 1.5, true, null, -1, 0, '12345678901', 12345678901]) {
        const body = assertProblem(
          await apply(h, { customerId, amount: 1000, installments: 12 }),
          400,
          'VALIDATION_FAILED',
        );
        const violations = body['errors'] as Array<{ pointer: string; in: string }>;
        assert.ok(
          violations.length > 0 && violations.every((v) => v.pointer === '/customerId' && v.in === 'body'),
          `${JSON.stringify(customerId)}: ${JSON.stringify(violations)}`,
        );
        assert.doesNotMatch(JSON.stringify(body), /lnrq|LNAPPL|PIC|record/i);
      }
    },
  );

  test(
    `${mode.name}: after the API has forgotten a key, the back-end still holds it to its request`,
    { skip },
    async (t) => {
      const h = await startApp(t, mode.env, { singleInstance: true });
      const body = { customerId: '1001', amount: 5000, installments: 36 };
      const first = await apply(h, body, 'ada', { 'idempotency-key': 'loan-old' });
      assert.equal(first.statusCode, 201);
      // The API's record expires (here: is forgotten); the loan row keeps the key.
      const forget = () => h.app.idempotencyStore.clear();
      await forget();
      const otherAmount = await apply(h, { ...body, amount: 6000 }, 'ada', { 'idempotency-key': 'loan-old' });
      assertProblem(otherAmount, 422, 'IDEMPOTENCY_KEY_REUSED');
      assert.doesNotMatch(otherAmount.body, /LNAPPL|lnrq|record/i);
      await forget();
      assertProblem(
        await apply(h, { ...body, installments: 48 }, 'ada', { 'idempotency-key': 'loan-old' }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      await forget();
      // The same request in the deprecated integer form is the same request: the original decision.
      const again = await apply(h, { ...body, customerId: 1001 }, 'ada', { 'idempotency-key': 'loan-old' });
      assert.equal(again.statusCode, 201);
      assert.equal(again.json().loanId, first.json().loanId);
      assert.deepEqual(again.json(), first.json());
      assert.equal(again.headers['idempotent-replayed'], 'true', 'answered again by the back-end');
      const stored = await queryStore(h, 'SELECT loan_id, requested_amount FROM loan_applications');
      assert.deepEqual(
        stored.map((r) => [r['loan_id'], Number(r['requested_amount'])]),
        [[first.json().loanId, 500_000]],
        'no second application',
      );
    },
  );

  test(`${mode.name}: an Idempotency-Key makes a loan application repeatable`, { skip }, async (t) => {
    const h = await start(t);
    const body = { customerId: '1001', amount: 5000, installments: 36 };
    const first = await apply(h, body, 'ada', { 'idempotency-key': 'loan-1' });
    const again = await apply(h, body, 'ada', { 'idempotency-key': 'loan-1' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().loanId, first.json().loanId);
    assertProblem(
      await apply(h, { ...body, amount: 6000 }, 'ada', { 'idempotency-key': 'loan-1' }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });
}

test("OpenAPI: customerId is the customers' string identifier, the integer form deprecated; a rejection is documented as offering nothing", async (t) => {
  const h = await startApp(t);
  const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/v1/loan-applications'].post;
  const request = op.requestBody.content['application/json'].schema;
  const [canonical, legacy] = request.properties.customerId.anyOf;
  const customers = doc.paths['/v1/customers/{customerId}'].get.parameters.find(
    (p: { name: string }) => p.name === 'customerId',
  ).schema;
  assert.deepEqual(
    { type: canonical.type, pattern: canonical.pattern, maxLength: canonical.maxLength },
    { type: 'string', pattern: customers.pattern, maxLength: customers.maxLength },
  );
  assert.equal(legacy.type, 'integer');
  assert.equal(legacy.deprecated, true);
  const decision = op.responses['200'].content['application/json'].schema.properties;
  assert.equal(decision.customerId.type, 'string');
  for (const field of ['status', 'approvedAmount', 'interestRate', 'installmentValue'])
    assert.match(decision[field].description, /0/, field);
});

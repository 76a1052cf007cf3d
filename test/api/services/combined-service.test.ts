/**
 * A service whose copybooks use COPY (from copybookPath), SYNC, COMP-2, a numeric-edited picture under
 * DECIMAL-POINT IS COMMA, PIC N and level-66 RENAMES together (test/fixtures/services-combined), served by
 * FXQUOTE compiled with cobc: what the program wrote, decoded, is what the client sees.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { cobolSkip } from '../../helpers/cobol.ts';

const SERVICES_DIR = fileURLToPath(new URL('../../fixtures/services-combined/', import.meta.url));
const URL_1001 = '/v1/customers/1001/fx-quotes';

function quote(h: TestApp, body: unknown) {
  return h.request({ method: 'POST', url: URL_1001, as: 'ada', body });
}

test('the program answers through the service file', { skip: cobolSkip }, async (t) => {
  const h = await startApp(t, { SERVICES_DIR });
  const res = await quote(h, {
    money: { amount: -1234.5, currency: 'EUR' },
    toCurrency: 'USD',
    units: 7,
    rate: 1.0825,
    party: { holder: 'Zoë Ångström 東京', reference: null },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), {
    customerId: 1001,
    // cobc's MOVE into PIC -ZZZ.ZZZ.ZZ9,99, de-edited; `display` is its bytes as cobc wrote them
    amount: -1234.5,
    // the SYNC binary item, read and written by the program past its slack byte
    units: 21,
    // COMP-2, computed by the program
    doubleRate: 2.165,
    // PIC N: UTF-16BE through the program; null (LOW-VALUES) through, by the emptyNumeric policies
    party: { holder: 'Zoë Ångström 東京', reference: null },
    // RENAMES shown by `renames`: FXR-FROM-CURRENCY THRU FXR-TO-CURRENCY, and the edited amount with its currency
    pair: 'EURUSD',
    display: '-      1.234,50EUR',
  });

  const big = await quote(h, {
    money: { amount: 987654321.09, currency: 'GBP' },
    toCurrency: 'JPY',
    units: -9,
    rate: 0.1,
    party: { holder: 'Ωμέγα', reference: 42 },
  });
  assert.equal(big.statusCode, 200, big.body);
  assert.deepEqual(big.json(), {
    customerId: 1001,
    amount: 987654321.09,
    units: -27,
    doubleRate: 0.2,
    party: { holder: 'Ωμέγα', reference: 42 },
    pair: 'GBPJPY',
    display: ' 987.654.321,09GBP',
  });
});

test(
  'bad input: 400 problem+json naming the field, from the schema, the encoder or the program',
  {
    skip: cobolSkip,
  },
  async (t) => {
    const h = await startApp(t, { SERVICES_DIR });
    const base = { money: { amount: 1, currency: 'EUR' }, toCurrency: 'USD', units: 1, rate: 1 };
    // 17 characters for PIC N(16): the copybook-derived schema
    const long = await quote(h, { ...base, party: { holder: 'Zoë Ångström 東京!!' } });
    assertProblem(long, 400, 'VALIDATION_FAILED');
    assert.deepEqual(
      long.json().errors.map((e: { pointer: string; in: string }) => [e.pointer, e.in]),
      [['/party/holder', 'body']],
    );
    // 16 characters, 17 UTF-16 code units (PIC N counts code units): the encoder
    const emoji = await quote(h, { ...base, party: { holder: 'Zoë Ångström 東京😀' } });
    assertProblem(emoji, 400, 'VALIDATION_FAILED');
    assert.deepEqual(
      emoji.json().errors.map((e: { pointer: string; in: string }) => [e.pointer, e.in]),
      [['/party/holder', 'body']],
    );
    // null where the request record has no emptyNumeric policy
    const nullUnits = await quote(h, { ...base, units: null });
    assertProblem(nullUnits, 400, 'VALIDATION_FAILED');
    assert.deepEqual(
      nullUnits.json().errors.map((e: { pointer: string }) => e.pointer),
      ['/units'],
    );
    // the program's own refusal (return code 20)
    const same = await quote(h, { ...base, toCurrency: 'EUR' });
    assertProblem(same, 400, 'VALIDATION_FAILED');
    assert.equal(same.json().detail, 'the two currencies are the same');
    assert.equal(same.json().reason, 'SAME_CURRENCY');
  },
);

test('the OpenAPI operation shows the fields, null where emptyNumeric allows it', { skip: cobolSkip }, async (t) => {
  const h = await startApp(t, { SERVICES_DIR });
  const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/v1/customers/{customerId}/fx-quotes'].post;
  assert.equal(op.operationId, 'fxQuote');
  const body = op.requestBody.content['application/json'].schema;
  assert.deepEqual(Object.keys(body.properties), ['money', 'toCurrency', 'units', 'rate', 'party']);
  assert.deepEqual(Object.keys(body.properties.money.properties), ['amount', 'currency']);
  assert.deepEqual(body.properties.units, { type: 'integer', minimum: -9999, maximum: 9999 });
  assert.equal(body.properties.rate.type, 'number');
  assert.deepEqual(body.properties.party.properties, {
    holder: { type: 'string', maxLength: 16 },
    reference: { type: ['integer', 'null'], minimum: 0, maximum: 999999 },
  });
  const answer = op.responses['200'].content['application/json'].schema;
  // FXR-FROM-CURRENCY, FXR-TO-CURRENCY and FXR-SHOWN-CURRENCY are left out; the RENAMES items are shown
  assert.deepEqual(Object.keys(answer.properties), [
    'customerId',
    'amount',
    'units',
    'doubleRate',
    'party',
    'pair',
    'display',
  ]);
  assert.deepEqual(answer.properties.amount, {
    type: 'number',
    multipleOf: 0.01,
    minimum: -999999999.99,
    maximum: 999999999.99,
  });
  assert.deepEqual(answer.properties.party.properties.reference.type, ['integer', 'null']);
  assert.deepEqual(answer.properties.pair, { type: 'string', maxLength: 6 });
  assert.deepEqual(answer.properties.display, { type: 'string', maxLength: 19 });
});

test(
  "the file's emptyNumeric default: null for every numeric item, but never in a path",
  { skip: cobolSkip },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'corebridge-services-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(SERVICES_DIR, dir, { recursive: true });
    const file = join(dir, 'fx-quote.json');
    const service = JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
    service['emptyNumeric'] = 'null';
    delete service['request']['emptyNumeric'];
    writeFileSync(file, JSON.stringify(service));
    const h = await startApp(t, { SERVICES_DIR: dir });
    const op = (await h.request({ method: 'GET', url: '/openapi.json' })).json().paths[
      '/v1/customers/{customerId}/fx-quotes'
    ].post;
    assert.deepEqual(op.parameters[0], {
      schema: { type: 'string', pattern: '^[0-9]{1,10}$' },
      in: 'path',
      name: 'customerId',
      required: true,
    });
    const body = op.requestBody.content['application/json'].schema;
    assert.deepEqual(body.properties.money.properties.amount.type, ['number', 'null']);
    assert.deepEqual(body.properties.party.properties.reference.type, ['integer', 'null']);
    // every filler is a value of this binary item, and COMP-2 has no policy: never null
    assert.equal(body.properties.units.type, 'integer');
    assert.equal(body.properties.rate.type, 'number');
    const res = await quote(h, {
      money: { amount: 5, currency: 'EUR' },
      toCurrency: 'USD',
      units: 1,
      rate: 1,
      party: { holder: 'A', reference: null },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().party, { holder: 'A', reference: null });
    assertProblem(
      await h.request({ method: 'POST', url: '/v1/customers/null/fx-quotes', as: 'clerk', body: {} }),
      400,
      'VALIDATION_FAILED',
    );
  },
);

/**
 * Service files that are wrong stop startup with the file and the JSON pointer of what is wrong: the
 * schema's rules, and what only the copybooks can tell. Each case edits a copy of the shipped example.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../../src/app.ts';
import { loadServices, ServiceFileError } from '../../../src/api/services/definition.ts';
import { loadConfig } from '../../../src/config.ts';
import { layoutItems } from '@corebridge/records';
import { cobolSkip } from '../../helpers/cobol.ts';
import { EXAMPLE_FILE, EXAMPLE_SERVICES, editedExample, type ServiceJson } from '../../helpers/services.ts';

const EXAMPLE = EXAMPLE_SERVICES;
const FILE = EXAMPLE_FILE;
const edited = editedExample;

test('the shipped example loads: route, parameters, constants, access', () => {
  const [service] = loadServices(EXAMPLE);
  assert.equal(service?.url, '/v1/customers/:customerId/payment-method-checks');
  assert.deepEqual(service?.params, ['customerId']);
  assert.deepEqual(service?.access, {
    method: 'POST',
    url: '/v1/customers/:customerId/payment-method-checks',
    scope: 'customers:read',
    roles: ['customer', 'agent'],
    ownership: 'customer-in-request',
  });
  assert.equal(service?.transaction, 'PMVERIFY');
});

test('each mistake is named by file and JSON pointer', () => {
  const cases: Array<[string, (s: ServiceJson) => void, string, RegExp]> = [
    [
      'unknown property',
      (s) => {
        s['timeout'] = 5;
      },
      '',
      /must NOT have additional properties "timeout"/,
    ],
    [
      'bad method',
      (s) => {
        s['method'] = 'FETCH';
      },
      '/method',
      /must be equal to one of the allowed values/,
    ],
    [
      'path outside /v1',
      (s) => {
        s['path'] = '/admin/checks';
      },
      '/path',
      /must match pattern/,
    ],
    [
      'scope not in the catalogue',
      (s) => {
        s['scope'] = 'admin';
      },
      '/scope',
      /allowed values/,
    ],
    [
      'no outcomes',
      (s) => {
        s['outcomes'] = [];
      },
      '/outcomes',
      /must NOT have fewer than 1 items/,
    ],
    [
      'missing copybook',
      (s) => {
        s['request']['copybook'] = 'NOPE.cpy';
      },
      '/request/copybook',
      /no copybook NOPE\.cpy beside the service file/,
    ],
    [
      'field not in the copybook',
      (s) => {
        s['request']['fields']['PMV-NOPE'] = 'nope';
      },
      '/request/fields/PMV-NOPE',
      /no such item in the copybook/,
    ],
    [
      'view of another item',
      (s) => {
        s['request']['views']['PMV-DETAILS']['views']['C'] = 'PMV-CHANNEL';
      },
      '/request/views/PMV-DETAILS',
      /PMV-CHANNEL is not a view of PMV-DETAILS/,
    ],
    [
      'constant that does not fit',
      (s) => {
        s['request']['constants']['PMV-CHANNEL'] = 'MORE THAN EIGHT';
      },
      '/request/constants/PMV-CHANNEL',
      /the value does not fit: string of 15 characters is longer than the 8 the field holds/,
    ],
    [
      'path parameter not in the request',
      (s) => {
        s['path'] = '/v1/customers/{customer}/payment-method-checks';
      },
      '/path',
      /\{customer\} is not a top-level JSON field of the request record/,
    ],
    [
      'ownership field not in the request',
      (s) => {
        s['ownership']['field'] = 'owner';
      },
      '/ownership/field',
      /"owner" is not a top-level JSON field/,
    ],
    [
      'error status without a code',
      (s) => {
        delete s['outcomes'][2]['error'];
      },
      '/outcomes/2',
      /status 400 needs an error code/,
    ],
    [
      'business status on an error',
      (s) => {
        s['outcomes'][2]['businessStatus'] = 'BAD';
      },
      '/outcomes/2/businessStatus',
      /is for 2xx statuses/,
    ],
    [
      'copybookPath entry that is not a directory',
      (s) => {
        s['copybookPath'] = ['.', 'nowhere'];
      },
      '/copybookPath/1',
      /no directory nowhere \(relative to the service file\)/,
    ],
    [
      'renames of an item that is not level 66',
      (s) => {
        s['response']['renames'] = { 'PMR-METHOD': true };
      },
      '/response/renames/PMR-METHOD',
      /mapping "PMR-METHOD": PMR-METHOD is not a level-66 RENAMES item/,
    ],
    [
      'renames of an item not in the copybook',
      (s) => {
        s['response']['renames'] = { 'PMR-NOPE': true };
      },
      '/response/renames/PMR-NOPE',
      /no such item in the copybook/,
    ],
    [
      'renames to something other than true or false',
      (s) => {
        s['response']['renames'] = { 'PMR-METHOD': 'yes' };
      },
      '/response/renames/PMR-METHOD',
      /must be boolean/,
    ],
    [
      'emptyNumeric on a text item',
      (s) => {
        s['request']['emptyNumeric'] = { 'PMV-METHOD': 'null' };
      },
      '/request/emptyNumeric/PMV-METHOD',
      /mapping "PMV-METHOD": emptyNumeric: PMV-METHOD is not numeric/,
    ],
    [
      // the key is in fields too, where it is right: the pointer names the part that is wrong
      'emptyNumeric whose null filler does not decode to null',
      (s) => {
        s['response']['emptyNumeric'] = { 'PMR-CUSTOMER-ID': { spaces: 'zero', nullFill: 'spaces' } };
      },
      '/response/emptyNumeric/PMR-CUSTOMER-ID',
      /emptyNumeric: nullFill is spaces, whose action is not "null"/,
    ],
    [
      'emptyNumeric action the codec does not know',
      (s) => {
        s['request']['emptyNumeric'] = { 'PMV-CUSTOMER-ID': 'blank' };
      },
      '/request/emptyNumeric/PMV-CUSTOMER-ID',
      /must be equal to one of the allowed values/,
    ],
    [
      'file emptyNumeric with a filler the codec does not know',
      (s) => {
        s['emptyNumeric'] = { blanks: 'null' };
      },
      '/emptyNumeric',
      /must NOT have additional properties "blanks"/,
    ],
    [
      'file emptyNumeric with an action the codec does not know',
      (s) => {
        s['emptyNumeric'] = { lowValues: 'blank' };
      },
      '/emptyNumeric/lowValues',
      /must be equal to one of the allowed values/,
    ],
    [
      'file emptyNumeric whose null filler does not decode to null',
      (s) => {
        s['emptyNumeric'] = { lowValues: 'zero', nullFill: 'lowValues' };
      },
      '/emptyNumeric',
      /emptyNumeric: nullFill is lowValues, whose action is not "null"/,
    ],
    [
      'currency sign that is a picture symbol',
      (s) => {
        s['currencySign'] = 'Z';
      },
      '/currencySign',
      /the currency sign "Z" must be one character, not a space, a lower-case letter or a picture symbol \(ABC/,
    ],
    [
      'currency sign of three characters',
      (s) => {
        s['currencySign'] = 'EUR';
      },
      '/currencySign',
      /must NOT have more than 1 characters/,
    ],
    [
      'decimalPointIsComma that is not a boolean',
      (s) => {
        s['decimalPointIsComma'] = 'yes';
      },
      '/decimalPointIsComma',
      /must be boolean/,
    ],
    [
      'no program source',
      (s) => {
        s['program'] = 'PMNONE';
      },
      '/program',
      /no PMNONE\.cbl beside the service file/,
    ],
    [
      'ownership none on a service customers may call',
      (s) => {
        s['ownership'] = { rule: 'none' };
      },
      '/ownership/rule',
      /the customer role may call this service, so it must name the customer/,
    ],
    [
      'responseFields for a role the service does not have',
      (s) => {
        s['responseFields'] = { customer: ['customerId'], agent: ['customerId'], partner: ['customerId'] };
      },
      '/responseFields/partner',
      /partner is not one of the service's roles/,
    ],
    [
      'responseFields naming no field of the response record',
      (s) => {
        s['responseFields'] = { customer: ['customerId', 'cardNumber'], agent: ['customerId'] };
      },
      '/responseFields/customer/1',
      /"cardNumber" is not a top-level JSON field of the response record \(fields: customerId, method, /,
    ],
    [
      'responseFields without a list for a role of the service',
      (s) => {
        s['responseFields'] = { agent: ['customerId'] };
      },
      '/responseFields',
      /no list for the customer role, which may call the service/,
    ],
    [
      'responseFields with an unknown role',
      (s) => {
        s['responseFields'] = { customer: ['customerId'], admin: ['customerId'] };
      },
      '/responseFields',
      /must NOT have additional properties "admin"/,
    ],
  ];
  for (const [label, edit, pointer, reason] of cases) {
    const dir = edited(edit);
    try {
      assert.throws(
        () => loadServices(dir),
        (e: unknown) => {
          assert.ok(e instanceof ServiceFileError, label);
          assert.equal(e.file, join(dir, FILE), label);
          assert.equal(e.pointer, pointer, label);
          assert.match(e.message, reason, label);
          assert.ok(e.message.startsWith(`${join(dir, FILE)}: ${pointer || '/'}: `), label);
          return true;
        },
        label,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('two files declaring one route: the second is named', () => {
  const dir = edited(() => {});
  try {
    writeFileSync(join(dir, 'same-route.json'), readFileSync(join(dir, FILE)));
    assert.throws(
      () => loadServices(dir),
      /same-route\.json: \/path: POST \/v1\/customers\/:customerId\/payment-method-checks is also declared by .*payment-method-check\.json/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad service file stops startup before anything opens', async () => {
  const dir = edited((s) => {
    s['request']['fields']['PMV-NOPE'] = 'nope';
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-data-'));
  try {
    await assert.rejects(
      buildApp(loadConfig({ DATA_DIR: dataDir, SERVICES_DIR: dir, LOG_LEVEL: 'silent' })),
      /payment-method-check\.json: \/request\/fields\/PMV-NOPE: /,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a service on a route Corebridge serves already stops startup, naming the file', { skip: cobolSkip }, async () => {
  const dir = edited((s) => {
    s['path'] = '/v1/loan-applications';
    s['roles'] = ['agent'];
    s['ownership'] = { rule: 'none' };
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-data-'));
  try {
    // The route is checked when the app is built, after its program (cobc).
    await assert.rejects(
      buildApp(loadConfig({ DATA_DIR: dataDir, SERVICES_DIR: dir, LOG_LEVEL: 'silent' })),
      (e: unknown) => {
        assert.ok(e instanceof ServiceFileError);
        assert.equal(e.pointer, '/path');
        assert.match(e.message, /POST \/v1\/loan-applications is a route Corebridge serves already/);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('copybookPath: COPY in a service copybook finds its copybook there, and a missing one is named', () => {
  const [shipped] = loadServices(EXAMPLE);
  const fields = (l: NonNullable<typeof shipped>['request']) =>
    [...layoutItems(l.root)].map((i) => [i.cobolName, i.offset, i.length, i.jsonPath]);
  const split = (copybookPath: string[] | undefined) => {
    const dir = edited((s) => {
      if (copybookPath) s['copybookPath'] = copybookPath;
    });
    // the card view moves to copy/PMVCARD.cpy, its names written with IBM's :TAG: convention
    const lines = readFileSync(join(dir, 'PMVERI.cpy'), 'utf8').split('\n');
    const card = lines.findIndex((l) => l.includes('PMV-CARD REDEFINES'));
    mkdirSync(join(dir, 'copy'));
    writeFileSync(
      join(dir, 'copy/PMVCARD.cpy'),
      lines
        .slice(card, card + 3)
        .join('\n')
        .replaceAll('PMV-', ':P:-'),
    );
    lines.splice(card, 3, '           COPY PMVCARD REPLACING ==:P:== BY ==PMV==.');
    writeFileSync(join(dir, 'PMVERI.cpy'), lines.join('\n'));
    return dir;
  };
  const dir = split(['copy']);
  const missing = split(undefined);
  try {
    const [service] = loadServices(dir);
    assert.deepEqual(fields(service!.request), fields(shipped!.request));
    // the program's build gets the same directories (cobc -I)
    assert.deepEqual(service!.copybookDirs, [join(dir, 'copy')]);
    const number = [...layoutItems(service!.request.root)].find((i) => i.cobolName === 'PMV-CARD-NUMBER');
    assert.deepEqual([number?.fileName, number?.line], ['copy/PMVCARD.cpy', 2]);
    assert.throws(
      () => loadServices(missing),
      (e: unknown) => {
        assert.ok(e instanceof ServiceFileError);
        assert.equal(e.pointer, '/request/copybook');
        assert.match(e.message, /PMVERI\.cpy:\d+:12: COPY PMVCARD: copybook not found \(searched \.\)/);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(missing, { recursive: true, force: true });
  }
});

test("emptyNumeric: the file's default for both records; a record's own setting wins", () => {
  const dir = edited((s) => {
    s['emptyNumeric'] = 'zero';
    s['response']['emptyNumeric'] = { 'PMR-CUSTOMER-ID': 'null' };
  });
  try {
    const [service] = loadServices(dir);
    const { request, response } = service!;
    // PMV-CUSTOMER-ID and PMR-CUSTOMER-ID hold spaces: zero by the file's default, null by the response's own
    const requestBytes = request.encode({ customerId: 1, method: 'C', card: { number: '4111', expiry: '1230' } });
    requestBytes.fill(0x20, 0, 10);
    assert.equal(request.decode(requestBytes)['customerId'], 0);
    const responseBytes = response.encode({ customerId: 1, method: 'C', card: { brand: 'VISA', last4: '1111' } });
    responseBytes.fill(0x20, 0, 10);
    assert.equal(response.decode(responseBytes)['customerId'], null);
    // null is the client's to send only where the policy gives null
    const properties = (l: typeof request) => l.jsonSchema()['properties'] as Record<string, { type: unknown }>;
    assert.equal(properties(request)['customerId']?.type, 'integer');
    assert.deepEqual(properties(response)['customerId']?.type, ['integer', 'null']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("currencySign: the program's CURRENCY SIGN in the copybooks' edited pictures", () => {
  const COMBINED = fileURLToPath(new URL('../../fixtures/services-combined/', import.meta.url));
  const withSign = (sign: string | undefined) => {
    const dir = mkdtempSync(join(tmpdir(), 'corebridge-services-'));
    cpSync(COMBINED, dir, { recursive: true });
    const copybook = join(dir, 'FXQO.cpy');
    writeFileSync(copybook, readFileSync(copybook, 'utf8').replace('-ZZZ.ZZZ.ZZ9,99', '-FFF.FFF.FF9,99'));
    const file = join(dir, 'fx-quote.json');
    const service = JSON.parse(readFileSync(file, 'utf8')) as ServiceJson;
    if (sign !== undefined) service['currencySign'] = sign;
    writeFileSync(file, JSON.stringify(service));
    return dir;
  };
  const dir = withSign('F');
  const without = withSign(undefined);
  try {
    const [service] = loadServices(dir);
    const bytes = service!.response.encode({ amount: -1234.5 });
    const amount = [...layoutItems(service!.response.root)].find((i) => i.cobolName === 'FXR-AMOUNT-SHOWN')!;
    assert.equal(bytes.toString('latin1', amount.offset, amount.offset + amount.length), '-     F1.234,50');
    assert.equal(service!.response.decode(bytes)['amount'], -1234.5);
    // without it, F is no picture symbol: the copybook is refused where the picture stands
    assert.throws(
      () => loadServices(without),
      (e: unknown) => {
        assert.ok(e instanceof ServiceFileError);
        assert.equal(e.pointer, '/response/copybook');
        assert.match(e.message, /FXQO\.cpy:6:/);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(without, { recursive: true, force: true });
  }
});

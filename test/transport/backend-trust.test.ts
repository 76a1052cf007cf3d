/**
 * Back-end trust over real mutual TLS: allowlists match SAN entries only, and only an API identity
 * (BACKEND_API_CLIENTS) states the caller of a call; any other allowed client calls as itself or is refused,
 * and a refused call never reaches the back-end runtime.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { BLANK_HEADER, RC, readHeader, writeMessage, type MessageHeader } from '../../src/backend/message.ts';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/settings/schema.ts';
import { DEV_API_CLIENT_NAME } from '../../src/tls/dev-files.ts';
import { TransportError } from '../../src/transport/transport.ts';
import { startApp } from '../helpers/app.ts';
import { assertProblem } from '../helpers/assert-shape.ts';
import { connectTls, startBackendService, testPki, writeDevPki } from '../helpers/backend-service.ts';

const catalog = loadMessageCatalog();
const REPORTS = 'reports.internal';

function header(fields: Partial<MessageHeader>): MessageHeader {
  return { ...BLANK_HEADER, correlationId: 'trust', ...fields };
}

function balance(caller: Partial<MessageHeader>): Buffer {
  return writeMessage(catalog, header({ tranCode: 'ACCBAL', ...caller }), catalog.request('ACCBAL'), {
    acckAccountId: '1002-01',
  });
}

/** The webhook dispatcher's turn: it answers due deliveries, their secrets included. */
function deliveryTurn(caller: Partial<MessageHeader>): Buffer {
  return writeMessage(catalog, header({ tranCode: 'WHDDUE', ...caller }), catalog.request('WHDDUE'), {
    whddMaxItems: 10,
    whddPerEndpoint: 16,
    whddLeaseSeconds: 30,
    whdrItemCount: 0,
    whdrItem: [],
  });
}

function answer(reply: Buffer): MessageHeader {
  return readHeader(catalog, reply).header;
}

test('a certificate whose CN but no SAN entry is the API name is refused; nothing reaches the back-end', async (t) => {
  const pki = await testPki();
  const running = await startBackendService(t);
  const transport = await connectTls(t, [running.url], { client: pki.cnOnly, connectionsPerBackend: 1 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await assert.rejects(transport.call(balance({ principal: 'clerk', role: 'AGENT' })), TransportError);
  await assert.rejects(transport.call(deliveryTurn({ principal: 'system', role: 'SYSTEM' })), TransportError);
  assert.equal(await transport.ready(), false);
  assert.equal(running.calls, 0);
});

test('an allowed client that is not an API instance: as itself it is served; claiming a user, a customer or SYSTEM is refused and nothing runs', async (t) => {
  const pki = await testPki();
  const running = await startBackendService(t, { allowedClients: [DEV_API_CLIENT_NAME, REPORTS] });
  const reports = await connectTls(t, [running.url], { client: pki.reports, connectionsPerBackend: 1 });
  // Up once the service answered its first ping: it accepted the certificate.
  await reports.connected(5000);

  const claims: Array<[string, Buffer]> = [
    ['another principal', balance({ principal: 'clerk', role: 'AGENT' })],
    ['a customer', balance({ principal: REPORTS, role: 'CUSTOMER', customerId: '1002' })],
    ['SYSTEM', deliveryTurn({ principal: 'system', role: 'SYSTEM' })],
    ['SYSTEM under its own name', deliveryTurn({ principal: REPORTS, role: 'SYSTEM' })],
  ];
  for (const [claim, message] of claims) {
    const refused = answer(await reports.call(message));
    assert.equal(refused.returnCode, RC.ABEND, claim);
    assert.equal(refused.reasonCode, 'CALLER_NOT_ALLOWED', claim);
    assert.equal(refused.correlationId, 'trust', claim);
  }
  assert.match(answer(await reports.call(claims[2]![1])).reasonText, /only an API instance \(BACKEND_API_CLIENTS\)/);
  assert.match(answer(await reports.call(claims[0]![1])).reasonText, /only as itself \(reports\.internal\)/);
  assert.equal(running.calls, 0);

  // Under its own name it reaches the back-end and is answered as any caller.
  const own = answer(await reports.call(balance({ principal: REPORTS, role: 'AGENT' })));
  assert.equal(own.returnCode, RC.OK);
  assert.equal(running.calls, 1);
});

test('the API identity calls for any user and as SYSTEM', async (t) => {
  const running = await startBackendService(t, { allowedClients: [DEV_API_CLIENT_NAME, REPORTS] });
  const api = await connectTls(t, [running.url], { connectionsPerBackend: 1 });
  await api.connected(5000);
  assert.equal(answer(await api.call(balance({ principal: 'clerk', role: 'AGENT' }))).returnCode, RC.OK);
  const turn = answer(await api.call(deliveryTurn({ principal: 'system', role: 'SYSTEM' })));
  assert.equal(turn.returnCode, RC.OK);
  assert.equal(running.calls, 2);
});

test('an API instance whose certificate is allowed but not on BACKEND_API_CLIENTS: its users get a 500, nothing runs', async (t) => {
  const pki = await testPki();
  const running = await startBackendService(t, { allowedClients: [DEV_API_CLIENT_NAME, REPORTS] });
  const h = await startApp(
    t,
    { BACKEND_URL: running.url },
    { beforeBuild: (dataDir) => writeDevPki(dataDir, pki, { client: pki.reports }) },
  );
  let res = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' });
  for (let i = 0; i < 100 && res.statusCode === 503; i++) {
    await new Promise((r) => setTimeout(r, 50));
    res = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' });
  }
  assertProblem(res, 500, 'INTERNAL_ERROR');
  assert.doesNotMatch(res.body, /BACKEND_API_CLIENTS|reports\.internal/);
  assert.equal(running.calls, 0);
});

test('BACKEND_API_CLIENTS must be on BACKEND_ALLOWED_CLIENTS: said at start-up, naming the setting', () => {
  assert.throws(
    () => loadConfig({ BACKEND_ALLOWED_CLIENTS: 'api-1.internal' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      /BACKEND_API_CLIENTS/.test(error.message) &&
      /corebridge-api, not on BACKEND_ALLOWED_CLIENTS/.test(error.message),
  );
  const config = loadConfig({
    BACKEND_ALLOWED_CLIENTS: 'api-1.internal,reports.internal',
    BACKEND_API_CLIENTS: 'api-1.internal',
  });
  assert.deepEqual([...config.backendService.apiClients], ['api-1.internal']);
  assert.deepEqual(
    [...loadConfig({}).backendService.apiClients],
    [DEV_API_CLIENT_NAME],
    'by default the development PKI API certificate',
  );
});

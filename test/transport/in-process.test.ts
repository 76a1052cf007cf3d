import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { createBackend, type Backend } from '../../src/backend/index.ts';
import { loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { RC, readHeader, writeMessage } from '../../src/backend/message.ts';
import { inProcessTransport } from '../../src/transport/in-process.ts';
import { TransportError } from '../../src/transport/transport.ts';

test('the in-process transport carries copies of encoded messages both ways and refuses calls once closed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-transport-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const catalog = loadMessageCatalog();
  const real = createBackend({ file: join(dir, 'backend.sqlite'), log: pino({ level: 'silent' }), catalog });
  let seen: Buffer | undefined;
  let answer: Buffer | undefined;
  const observed: Backend = {
    handle(message) {
      seen = message;
      answer = real.handle(message);
      return answer;
    },
    handleBatch: (messages) => real.handleBatch(messages),
    ready: () => real.ready(),
    close: () => real.close(),
  };
  const transport = inProcessTransport(observed);
  const request = writeMessage(
    catalog,
    { tranCode: 'ACCBAL', correlationId: 'transport-1', principal: 'clerk', role: 'AGENT', customerId: '', idempotencyKey: '', returnCode: 0, reasonCode: '', reasonText: '' },
    catalog.request('ACCBAL'),
    { acckAccountId: '1002-01' },
  );
  const response = await transport.call(request);
  const { header, body } = readHeader(catalog, response);
  assert.equal(header.returnCode, RC.OK);
  assert.equal(header.correlationId, 'transport-1');
  assert.equal(catalog.response('ACCBAL').decode(body)['accbBalance'], 1200);
  assert.notEqual(seen, request, 'the back-end gets its own copy');
  assert.ok(seen?.equals(request));
  assert.notEqual(response, answer, 'the caller gets its own copy');

  assert.equal(await transport.ready(), true);
  await transport.close();
  assert.equal(await transport.ready(), false);
  await assert.rejects(transport.call(request), TransportError);
});

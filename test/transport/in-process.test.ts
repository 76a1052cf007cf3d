import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Backend } from '../../src/backend/index.ts';
import { inProcessTransport } from '../../src/transport/in-process.ts';
import { TransportError } from '../../src/transport/transport.ts';

test('the in-process transport carries copies of bytes both ways and refuses calls once closed', async () => {
  let seen: Buffer | undefined;
  let closed = false;
  const answer = Buffer.from('reply');
  const backend: Backend = {
    handle(message) {
      seen = message;
      return answer;
    },
    ready: () => true,
    close: () => {
      closed = true;
    },
  };
  const transport = inProcessTransport(backend);
  const request = Buffer.from('request');
  const response = await transport.call(request);
  assert.equal(response.toString(), 'reply');
  assert.notEqual(seen, request, 'the back-end gets its own copy');
  assert.notEqual(response, answer, 'the caller gets its own copy');
  assert.equal(await transport.ready(), true);
  await transport.close();
  assert.equal(closed, true);
  assert.equal(await transport.ready(), false);
  await assert.rejects(transport.call(request), TransportError);
});

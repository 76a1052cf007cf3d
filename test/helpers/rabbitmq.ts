/**
 * The machine's RabbitMQ (127.0.0.1:5672, guest/guest) for tests: a connection that fails the test when the
 * broker is not there, queues bound to the events exchange, reading a queue dry, and stopping and starting the
 * broker (rabbitmqctl stop_app / start_app) for the outage test.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';
import { Connection, type SyncMessage } from 'rabbitmq-client';
import { EVENTS_EXCHANGE } from '../../src/events/rabbitmq.ts';

export const TEST_BROKER_URL = process.env['TEST_BROKER_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';

/** The test's own queues per connection: deleted before the connection closes. */
const testQueues = new WeakMap<Connection, Set<string>>();

/** A queue of the test's own, deleted after the test (with the connection's other queues). */
export function deleteAfterTest(rabbit: Connection, queue: string): void {
  testQueues.get(rabbit)?.add(queue);
}

export async function connectBroker(t: TestContext): Promise<Connection> {
  const rabbit = new Connection({ url: TEST_BROKER_URL, retryLow: 200, retryHigh: 1000 });
  testQueues.set(rabbit, new Set());
  rabbit.on('error', () => undefined);
  try {
    await rabbit.onConnect(5000);
  } catch (error) {
    assert.fail(
      `RabbitMQ is needed at ${TEST_BROKER_URL} and does not answer (${(error as Error).message}); start it with: rabbitmq-server -detached`,
    );
  }
  t.after(async () => {
    for (const queue of testQueues.get(rabbit) ?? []) await rabbit.queueDelete({ queue }).catch(() => undefined);
    await rabbit.close();
  });
  return rabbit;
}

/** A durable queue of the test's own, bound to every event type; deleted after the test. */
export async function eventQueue(rabbit: Connection, label: string): Promise<string> {
  const queue = `corebridge-test-${label}-${randomUUID().slice(0, 8)}`;
  await rabbit.exchangeDeclare({ exchange: EVENTS_EXCHANGE, type: 'topic', durable: true });
  await rabbit.queueDeclare({ queue, durable: true });
  await rabbit.queueBind({ queue, exchange: EVENTS_EXCHANGE, routingKey: '#' });
  deleteAfterTest(rabbit, queue);
  return queue;
}

/** Takes every message now in the queue, in order. */
export async function drain(rabbit: Connection, queue: string): Promise<SyncMessage[]> {
  const messages: SyncMessage[] = [];
  for (;;) {
    const message = await rabbit.basicGet({ queue, noAck: true });
    if (!message) return messages;
    messages.push(message);
  }
}

const run = promisify(execFile);

export async function stopBroker(): Promise<void> {
  await run('rabbitmqctl', ['stop_app']);
}

export async function startBroker(): Promise<void> {
  await run('rabbitmqctl', ['start_app']);
  await run('rabbitmqctl', ['await_startup']);
}

/**
 * Publishes events to RabbitMQ (BROKER_URL) on the durable topic exchange `corebridge.events`, with confirms,
 * so consumers can bind their own queues; a failed publish leaves the events for the relay to try again.
 */
import { Connection } from 'rabbitmq-client';
import type { Logger } from 'pino';
import type { CloudEvent } from '../resources/event.ts';
import type { EventPublisher } from './relay.ts';

export const EVENTS_EXCHANGE = 'corebridge.events';
const CONFIRM_TIMEOUT_MS = 10_000;

/** amqp://user:***@host/ for logs: the password never leaves the configuration. */
export function redactedBrokerUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unreadable URL';
  }
}

export function openRabbitPublisher(url: string, log: Logger): EventPublisher {
  const broker = redactedBrokerUrl(url);
  const connection = new Connection({
    url,
    connectionName: 'corebridge-event-relay',
    connectionTimeout: 5000,
    acquireTimeout: 5000,
    retryLow: 500,
    retryHigh: 10_000,
  });
  let connected = false;
  connection.on('connection', () => {
    connected = true;
    log.info({ broker }, 'event relay connected to RabbitMQ');
  });
  connection.on('error', (err) => {
    if (connected) log.warn({ err, broker }, 'RabbitMQ connection lost; events wait in the outbox');
    connected = false;
  });
  const publisher = connection.createPublisher({
    confirm: true,
    maxAttempts: 1,
    exchanges: [{ exchange: EVENTS_EXCHANGE, type: 'topic', durable: true }],
    // No queue bound for the type: nobody has asked for it (consumers bind their own queues), so it counts as
    // published; the line says so, for an operator who expected a consumer.
    onReturn: (msg) =>
      log.warn(
        { eventId: msg.messageId, type: msg.routingKey, broker },
        'event routed to no queue: no consumer binds its type',
      ),
  });
  return {
    description: `RabbitMQ ${broker}, exchange ${EVENTS_EXCHANGE}`,
    async publish(events) {
      // Not connected: fail at once rather than wait for the reconnection, so the relay's turns go on.
      if (!connection.ready) throw new Error(`not connected to ${broker}`);
      // Sent in order on one channel, so they reach each queue in order; each resolves on its confirm. A broker
      // that takes no message and says nothing must not stop the relay: past the time limit, nothing counts as
      // confirmed.
      let timer: NodeJS.Timeout | undefined;
      const timeLimit = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), CONFIRM_TIMEOUT_MS);
      });
      const sending = Promise.allSettled(
        events.map((event) => publisher.send(envelope(event), Buffer.from(JSON.stringify(event)))),
      );
      const sent = await Promise.race([sending, timeLimit]).finally(() => clearTimeout(timer));
      if (sent === 'timeout') throw new Error(`no confirm from ${broker} within ${CONFIRM_TIMEOUT_MS} ms`);
      const firstFailure = sent.findIndex((s) => s.status === 'rejected');
      if (firstFailure === -1) return events.length;
      log.warn(
        { err: (sent[firstFailure] as PromiseRejectedResult).reason, broker },
        'RabbitMQ did not confirm an event; it is published again',
      );
      return firstFailure;
    },
    async close() {
      await publisher.close();
      await connection.close();
    },
  };
}

function envelope(event: CloudEvent) {
  return {
    exchange: EVENTS_EXCHANGE,
    routingKey: event.type,
    durable: true,
    mandatory: true,
    // a Buffer body: the client would label a string text/plain
    contentType: 'application/cloudevents+json; charset=utf-8',
    messageId: event.id,
    correlationId: event.correlationid,
    type: event.type,
    timestamp: Math.floor(Date.parse(event.time) / 1000),
    appId: 'corebridge',
  };
}

/** For tests and tools: the message body back to the event. */
export function parseEventMessage(body: unknown): CloudEvent {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
  return JSON.parse(text) as CloudEvent;
}

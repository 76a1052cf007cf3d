/**
 * The operations queue on RabbitMQ (BROKER_URL): one durable queue per transaction carrying the transaction
 * messages as bytes, so every API instance can run them; a message is acked only once its outcome is recorded.
 */
import type { Logger } from 'pino';
import { Connection } from 'rabbitmq-client';
import { ASYNC_TRANSACTIONS, type AsyncTranCode } from '../backend/copybooks/index.ts';
import { redactedBrokerUrl } from '../events/rabbitmq.ts';

export const operationQueueName = (tran: AsyncTranCode) => `corebridge.operations.${tran}`;

export interface OperationQueue {
  /** Connected now? (Operations are claimed for the queue only then.) */
  ready(): boolean;
  send(operationId: string, tran: AsyncTranCode, message: Buffer): Promise<void>;
  close(): Promise<void>;
}

export function openRabbitOperationQueue(
  url: string,
  log: Logger,
  handle: (operationId: string, message: Buffer) => Promise<void>,
  prefetch: number,
): OperationQueue {
  const broker = redactedBrokerUrl(url);
  const connection = new Connection({
    url,
    connectionName: 'corebridge-operations',
    connectionTimeout: 5000,
    acquireTimeout: 5000,
    retryLow: 500,
    retryHigh: 10_000,
  });
  connection.on('error', (err) =>
    log.warn({ err, broker }, 'RabbitMQ connection (operations) lost; pending operations wait in the store'),
  );
  const queues = ASYNC_TRANSACTIONS.map((tran) => ({ queue: operationQueueName(tran), durable: true }));
  const publisher = connection.createPublisher({ confirm: true, maxAttempts: 1, queues });
  const consumers = queues.map(({ queue }) =>
    connection.createConsumer(
      { queue, queueOptions: { durable: true }, qos: { prefetchCount: prefetch }, concurrency: prefetch },
      // Throwing leaves the message unacknowledged: RabbitMQ delivers it again.
      async (msg) =>
        handle(String(msg.messageId), Buffer.isBuffer(msg.body) ? msg.body : Buffer.from(String(msg.body), 'latin1')),
    ),
  );
  for (const c of consumers) c.on('error', (err) => log.warn({ err, broker }, 'operations consumer error'));
  return {
    ready: () => connection.ready,
    async send(operationId, tran, message) {
      if (!connection.ready) throw new Error(`not connected to ${broker}`);
      await publisher.send(
        {
          routingKey: operationQueueName(tran),
          durable: true,
          messageId: operationId,
          contentType: 'application/octet-stream',
          type: tran,
        },
        message,
      );
    },
    async close() {
      await Promise.all(consumers.map((c) => c.close()));
      await publisher.close();
      await connection.close();
    },
  };
}

/**
 * What every example consumer shares: its own durable queue on the `corebridge.events` exchange, bound to
 * the event types it reacts to, and its own store, in which it records each event id it has processed in the
 * same transaction as the work the event caused. RabbitMQ delivers at least once: an id already recorded is
 * acknowledged and skipped, so a repeated delivery is processed only once.
 *
 * Settings: BROKER_URL (default amqp://guest:guest@127.0.0.1:5672), QUEUE (default examples.<name>),
 * STORE (default ./data/<name>.sqlite). Each processed event is one JSON line on stdout.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Connection } from 'rabbitmq-client';

export interface CloudEvent {
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  correlationid: string;
  data: Record<string, unknown>;
}

export interface ConsumerDefinition {
  name: string;
  eventTypes: readonly string[];
  /** The consumer's own tables. */
  schema: string;
  /** The work an event causes, inside the transaction that records its id. */
  handle(event: CloudEvent, db: DatabaseSync): Record<string, unknown>;
}

export function runConsumer(definition: ConsumerDefinition): void {
  const { name } = definition;
  const brokerUrl = process.env['BROKER_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
  const queue = process.env['QUEUE'] ?? `examples.${name}`;
  const storeFile = process.env['STORE'] ?? `./data/${name}.sqlite`;
  mkdirSync(dirname(storeFile), { recursive: true });
  const db = new DatabaseSync(storeFile);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  db.exec(
    `CREATE TABLE IF NOT EXISTS processed_events (event_id TEXT PRIMARY KEY, type TEXT NOT NULL, processed_at TEXT NOT NULL); ${definition.schema}`,
  );
  const remember = db.prepare(
    'INSERT INTO processed_events (event_id, type, processed_at) VALUES (?, ?, ?) ON CONFLICT (event_id) DO NOTHING',
  );

  const rabbit = new Connection({ url: brokerUrl, connectionName: `example-${name}` });
  rabbit.on('error', (err) => console.error(`${name}: broker connection: ${err.message}`));
  const consumer = rabbit.createConsumer(
    {
      queue,
      queueOptions: { durable: true },
      exchanges: [{ exchange: 'corebridge.events', type: 'topic', durable: true }],
      queueBindings: definition.eventTypes.map((type) => ({ exchange: 'corebridge.events', routingKey: type })),
      qos: { prefetchCount: 20 },
    },
    (message) => {
      const event = JSON.parse(
        Buffer.isBuffer(message.body) ? message.body.toString('utf8') : JSON.stringify(message.body),
      ) as CloudEvent;
      db.exec('BEGIN IMMEDIATE');
      try {
        const fresh = Number(remember.run(event.id, event.type, new Date().toISOString()).changes) === 1;
        const outcome = fresh ? definition.handle(event, db) : {};
        db.exec('COMMIT');
        console.log(
          JSON.stringify({
            consumer: name,
            eventId: event.id,
            type: event.type,
            subject: event.subject,
            duplicate: !fresh,
            ...outcome,
          }),
        );
      } catch (error) {
        db.exec('ROLLBACK');
        throw error; // not acknowledged: RabbitMQ delivers it again
      }
    },
  );
  consumer.on('error', (err) => console.error(`${name}: consumer: ${err.message}`));
  consumer.on('ready', () =>
    console.error(`${name}: consuming ${queue} (${definition.eventTypes.join(', ')}); store ${storeFile}`),
  );

  const stop = async () => {
    await consumer.close();
    await rabbit.close();
    db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/**
 * A JSON number with at most two decimals (an API amount) → integer minor units, through its decimal text: no float
 * arithmetic.
 */
export function minorUnits(amount: unknown): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount));
  if (!match) throw new Error(`not an amount: ${String(amount)}`);
  const minor = Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'));
  return match[1] === '-' ? -minor : minor;
}

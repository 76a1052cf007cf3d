/**
 * The event relay: carries committed events out of the back-end's outbox, in commit order, at least once.
 * Each turn is one back-end transaction (EVTNXT, as the SYSTEM caller, encoded like every call): it takes or
 * keeps the relay lease, gives positions to newly committed events (the events feed reads by them), marks
 * what this relay has published, and hands it the next unpublished events. Several API instances each run
 * a relay; the one holding the lease works, the others stand by and take over when its lease runs out.
 *
 * - Embedded (no broker): positions are all that is needed; events are marked published at once.
 * - BROKER_URL: events go to RabbitMQ (src/events/rabbitmq.ts) and are marked published only after the
 *   broker's confirm; while it is away they wait in the outbox and the relay tries again with backoff.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { decodeResponse } from '../api/backend-client.ts';
import type { MessageCatalog } from '../backend/copybooks/index.ts';
import { BLANK_HEADER, RC, readHeader, writeMessage } from '../backend/message.ts';
import type { Transport } from '../transport/transport.ts';
import { OWNER_VIEW, readEventList, toCloudEvent, type CloudEvent, type EventList } from './cloud-event.ts';

export interface EventPublisher {
  description: string;
  /** Publishes the events in order; resolves with how many of them, from the first, are confirmed. */
  publish(events: readonly CloudEvent[]): Promise<number>;
  close(): Promise<void>;
}

export interface EventRelayOptions {
  transport: Transport;
  catalog: MessageCatalog;
  log: Logger;
  /** null: the embedded relay (positions only). */
  publisher: EventPublisher | null;
  /** How often an idle relay looks for events that no kick announced (another instance's, for one). */
  pollMs: number;
  /** How long the lease lasts without a turn; a standby relay takes over after it. */
  leaseSeconds: number;
  /** Called after a turn gave positions (and so made webhook deliveries): the dispatcher looks at once. */
  onPositioned?: () => void;
}

export interface EventRelay {
  /** A change was committed: look now rather than at the next poll. */
  kick(): void;
  close(): Promise<void>;
}

const BATCH = 100;
/** EVTN-ACK-POSITION 9(15) at its largest: "everything positioned is published" (the embedded relay). */
const ALL = 999_999_999_999_999;
const MAX_BACKOFF_MS = 30_000;

/** 0.5 s, 1 s, 2 s, … up to 30 s, with jitter, so instances that failed together do not retry together. */
function backoff(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures, 7)) * (0.5 + Math.random() / 2);
}

export function startEventRelay(options: EventRelayOptions): EventRelay {
  const { transport, catalog, publisher } = options;
  const log = options.log.child({ component: 'event-relay' });
  const relayId = randomUUID();
  let acked = 0;
  let turns = 0;
  let closed = false;
  let kicked = false;
  let wake: (() => void) | null = null;
  let failures = 0;
  let holding = false;
  let lastPosition = 0;

  async function turn(): Promise<EventList> {
    const message = writeMessage(
      catalog,
      { ...BLANK_HEADER, tranCode: 'EVTNXT', correlationId: `event-relay-${relayId}-${++turns}`, principal: 'corebridge-event-relay', role: 'SYSTEM' },
      catalog.request('EVTNXT'),
      { evtnRelayId: relayId, evtnLeaseSeconds: options.leaseSeconds, evtnAckPosition: publisher ? acked : ALL, evtnMaxItems: publisher ? BATCH : 0 },
    );
    const { header, body } = readHeader(catalog, await transport.call(message));
    if (header.returnCode !== RC.OK) throw new Error(`EVTNXT answered ${header.returnCode} ${header.reasonCode}: ${header.reasonText}`);
    const out = decodeResponse(catalog, 'EVTNXT', body);
    return readEventList(catalog, out.body, out.segments);
  }

  /** When publishing failed: not before then again (the turns go on meanwhile, so the feed does not wait for the broker). */
  let publishAfter = 0;
  let publishFailures = 0;

  async function publish(list: EventList): Promise<boolean> {
    if (!publisher || list.items.length === 0 || Date.now() < publishAfter) return false;
    const events = list.items.map((item) => toCloudEvent(item, OWNER_VIEW));
    let confirmed = 0;
    try {
      confirmed = await publisher.publish(events);
    } catch (error) {
      log.warn({ err: error, relayId }, 'publishing failed');
    }
    if (confirmed > 0) acked = list.items[confirmed - 1]!.position;
    if (confirmed === events.length) {
      if (publishFailures > 0) log.info({ relayId, failures: publishFailures }, 'events flow to the broker again');
      publishFailures = 0;
      return true;
    }
    publishFailures++;
    publishAfter = Date.now() + backoff(publishFailures);
    // One line when it starts failing, then one per ten failures: an absent broker must not flood the log.
    if (publishFailures === 1 || publishFailures % 10 === 0) {
      log.warn({ relayId, failures: publishFailures, unconfirmed: events.length - confirmed }, 'events not confirmed by the broker; they wait in the outbox');
    }
    return false;
  }

  /** One turn and its publishing; true when there is more to do at once. */
  async function step(): Promise<boolean> {
    const list = await turn();
    if (list.leaseHeld !== holding) {
      holding = list.leaseHeld;
      log.info({ relayId, publisher: publisher?.description ?? 'none (embedded)' }, holding ? 'event relay holds the lease' : 'event relay stands by');
    }
    if (!list.leaseHeld) return false;
    if (list.lastPosition > lastPosition) {
      lastPosition = list.lastPosition;
      options.onPositioned?.();
    }
    const published = await publish(list);
    return published || (list.more && Date.now() >= publishAfter);
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    while (!closed) {
      kicked = false;
      let again = false;
      try {
        again = await step();
        if (failures > 0) log.info({ relayId, failures }, 'event relay reaches the back-end again');
        failures = 0;
      } catch (error) {
        failures++;
        if (failures === 1 || failures % 10 === 0) log.warn({ err: error, relayId, failures }, 'event relay turn failed; events wait in the outbox');
      }
      if (closed) break;
      if (failures > 0) await sleep(backoff(failures));
      else if (!again && !kicked) await sleep(options.pollMs);
    }
  }

  const running = run();
  return {
    kick() {
      kicked = true;
      wake?.();
    },
    async close() {
      closed = true;
      wake?.();
      await running;
      await publisher?.close();
    },
  };
}

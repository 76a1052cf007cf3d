/**
 * The event relay: carries committed events out of the back-end's outbox, in commit order, at least once,
 * to RabbitMQ (BROKER_URL) or, embedded, only giving them positions; one instance at a time holds the lease.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { MessageCatalog } from '../backend/copybooks/index.ts';
import { backoff, startBackgroundLoop } from '../background-loop.ts';
import { OWNER_VIEW, readEventList, toCloudEvent, type CloudEvent, type EventList } from '../resources/event.ts';
import type { BackendClient } from '../client/backend-client.ts';
import { systemCaller } from '../client/system-caller.ts';

export interface EventPublisher {
  description: string;
  /** Publishes the events in order; resolves with how many of them, from the first, are confirmed. */
  publish(events: readonly CloudEvent[]): Promise<number>;
  close(): Promise<void>;
}

export interface EventRelayOptions {
  backend: BackendClient;
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
export function startEventRelay(options: EventRelayOptions): EventRelay {
  const { backend, catalog, publisher } = options;
  const log = options.log.child({ component: 'event-relay' });
  const relayId = randomUUID();
  // A turn is kicked by every write answered: under load it rides with the next calls into their group commit
  // (one fsync for both) instead of committing alone, at most JOIN_NEXT_BATCH_MS later (src/transport/worker.ts).
  const call = systemCaller(backend, 'corebridge-event-relay', true);
  let acked = 0;
  let holding = false;
  let lastPosition = 0;

  async function turn(): Promise<EventList> {
    const out = await call('EVTNXT', {
      evtnRelayId: relayId,
      evtnLeaseSeconds: options.leaseSeconds,
      // Without a broker, positions are all consumers need, so every positioned event counts as published.
      evtnAckPosition: publisher ? acked : ALL,
      evtnMaxItems: publisher ? BATCH : 0,
    });
    return readEventList(catalog, out.body, out.segments);
  }

  /**
   * When publishing failed: not before then again (the turns go on meanwhile, so the feed does not wait for the
   * broker).
   */
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
      log.warn(
        { relayId, failures: publishFailures, unconfirmed: events.length - confirmed },
        'events not confirmed by the broker; they wait in the outbox',
      );
    }
    return false;
  }

  /** One turn and its publishing; true when there is more to do at once. */
  async function step(): Promise<boolean> {
    const list = await turn();
    if (list.leaseHeld !== holding) {
      holding = list.leaseHeld;
      log.info(
        { relayId, publisher: publisher?.description ?? 'none (embedded)' },
        holding ? 'event relay holds the lease' : 'event relay stands by',
      );
    }
    if (!list.leaseHeld) return false;
    if (list.lastPosition > lastPosition) {
      lastPosition = list.lastPosition;
      options.onPositioned?.();
    }
    const published = await publish(list);
    return published || (list.more && Date.now() >= publishAfter);
  }

  const loop = startBackgroundLoop({
    log,
    what: 'event relay turn (events wait in the outbox)',
    pollMs: options.pollMs,
    turn: step,
  });
  return {
    kick: () => loop.kick(),
    async close() {
      await loop.close();
      await publisher?.close();
    },
  };
}

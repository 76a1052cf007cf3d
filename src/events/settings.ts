/** The event relay (BROKER_URL, EVENTS_*) and webhook delivery (WEBHOOK_*). */
import {
  ConfigError,
  flag,
  integer,
  listItems,
  parsed,
  rawValue,
  read,
  section,
  type Env,
} from '../settings/schema.ts';
import { parseKeyring, readKeyringFile, type WebhookKeyring } from './webhook-secrets.ts';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s`, `30m`, `5d` → milliseconds; null when it is not such a duration. */
function durationMs(text: string): number | null {
  const match = /^\s*([0-9]{1,6})(ms|s|m|h|d)\s*$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : null;
}

export const EVENTS_SETTINGS = section('Events, webhooks, work run later', {
  BROKER_URL: parsed({
    allowed: 'amqp:// or amqps:// URL',
    description: 'RabbitMQ, amqp://user:password@host:5672',
    parse(value, name) {
      if (!value) return null;
      if (!URL.canParse(value) || !/^amqps?:$/.test(new URL(value).protocol)) {
        throw new ConfigError(name, 'must be an amqp:// or amqps:// URL (amqp://user:password@host:5672)');
      }
      return value;
    },
  }),
  EVENTS_POLL_MS: integer({
    default: 250,
    min: 10,
    max: 60_000,
    description: 'how often an idle relay looks for new events',
  }),
  EVENTS_LEASE_SECONDS: integer({
    default: 10,
    min: 1,
    max: 600,
    description: "how long a relay's lease lasts without a turn (then a standby takes over)",
  }),
});

export const WEBHOOK_SETTINGS = section('Webhooks', {
  WEBHOOK_RETRY_SCHEDULE: parsed({
    default: '5s,5m,30m,2h,5h,10h,10h',
    allowed: 'durations (ms, s, m, h, d), comma-separated',
    description: 'waits after each failed attempt; after the last one the delivery has failed',
    /** `5s,5m,30m,2h` → milliseconds. */
    parse: (value, name) =>
      value.split(',').map((part) => {
        const ms = durationMs(part);
        if (ms === null)
          throw new ConfigError(name, `must be durations like 5s,5m,2h separated by commas, got "${part}"`);
        return ms;
      }),
  }),
  WEBHOOK_DISABLE_AFTER: parsed({
    default: '5d',
    allowed: 'a duration (ms, s, m, h, d); 0s: never',
    description: 'a subscription whose deliveries have failed, none succeeding, for this long is disabled',
    parse(value, name) {
      const ms = durationMs(value);
      if (ms === null) throw new ConfigError(name, `must be a duration like 5d, 12h or 30m, got "${value}"`);
      // It travels in whole seconds (WHDDUEI): ten years is as good as never.
      if (ms > 3650 * 86_400_000) throw new ConfigError(name, 'must be at most 3650d (0s: never)');
      return ms;
    },
  }),
  WEBHOOK_ALLOW_HTTP: flag({ default: false, description: 'plain http endpoints allowed (development)' }),
  WEBHOOK_ALLOWED_CIDRS: parsed({
    allowed: 'address ranges, comma-separated',
    description: 'internal ranges endpoints may be in after all, e.g. 127.0.0.1/32 (development)',
    parse(value, name) {
      const cidrs = listItems(value);
      for (const cidr of cidrs) {
        if (!/^[0-9a-fA-F:.]+(\/[0-9]{1,3})?$/.test(cidr)) {
          throw new ConfigError(name, `lists "${cidr}", which is not an address range`);
        }
      }
      return cidrs;
    },
  }),
  WEBHOOK_ALLOWED_PORTS: parsed({
    allowed: 'ports, comma-separated',
    description: 'ports endpoints may use; default 443, and 80 with WEBHOOK_ALLOW_HTTP',
    parse(value, name) {
      if (!value) return null;
      return listItems(value).map((p) => {
        if (!/^[0-9]{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535) {
          throw new ConfigError(name, `lists "${p}", which is not a port`);
        }
        return Number(p);
      });
    },
  }),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: integer({
    default: 16,
    min: 1,
    max: 64,
    description: 'attempts in flight at once per subscription',
  }),
  // At most what one GET /v1/webhook-subscriptions answer lists (WHKLST, one page).
  WEBHOOK_MAX_SUBSCRIPTIONS: integer({
    default: 25,
    min: 1,
    max: 100,
    description: 'subscriptions one owner may keep, disabled ones included; one more is refused (422)',
  }),
  WEBHOOK_SECRET_OVERLAP: parsed({
    default: '24h',
    allowed: 'a duration (s, m, h, d), 0s to 30d',
    description: 'how long the secret a rotation replaces still signs deliveries, beside the new one',
    parse(value, name) {
      const match = /^\s*([0-9]{1,7})(s|m|h|d)\s*$/.exec(value);
      const ms = match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : NaN;
      if (!(ms <= 30 * DURATION_UNITS['d']!)) throw new ConfigError(name, 'must be a duration like 24h, up to 30d');
      return ms / 1000;
    },
  }),
  WEBHOOK_SECRET_KEY: parsed({
    allowed: 'kid:base64key entries, comma-separated (32-byte keys)',
    description:
      'keys that encrypt signing secrets at rest, the first seals new ones; default a development key made in DATA_DIR',
    parse: (value, name) => (value ? parseKeyring(value, name) : null),
  }),
  WEBHOOK_SECRET_KEY_FILE: parsed({
    allowed: 'path',
    description: 'a file holding the WEBHOOK_SECRET_KEY entries instead (one per line)',
    parse: (value, name) => (value ? readKeyringFile(value, name) : null),
  }),
});

/** The event relay (src/events/relay.ts). */
export interface EventsSettings {
  /** RabbitMQ (BROKER_URL, amqp://user:password@host:5672); null: no broker, the events feed only. */
  brokerUrl: string | null;
  /** How often an idle relay looks for new events (EVENTS_POLL_MS); a change made through this instance wakes it. */
  pollMs: number;
  /** How long a relay's lease lasts without a turn (EVENTS_LEASE_SECONDS); then a standby's relay takes over. */
  leaseSeconds: number;
}

/** Webhook delivery (src/events/webhooks.ts). */
export interface WebhookSettings {
  /**
   * Waits after each failed attempt, ms (WEBHOOK_RETRY_SCHEDULE, e.g. `5s,5m,30m`): after the last one the
   * delivery has failed. Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts over about 28 hours).
   */
  retryScheduleMs: readonly number[];
  /**
   * A subscription whose deliveries have failed for this long with no success between is disabled and its pending
   * deliveries cancelled (WEBHOOK_DISABLE_AFTER, default 5 days; 0: never).
   */
  disableAfterMs: number;
  /** Plain http endpoints allowed (WEBHOOK_ALLOW_HTTP; development). */
  allowHttp: boolean;
  /** Internal ranges endpoints may be in after all (WEBHOOK_ALLOWED_CIDRS, e.g. 127.0.0.1/32; development). */
  allowedCidrs: readonly string[];
  /** Ports endpoints may use (WEBHOOK_ALLOWED_PORTS, comma-separated; default 443, and 80 with http). */
  allowedPorts: readonly number[] | null;
  /** Attempts in flight at once per subscription (WEBHOOK_CONCURRENCY_PER_ENDPOINT): a slow one stalls no other. */
  concurrencyPerEndpoint: number;
  /**
   * Subscriptions one owner may keep, disabled ones included (WEBHOOK_MAX_SUBSCRIPTIONS): it travels in each
   * create record, and the back-end counts in the transaction that inserts.
   */
  maxSubscriptions: number;
  /**
   * How long, in seconds, the secret a rotation replaces still signs beside the new one (WEBHOOK_SECRET_OVERLAP,
   * default 24 h): it travels in each rotation record, and a caller may ask for less.
   */
  secretOverlapSeconds: number;
  /**
   * The keys that seal signing secrets at rest (WEBHOOK_SECRET_KEY or WEBHOOK_SECRET_KEY_FILE), first the one that
   * seals; null: the development key generated under DATA_DIR (src/events/webhook-secrets.ts).
   */
  secretKeyring: WebhookKeyring | null;
  /** No key configured: secrets are sealed with the generated development key, which production refuses. */
  developmentSecretKey: boolean;
}

export function loadEventsSettings(env: Env): EventsSettings {
  return {
    brokerUrl: read(env, EVENTS_SETTINGS, 'BROKER_URL'),
    pollMs: read(env, EVENTS_SETTINGS, 'EVENTS_POLL_MS'),
    leaseSeconds: read(env, EVENTS_SETTINGS, 'EVENTS_LEASE_SECONDS'),
  };
}

export function loadWebhookSettings(env: Env): WebhookSettings {
  if (rawValue(env, 'WEBHOOK_SECRET_KEY') && rawValue(env, 'WEBHOOK_SECRET_KEY_FILE')) {
    throw new ConfigError('WEBHOOK_SECRET_KEY_FILE', 'and WEBHOOK_SECRET_KEY are both set: give the keys one way');
  }
  const secretKeyring =
    read(env, WEBHOOK_SETTINGS, 'WEBHOOK_SECRET_KEY') ?? read(env, WEBHOOK_SETTINGS, 'WEBHOOK_SECRET_KEY_FILE');
  return {
    retryScheduleMs: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_RETRY_SCHEDULE'),
    disableAfterMs: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_DISABLE_AFTER'),
    allowHttp: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_ALLOW_HTTP'),
    allowedCidrs: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_ALLOWED_CIDRS'),
    allowedPorts: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_ALLOWED_PORTS'),
    concurrencyPerEndpoint: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT'),
    maxSubscriptions: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_MAX_SUBSCRIPTIONS'),
    secretOverlapSeconds: read(env, WEBHOOK_SETTINGS, 'WEBHOOK_SECRET_OVERLAP'),
    secretKeyring,
    developmentSecretKey: secretKeyring === null,
  };
}

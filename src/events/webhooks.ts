/**
 * The webhook dispatcher: claims due deliveries from the back-end (WHDDUE), POSTs each event to its endpoint
 * signed as Standard Webhooks do, and records every attempt in the store so a restart loses or hastens none.
 */
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import { roleOfCode, type Role } from '../auth/roles.ts';
import type { MessageCatalog } from '../backend/copybooks/index.ts';
import { segmentReader } from '../backend/message.ts';
import { createGuardedClient, OutboundRefusedError } from '../outbound/url-guard.ts';
import { startBackgroundLoop } from '../background-loop.ts';
import { readEventItem, toCloudEvent } from '../resources/event.ts';
import type { BackendClient } from '../client/backend-client.ts';
import { systemCaller } from '../client/system-caller.ts';
import { webhookPolicy } from './webhook-policy.ts';
import { isPlainWebhookSecret, WebhookSecretError, type WebhookKeyring } from './webhook-secrets.ts';
import type { WebhookSettings } from './settings.ts';

const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_IN_FLIGHT = 64;
/**
 * Long enough for an attempt and its result to be recorded; a dispatcher that died leaves its claims due again after
 * it.
 */
const CLAIM_LEASE_SECONDS = 60;
/** The most a Retry-After is honoured: one day. */
const RETRY_AFTER_CAP_MS = 86_400_000;
/** How much of an answer's body is kept with the attempt (WHDR-RESPONSE-BODY); the rest is never read. */
const BODY_PREFIX_BYTES = 1024;

interface Task {
  deliveryId: string;
  subscriptionId: string;
  url: string;
  /** As stored: sealed, opened only to sign (src/events/webhook-secrets.ts). */
  sealedSecret: string;
  /** The secret before a rotation while its overlap lasts (sealed too), else empty: it signs beside the new one. */
  sealedPreviousSecret: string;
  role: Role;
  /** Attempts made before this one. */
  attempts: number;
  body: string;
  eventId: string;
  eventType: string;
}

interface Outcome {
  deliveryId: string;
  outcome: 'S' | 'R' | 'F' | 'G';
  status: number;
  error: string;
  nextAttemptAt: string;
}

/** An attempt's outcome and what it is stored with: when it started, how long it took, what the endpoint said. */
interface Result extends Outcome {
  startedAt: string;
  durationMs: number;
  /** The first BODY_PREFIX_BYTES of the answer's body as record text; '' when none came. */
  responseBody: string;
}

export interface WebhookDispatcherOptions {
  backend: BackendClient;
  catalog: MessageCatalog;
  log: Logger;
  webhooks: WebhookSettings;
  /** Opens the stored signing secrets. */
  secrets: WebhookKeyring;
  pollMs: number;
}

export interface WebhookDispatcher {
  /** Deliveries may be due now (the relay made some). */
  kick(): void;
  close(): Promise<void>;
}

/**
 * Bytes of an answer's body as text the records hold (the code page cp1140: Latin-1 and €) and a reader can show:
 * a control character (other than tab and line breaks) or any other character becomes "?".
 */
function safeBodyText(bytes: Uint8Array): string {
  let out = '';
  for (const ch of new TextDecoder('utf-8').decode(bytes)) {
    const cp = ch.codePointAt(0)!;
    const kept =
      ch === '\t' ||
      ch === '\n' ||
      ch === '\r' ||
      (cp >= 0x20 && cp <= 0x7e) ||
      (cp >= 0xa0 && cp <= 0xff && cp !== 0xa4) ||
      cp === 0x20ac;
    out += kept ? ch : '?';
  }
  return out;
}

/** The first BODY_PREFIX_BYTES of a body, then the stream is cancelled: a huge or endless answer costs no more. */
async function bodyPrefix(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < BODY_PREFIX_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // the body broke off (a reset, the time-out): what came is kept
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return safeBodyText(Buffer.concat(chunks).subarray(0, BODY_PREFIX_BYTES));
}

/** A Retry-After header (seconds or an HTTP date) → ms from now, or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^[0-9]{1,9}$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** What an attempt's error says, at most (WHDR-ERROR). */
const ERROR_LENGTH = 120;

/** The error of an attempt answered with a redirect: not followed, and where the URL should point instead. */
export function redirectNotFollowed(url: string, status: number, location: string | null): string {
  const head = `the endpoint answered ${status} (redirects are not followed; `;
  if (!location) return `${head}it named no Location)`;
  // Printable ASCII only: the record's text is single-byte, and a header is the endpoint's to fill.
  const target = (URL.canParse(location, url) ? new URL(location, url).href : location).replace(/[^\x20-\x7e]/g, '?');
  const room = ERROR_LENGTH - head.length - 'update the URL to )'.length;
  return `${head}update the URL to ${target.length > room ? `${target.slice(0, room - 3)}...` : target})`;
}

export function startWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { backend, catalog, webhooks, secrets } = options;
  const log = options.log.child({ component: 'webhooks' });
  // The guard checks the URL again as each connection opens, since DNS can change after the subscription.
  // Redirects are not followed (as Stripe, Svix and GitHub do): the URL the owner subscribed is the one that gets
  // the signed events, and a 3xx is a failed attempt that names where to point the subscription instead.
  const client = createGuardedClient(webhookPolicy(webhooks), {
    timeoutMs: ATTEMPT_TIMEOUT_MS,
    followRedirects: false,
  });
  const schedule = webhooks.retryScheduleMs;
  // Kicked by every relay turn that positioned events: like the relay's, its turn rides with the next calls.
  const call = systemCaller(backend, 'corebridge-webhooks', true);
  const inFlight = new Set<Promise<void>>();
  /** Results of attempts, recorded with the next turn. */
  const results: Result[] = [];

  /**
   * One WHDDUE: records `done` (first, so finished deliveries free their endpoint's places), then claims up to `max`.
   */
  async function turn(done: readonly Result[], max: number): Promise<Task[]> {
    const out = await call('WHDDUE', {
      whddMaxItems: max,
      whddPerEndpoint: webhooks.concurrencyPerEndpoint,
      whddLeaseSeconds: CLAIM_LEASE_SECONDS,
      whddDisableAfterSecs: Math.ceil(webhooks.disableAfterMs / 1000),
      whdrItemCount: done.length,
      whdrItem: done.map((r) => ({
        whdrDeliveryId: r.deliveryId,
        whdrOutcome: r.outcome,
        whdrStatus: r.status,
        whdrError: r.error.slice(0, 120),
        whdrNextAttemptAt: r.nextAttemptAt,
        whdrStartedAt: r.startedAt,
        whdrDurationMs: Math.min(r.durationMs, 9_999_999),
        whdrResponseBody: r.responseBody,
      })),
    });
    const read = segmentReader(catalog, out.segments);
    return Array.from({ length: out.body.seglItemCount }, () => {
      const t = read('WHDTASK');
      const owner = roleOfCode(t.whdtOwnerRole);
      const role: Role = owner === undefined || owner === 'system' ? 'customer' : owner;
      const event = toCloudEvent(readEventItem(read), role);
      return {
        deliveryId: t.whdtDeliveryId,
        subscriptionId: t.whdtSubscriptionId,
        url: t.whdtUrl,
        sealedSecret: t.whdtSecret,
        sealedPreviousSecret: t.whdtPreviousSecret,
        role,
        attempts: t.whdtAttempts,
        body: JSON.stringify(event),
        eventId: event.id,
        eventType: event.type,
      };
    });
  }

  function nextTry(task: Task, status: number, error: string, retryAfter: number | null): Outcome {
    const waitMs = schedule[task.attempts];
    if (waitMs === undefined) return { deliveryId: task.deliveryId, outcome: 'F', status, error, nextAttemptAt: '' };
    // Jittered around the schedule, so endpoints that failed together are not tried again together. A Retry-After
    // may lengthen the wait, never shorten it: a receiver answering "1" would otherwise spend every attempt at once.
    const scheduled = waitMs * (0.8 + Math.random() * 0.4);
    const wait = retryAfter !== null ? Math.max(Math.min(retryAfter, RETRY_AFTER_CAP_MS), scheduled) : scheduled;
    return {
      deliveryId: task.deliveryId,
      outcome: 'R',
      status,
      error,
      nextAttemptAt: new Date(Date.now() + wait).toISOString(),
    };
  }

  /** Subscriptions whose plain secret (from a store before secrets were sealed) was reported already. */
  const reportedPlain = new Set<string>();

  /** A secret to sign with, opened here and kept no longer than the signing. */
  function signingSecret(task: Task, stored: string): string {
    if (!isPlainWebhookSecret(stored)) return secrets.open(stored);
    if (!reportedPlain.has(task.subscriptionId)) {
      reportedPlain.add(task.subscriptionId);
      log.warn(
        { subscriptionId: task.subscriptionId },
        'a webhook signing secret is stored unencrypted: run `corebridge webhooks reencrypt` to seal it',
      );
    }
    return stored;
  }

  /**
   * `v1,<sig>`, or during a rotation's overlap `v1,<new> v1,<old>` (Standard Webhooks' list of signatures): a
   * receiver that still has the old secret verifies as well as one that has the new.
   */
  function sign(task: Task, timestamp: Date): string {
    const stored = [task.sealedSecret, task.sealedPreviousSecret].filter(Boolean);
    return stored.map((s) => new Webhook(signingSecret(task, s)).sign(task.eventId, timestamp, task.body)).join(' ');
  }

  /** One attempt, timed from its signing to the end of the body prefix (or the failure). */
  async function attempt(task: Task): Promise<Result> {
    const startedAt = new Date();
    const started = performance.now();
    const outcome = await deliver(task, startedAt);
    return {
      responseBody: '',
      ...outcome,
      startedAt: startedAt.toISOString(),
      durationMs: Math.max(0, Math.round(performance.now() - started)),
    };
  }

  async function deliver(task: Task, timestamp: Date): Promise<Outcome & { responseBody?: string }> {
    let signature: string;
    try {
      signature = sign(task, timestamp);
    } catch (error) {
      if (!(error instanceof WebhookSecretError)) throw error;
      // Nothing is sent unsigned: the attempt fails with the reason (retried, as the keyring may be fixed meanwhile).
      log.error(
        { deliveryId: task.deliveryId, subscriptionId: task.subscriptionId, reason: error.message },
        'webhook secret cannot be opened: check WEBHOOK_SECRET_KEY',
      );
      return nextTry(task, 0, `cannot sign: ${error.message}`, null);
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Corebridge-Webhooks/1',
      'webhook-id': task.eventId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    try {
      const response = await client.request(task.url, { method: 'POST', headers, body: task.body });
      const responseBody = await bodyPrefix(response.body);
      if (response.status >= 200 && response.status < 300)
        return {
          deliveryId: task.deliveryId,
          outcome: 'S',
          status: response.status,
          error: '',
          nextAttemptAt: '',
          responseBody,
        };
      if (response.status === 410)
        return {
          deliveryId: task.deliveryId,
          outcome: 'G',
          status: 410,
          error: 'the endpoint answered 410 Gone',
          nextAttemptAt: '',
          responseBody,
        };
      if (response.status >= 300 && response.status < 400)
        return {
          ...nextTry(
            task,
            response.status,
            redirectNotFollowed(task.url, response.status, response.headers.get('location')),
            null,
          ),
          responseBody,
        };
      return {
        ...nextTry(
          task,
          response.status,
          `the endpoint answered ${response.status}`,
          retryAfterMs(response.headers.get('retry-after')),
        ),
        responseBody,
      };
    } catch (error) {
      const reason =
        error instanceof OutboundRefusedError
          ? `refused by the outbound guard (${error.reason})`
          : (error as Error).name === 'TimeoutError'
            ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
            : `could not connect: ${String((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message)}`;
      return nextTry(task, 0, reason, null);
    }
  }

  function run(task: Task): void {
    const done = attempt(task).then((result) => {
      if (result.outcome !== 'S') {
        log.info(
          {
            deliveryId: task.deliveryId,
            subscriptionId: task.subscriptionId,
            eventId: task.eventId,
            outcome: result.outcome,
            status: result.status || undefined,
            error: result.error,
            nextAttemptAt: result.nextAttemptAt || undefined,
          },
          'webhook attempt failed',
        );
      }
      results.push(result);
    });
    inFlight.add(done);
    void done.finally(() => {
      inFlight.delete(done);
      loop.kick();
    });
  }

  /** One turn: the results so far, and as many new claims as there is room for. */
  async function step(max: number): Promise<number> {
    const done = results.splice(0, 100);
    try {
      const tasks = await turn(done, max);
      for (const task of tasks) run(task);
      return tasks.length;
    } catch (error) {
      // Not known to be recorded: sent again with the next turn (recording an attempt twice only counts it twice).
      results.unshift(...done);
      throw error;
    }
  }

  // Fewer claimed than there was room for: nothing else is due now (or its endpoints are busy) until an attempt
  // ends (it kicks the loop), the relay makes deliveries (a kick), or the poll.
  const loop = startBackgroundLoop({
    log,
    what: 'webhook dispatcher turn',
    pollMs: options.pollMs,
    async turn() {
      const room = Math.max(0, MAX_IN_FLIGHT - inFlight.size);
      const claimed = await step(room);
      return (room > 0 && claimed === room) || results.length > 0;
    },
  });
  return {
    kick: () => loop.kick(),
    async close() {
      await loop.close();
      await Promise.allSettled([...inFlight]);
      // what finished is recorded; a delivery whose result is lost is tried again once its claim runs out
      while (results.length > 0) await step(0).catch(() => results.splice(0));
      await client.close();
    },
  };
}

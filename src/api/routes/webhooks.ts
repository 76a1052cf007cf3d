/**
 * /v1/webhook-subscriptions — WHKCRT/WHKINQ/WHKLST/WHKDEL, the deliveries of one (WHDLST, WHDRTY), and a
 * window of its events delivered again (WHKRCV).
 * A subscription belongs to the agent or partner that made it; its URL passes the outbound-URL guard here and
 * again when each delivery connects (src/events/webhooks.ts). The signing secret is made and sealed here: the
 * back-end stores only the sealed form, and the plain one is shown once, in the 201.
 */
import { Type, type Static } from 'typebox';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { segmentReader } from '../../backend/message.ts';
import { webhookPolicy } from '../../events/webhook-policy.ts';
import type { WebhookSettings } from '../../events/settings.ts';
import { newWebhookSecret, type WebhookKeyring } from '../../events/webhook-secrets.ts';
import { checkUrlResolved, type CompiledPolicy } from '../../outbound/url-guard.ts';
import { ApiError } from '../../errors.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { problem, ProblemSchema } from '../schemas/problem.ts';
import { recordString } from '../../resources/schemas/record-field.ts';
import { pageLimit, pageOf, pageSizeOf } from '../../resources/schemas/page.ts';
import { Timestamp } from '../../resources/schemas/common.ts';
import { EventType } from '../../resources/event.ts';
import {
  CreatedSubscription,
  Delivery,
  DeliveryId,
  Subscription,
  SubscriptionId,
  deliveryFromRecord,
  subscriptionFromRecord,
} from '../../resources/webhook-subscription.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

export const SubscriptionRequest = Type.Object(
  {
    url: recordString('WHKCRT', 'whkcUrl', {
      format: 'uri',
      minLength: 1,
      description: 'Where to POST the events: https, a public address',
    }),
    eventTypes: Type.Array(EventType, { minItems: 1, maxItems: 10, uniqueItems: true }),
    description: Type.Optional(recordString('WHKCRT', 'whkcDescription')),
  },
  {
    additionalProperties: false,
    examples: [
      {
        url: 'https://hooks.example.com/corebridge',
        eventTypes: ['OrderConfirmed', 'OrderCancelled'],
        description: 'Order notifications for the shop',
      },
    ],
  },
);
type SubscriptionRequest = Static<typeof SubscriptionRequest>;

const SubscriptionParams = Type.Object({ subscriptionId: SubscriptionId }, { additionalProperties: false });
const DeliveryParams = Type.Object(
  { subscriptionId: SubscriptionId, deliveryId: DeliveryId },
  { additionalProperties: false },
);
const DeliveryQuery = Type.Object(
  {
    limit: pageLimit('WHDLST', 'whdlMaxItems'),
    cursor: CursorParam('Opaque cursor from `nextCursor`'),
  },
  { additionalProperties: false },
);

const SubscriptionQuery = Type.Object(
  {
    limit: pageLimit('WHKLST', 'whklMaxItems'),
    cursor: CursorParam('Opaque cursor from `nextCursor`'),
  },
  { additionalProperties: false },
);

const RecoverRequest = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'Deliver again the events raised from this time on' }),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'And before this time (default: now); after `since`' }),
    ),
  },
  { additionalProperties: false, examples: [{ since: '2026-11-24T08:00:00Z' }] },
);
type RecoverRequest = Static<typeof RecoverRequest>;

const Recovered = Type.Object({
  subscriptionId: SubscriptionId,
  since: Timestamp,
  until: Timestamp,
  queued: Type.Integer({ minimum: 0, description: 'Events due now, in the order they were raised' }),
  requeued: Type.Integer({
    minimum: 0,
    description: 'Of those, events that had a delivery already (delivered, failed or pending): same webhook-id',
  }),
  cut: Type.Boolean({ description: 'The window held more than one call queues: recover again from `continueFrom`' }),
  continueFrom: Type.Union([Timestamp, Type.Null()], {
    description: 'The `since` of the next call when `cut` (with the same `until`); null otherwise',
  }),
});

/** A 409 for a subscription that exists: the problem, and the existing one's id as a member of its own. */
const SubscriptionExists = {
  description: 'The owner has a subscription with this URL and these event types (reason SUBSCRIPTION_EXISTS)',
  content: {
    'application/problem+json': {
      schema: Type.Object({
        ...ProblemSchema.properties,
        subscriptionId: Type.Optional({ ...SubscriptionId, description: 'The existing subscription' }),
      }),
    },
  },
};

const cursor = cursorCodec('d', 'cursor');
const subscriptionCursor = cursorCodec('s', 'cursor');

/**
 * The URL as the guard sees it before anything is stored: https, no credentials, a public address (or an allowed
 * range).
 */
async function assertEndpointAllowed(url: string, policy: CompiledPolicy): Promise<void> {
  const check = await checkUrlResolved(url, policy);
  if (check.allowed) return;
  throw new ApiError(
    'VALIDATION_FAILED',
    `url is refused (${check.reason}): ${check.detail.replace(/^outbound call refused \([a-z_]+\): /, '')}`,
    {
      violations: [{ pointer: '/url', in: 'body', detail: `is refused: ${check.reason}` }],
    },
  );
}

/** An RFC 3339 time as the back-end compares them: UTC, in milliseconds (`2026-11-24T08:00:00.000Z`). */
function utc(value: string, pointer: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || ms < 0 || ms > Date.parse('9999-12-31T23:59:59.999Z')) {
    throw new ApiError('VALIDATION_FAILED', `${pointer.slice(1)} is not a time this API can keep`, {
      violations: [{ pointer, in: 'body', detail: 'must be a time from 1970 to 9999' }],
    });
  }
  return new Date(ms).toISOString();
}

/** The back-end names the subscription that exists in its refusal; the answer gives it as a member of its own too. */
function withExistingId(error: unknown): never {
  const id =
    error instanceof ApiError && error.reason === 'SUBSCRIPTION_EXISTS' && /WHS-[0-9A-F]{16}/.exec(error.message);
  if (!id) throw error;
  throw new ApiError(error.code, error.message, { reason: error.reason, extensions: { subscriptionId: id[0] } });
}

export function webhookRoutes(
  app: Api,
  {
    backend,
    catalog,
    webhooks,
    secrets,
  }: RouteDeps & { catalog: MessageCatalog; webhooks: WebhookSettings; secrets: WebhookKeyring },
): void {
  const policy = webhookPolicy(webhooks);
  const tags = ['Webhook subscriptions'];

  app.route({
    ...fromTable('createWebhookSubscription'),
    schema: {
      ...protectedErrors(
        tags,
        'createWebhookSubscription',
        'Subscribe a URL to events (the answer shows the signing secret, once)',
      ),
      body: SubscriptionRequest,
      response: {
        201: { description: 'Subscribed', ...CreatedSubscription },
        ...STANDARD_ERRORS,
        409: SubscriptionExists,
        422: problem('The owner keeps as many subscriptions as allowed (reason SUBSCRIPTION_LIMIT_REACHED)'),
      },
    },
    handler: async (req, reply) => {
      const body: SubscriptionRequest = req.body;
      await assertEndpointAllowed(body.url, policy);
      const secret = newWebhookSecret();
      const out = await backend
        .call(
          'WHKCRT',
          req,
          {
            whkcUrl: body.url,
            whkcDescription: body.description ?? '',
            whkcSecret: secrets.seal(secret),
            whkcEventTypeCount: body.eventTypes.length,
            whkcEventTypes: body.eventTypes.map((t) => ({ whkcEventType: t })),
            whkcMaxSubscriptions: webhooks.maxSubscriptions,
          },
          { whkcUrl: '/url', whkcDescription: '/description' },
        )
        .catch(withExistingId);
      const created = { ...subscriptionFromRecord(out.body), secret };
      return reply.code(201).header('location', `/v1/webhook-subscriptions/${created.subscriptionId}`).send(created);
    },
  });

  app.route({
    ...fromTable('listWebhookSubscriptions'),
    schema: {
      ...protectedErrors(tags, 'listWebhookSubscriptions', "The caller's subscriptions, oldest first"),
      querystring: SubscriptionQuery,
      response: {
        200: { description: 'Success', ...pageOf(Subscription) },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const out = await backend.call('WHKLST', req, {
        whklMaxItems: pageSizeOf(req.query.limit),
        whklAfterSeq: req.query.cursor ? subscriptionCursor.decode(req.query.cursor) : 0,
      });
      const read = segmentReader(catalog, out.segments);
      const next = out.body.seglNextSeq;
      return {
        items: Array.from({ length: out.body.seglItemCount }, () => subscriptionFromRecord(read('WHKREC'))),
        nextCursor: next > 0 ? subscriptionCursor.encode(next) : null,
      };
    },
  });

  app.route({
    ...fromTable('getWebhookSubscription'),
    schema: {
      ...protectedErrors(tags, 'getWebhookSubscription', 'Read a subscription (never its secret)'),
      params: SubscriptionParams,
      response: { 200: { description: 'Success', ...Subscription }, ...STANDARD_ERRORS },
    },
    handler: async (req) =>
      subscriptionFromRecord(
        (await backend.call('WHKINQ', req, { whkkSubscriptionId: req.params.subscriptionId, whkkDeliveryId: '' })).body,
      ),
  });

  app.route({
    ...fromTable('deleteWebhookSubscription'),
    schema: {
      ...protectedErrors(tags, 'deleteWebhookSubscription', 'Delete a subscription and its deliveries'),
      params: SubscriptionParams,
      response: { 204: { description: 'Deleted', type: 'null' }, ...STANDARD_ERRORS },
    },
    handler: async (req, reply) => {
      await backend.call('WHKDEL', req, { whkkSubscriptionId: req.params.subscriptionId, whkkDeliveryId: '' });
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...fromTable('listWebhookDeliveries'),
    schema: {
      ...protectedErrors(tags, 'listWebhookDeliveries', 'The deliveries of a subscription, newest first'),
      params: SubscriptionParams,
      querystring: DeliveryQuery,
      response: {
        200: {
          description: 'Success',
          ...Type.Object({ items: Type.Array(Delivery), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const out = await backend.call('WHDLST', req, {
        whdlSubscriptionId: req.params.subscriptionId,
        whdlMaxItems: pageSizeOf(req.query.limit),
        whdlBeforeSeq: req.query.cursor ? cursor.decode(req.query.cursor) : 0,
      });
      const read = segmentReader(catalog, out.segments);
      const next = out.body.seglNextSeq;
      return {
        items: Array.from({ length: out.body.seglItemCount }, () => deliveryFromRecord(read('WHDREC'))),
        nextCursor: next > 0 ? cursor.encode(next) : null,
      };
    },
  });

  app.route({
    ...fromTable('retryWebhookDelivery'),
    schema: {
      ...protectedErrors(
        tags,
        'retryWebhookDelivery',
        'Deliver again now (a failed delivery too), with the same webhook-id',
      ),
      params: DeliveryParams,
      response: {
        202: { description: 'Due now', ...Delivery },
        ...STANDARD_ERRORS,
        409: problem('The subscription is disabled'),
      },
    },
    handler: async (req, reply) => {
      const out = await backend.call('WHDRTY', req, {
        whkkSubscriptionId: req.params.subscriptionId,
        whkkDeliveryId: req.params.deliveryId,
      });
      return reply.code(202).send(deliveryFromRecord(out.body));
    },
  });
  app.route({
    ...fromTable('recoverWebhookSubscription'),
    schema: {
      ...protectedErrors(
        tags,
        'recoverWebhookSubscription',
        'Deliver again the events of a time window (after an outage, or raised while disabled)',
      ),
      params: SubscriptionParams,
      body: RecoverRequest,
      response: {
        202: { description: 'Queued', ...Recovered },
        ...STANDARD_ERRORS,
        409: problem('The subscription is disabled (reason SUBSCRIPTION_DISABLED): enable it first'),
      },
    },
    handler: async (req, reply) => {
      const body: RecoverRequest = req.body;
      const since = utc(body.since, '/since');
      const until = body.until === undefined ? '' : utc(body.until, '/until');
      if (until && !(since < until)) {
        throw new ApiError('VALIDATION_FAILED', 'since must be before until', {
          violations: [{ pointer: '/since', in: 'body', detail: 'must be before until' }],
        });
      }
      const out = await backend.call('WHKRCV', req, {
        whkrSubscriptionId: req.params.subscriptionId,
        whkrSince: since,
        whkrUntil: until,
      });
      const r = out.body;
      return reply.code(202).send({
        subscriptionId: r.whkoSubscriptionId,
        since: r.whkoSince,
        until: r.whkoUntil,
        queued: r.whkoQueued,
        requeued: r.whkoRequeued,
        cut: r.whkoCut === 'Y',
        continueFrom: r.whkoContinueFrom || null,
      });
    },
  });
}

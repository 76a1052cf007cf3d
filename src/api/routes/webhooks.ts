/**
 * /v1/webhook-subscriptions — WHKCRT/WHKINQ/WHKLST/WHKUPD/WHKDEL, WHKROT (a new secret), the deliveries of one
 * (WHDLST, WHDINQ, WHDRTY) and their attempts (WHALST), and a window of its events delivered again (WHKRCV).
 * A subscription belongs to the agent or partner that made it; its URL passes the outbound-URL guard here and
 * again when each delivery connects (src/events/webhooks.ts). The signing secret is made and sealed here: the
 * back-end stores only the sealed form, and the plain one is shown once, in the 201.
 */
import { Type, type Static } from 'typebox';
import type { MessageCatalog, WebhookUpdateRequest } from '../../backend/copybooks/index.ts';
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
import { EventType, SubscribableEventType } from '../../resources/event.ts';
import {
  CreatedSubscription,
  Delivery,
  DeliveryAttempt,
  DeliveryId,
  Subscription,
  SubscriptionId,
  deliveryAttemptFromRecord,
  deliveryFromRecord,
  subscriptionFromRecord,
} from '../../resources/webhook-subscription.ts';
import { RotatedSecret, rotatedSecretFromRecord } from '../../resources/webhook-secret-rotation.ts';
import { mergePatchRoutes, patchAction } from '../merge-patch.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

export const SubscriptionRequest = Type.Object(
  {
    url: recordString('WHKCRT', 'whkcUrl', {
      format: 'uri',
      minLength: 1,
      description: 'Where to POST the events: https, a public address',
    }),
    eventTypes: Type.Array(SubscribableEventType, { minItems: 1, maxItems: 10, uniqueItems: true }),
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

/** RFC 7396 merge patch: absent members stay, a null description is removed; at least one member. */
export const SubscriptionPatch = Type.Object(
  {
    url: Type.Optional(
      recordString('WHKUPD', 'whkuUrl', {
        format: 'uri',
        minLength: 1,
        description: 'A new endpoint: it passes the same outbound guard as at creation',
      }),
    ),
    eventTypes: Type.Optional(Type.Array(SubscribableEventType, { minItems: 1, maxItems: 10, uniqueItems: true })),
    description: Type.Optional(Type.Union([recordString('WHKUPD', 'whkuDescription'), Type.Null()])),
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
        description:
          'disabled: nothing is delivered and pending deliveries are cancelled; active: events from now on are',
      }),
    ),
  },
  // Paused, e.g. while the endpoint is maintained.
  { additionalProperties: false, minProperties: 1, examples: [{ status: 'disabled' }] },
);
type SubscriptionPatch = Static<typeof SubscriptionPatch>;

function patchRecord(subscriptionId: string, p: SubscriptionPatch): WebhookUpdateRequest {
  const [whkuUrlAction, whkuUrl] = patchAction(p.url);
  const [whkuDescriptionAction, whkuDescription] = patchAction(p.description);
  const [whkuStatusAction, whkuStatus] = patchAction(p.status);
  return {
    whkuSubscriptionId: subscriptionId,
    whkuUrlAction,
    whkuUrl,
    whkuDescriptionAction,
    whkuDescription,
    whkuStatusAction,
    whkuStatus,
    whkuEventTypesAction: p.eventTypes ? 'S' : 'K',
    whkuEventTypeCount: p.eventTypes?.length ?? 0,
    whkuEventTypes: (p.eventTypes ?? []).map((t) => ({ whkuEventType: t })),
  };
}

const SubscriptionParams = Type.Object({ subscriptionId: SubscriptionId }, { additionalProperties: false });
const DeliveryParams = Type.Object(
  { subscriptionId: SubscriptionId, deliveryId: DeliveryId },
  { additionalProperties: false },
);
const DeliveryQuery = Type.Object(
  {
    limit: pageLimit('WHDLST', 'whdlMaxItems'),
    cursor: CursorParam('Opaque cursor from `nextCursor` (it goes on under other filters too)'),
    state: Type.Optional({ ...Delivery.properties.state, description: 'Only deliveries in this state' }),
    eventType: Type.Optional({ ...EventType, description: 'Only deliveries of this event type' }),
  },
  { additionalProperties: false },
);
const AttemptQuery = Type.Object(
  {
    limit: pageLimit('WHALST', 'whalMaxItems'),
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

const SAME_AS = 'with this URL and these event types (reason SUBSCRIPTION_EXISTS)';

/** A 409 for a subscription that exists: the problem, and the existing one's id as a member of its own. */
const SubscriptionExists = {
  description: `The owner has a subscription ${SAME_AS}`,
  content: {
    'application/problem+json': {
      schema: Type.Object({
        ...ProblemSchema.properties,
        subscriptionId: Type.Optional({ ...SubscriptionId, description: 'The existing subscription' }),
      }),
    },
  },
};

/** Deliveries' and attempts' positions (each list's own seq). */
const cursor = cursorCodec('d', 'cursor');
const subscriptionCursor = cursorCodec('s', 'cursor');
const attemptCursor = cursorCodec('t', 'cursor');

const RotateRequest = Type.Object(
  {
    expireCurrentIn: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2_592_000,
        description:
          'Seconds the current secret still signs beside the new one: at most the overlap the service keeps ' +
          '(WEBHOOK_SECRET_OVERLAP, default 24 h, which applies when this is left out); 0 stops it at once',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ expireCurrentIn: 3600 }] },
);
type RotateRequest = Static<typeof RotateRequest>;

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

/**
 * A refused subscription (create or change) in the client's words. The back-end names in its text the subscription
 * that exists, given as a member of its own too, and the event types the owner never receives, each placed at its
 * item of `eventTypes`.
 */
function refusedSubscription(eventTypes: readonly string[] | undefined) {
  return (error: unknown): never => {
    if (!(error instanceof ApiError)) throw error;
    const id = error.reason === 'SUBSCRIPTION_EXISTS' && /WHS-[0-9A-F]{16}/.exec(error.message);
    if (id)
      throw new ApiError(error.code, error.message, { reason: error.reason, extensions: { subscriptionId: id[0] } });
    const never = error.reason === 'EVENT_TYPES_NOT_RECEIVED' && /never receives (.+)$/.exec(error.message);
    if (!never || !eventTypes) throw error;
    const named = new Set(never[1]!.split(', '));
    const violations = eventTypes.flatMap((type, i) =>
      named.has(type)
        ? [{ pointer: `/eventTypes/${i}`, in: 'body' as const, detail: 'is an event type this owner never receives' }]
        : [],
    );
    throw violations.length > 0 ? new ApiError(error.code, error.message, { reason: error.reason, violations }) : error;
  };
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
        .catch(refusedSubscription(body.eventTypes));
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

  mergePatchRoutes(app, (scope) => {
    scope.route({
      ...fromTable('updateWebhookSubscription'),
      schema: {
        ...protectedErrors(
          tags,
          'updateWebhookSubscription',
          'Change a subscription with a JSON merge patch (RFC 7396): its URL, event types, description, or pause it',
        ),
        params: SubscriptionParams,
        body: SubscriptionPatch,
        // RFC 7396's media type first; plain JSON is taken too, with the same merge semantics.
        consumes: ['application/merge-patch+json', 'application/json'],
        response: {
          200: { description: 'Success', ...Subscription },
          ...STANDARD_ERRORS,
          409: { ...SubscriptionExists, description: `Another subscription of the owner ${SAME_AS}` },
        },
      },
      handler: async (req) => {
        if (req.body.url !== undefined) await assertEndpointAllowed(req.body.url, policy);
        const out = await backend
          .call('WHKUPD', req, patchRecord(req.params.subscriptionId, req.body), {
            whkuUrl: '/url',
            whkuDescription: '/description',
          })
          .catch(refusedSubscription(req.body.eventTypes));
        return subscriptionFromRecord(out.body);
      },
    });
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
    ...fromTable('rotateWebhookSecret'),
    schema: {
      ...protectedErrors(
        tags,
        'rotateWebhookSecret',
        'Give a subscription a new signing secret (shown once); the old one still signs until the overlap ends',
      ),
      params: SubscriptionParams,
      body: RotateRequest,
      response: { 200: { description: 'Rotated', ...RotatedSecret }, ...STANDARD_ERRORS },
    },
    // No body at all asks what `{}` does: the service's overlap.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: async (req) => {
      const body: RotateRequest = req.body;
      const secret = newWebhookSecret();
      const out = await backend.call('WHKROT', req, {
        whkrSubscriptionId: req.params.subscriptionId,
        whkrSecret: secrets.seal(secret),
        whkrOverlapSeconds: webhooks.secretOverlapSeconds,
        whkrExpireGiven: body.expireCurrentIn === undefined ? 'N' : 'Y',
        whkrExpireInSeconds: body.expireCurrentIn ?? 0,
      });
      return rotatedSecretFromRecord(out.body, secret);
    },
  });

  app.route({
    ...fromTable('listWebhookDeliveries'),
    schema: {
      ...protectedErrors(
        tags,
        'listWebhookDeliveries',
        'The deliveries of a subscription, newest first; by state and event type',
      ),
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
        whdlState: req.query.state ?? '',
        whdlEventType: req.query.eventType ?? '',
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
    ...fromTable('getWebhookDelivery'),
    schema: {
      ...protectedErrors(tags, 'getWebhookDelivery', 'Read a delivery: its state, attempts and next attempt'),
      params: DeliveryParams,
      response: { 200: { description: 'Success', ...Delivery }, ...STANDARD_ERRORS },
    },
    handler: async (req) =>
      deliveryFromRecord(
        (
          await backend.call('WHDINQ', req, {
            whkkSubscriptionId: req.params.subscriptionId,
            whkkDeliveryId: req.params.deliveryId,
          })
        ).body,
      ),
  });

  app.route({
    ...fromTable('listWebhookDeliveryAttempts'),
    schema: {
      ...protectedErrors(
        tags,
        'listWebhookDeliveryAttempts',
        "A delivery's attempts, newest first: status or error, the answer's first 1 KB, the next attempt",
      ),
      params: DeliveryParams,
      querystring: AttemptQuery,
      response: { 200: { description: 'Success', ...pageOf(DeliveryAttempt) }, ...STANDARD_ERRORS },
    },
    handler: async (req) => {
      const out = await backend.call('WHALST', req, {
        whalSubscriptionId: req.params.subscriptionId,
        whalDeliveryId: req.params.deliveryId,
        whalMaxItems: pageSizeOf(req.query.limit),
        whalBeforeSeq: req.query.cursor ? attemptCursor.decode(req.query.cursor) : 0,
      });
      const read = segmentReader(catalog, out.segments);
      const next = out.body.seglNextSeq;
      return {
        items: Array.from({ length: out.body.seglItemCount }, () => deliveryAttemptFromRecord(read('WHDAREC'))),
        nextCursor: next > 0 ? attemptCursor.encode(next) : null,
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

  app.route({
    ...fromTable('sendWebhookTestEvent'),
    schema: {
      ...protectedErrors(
        tags,
        'sendWebhookTestEvent',
        'Send a WebhookTest event to this subscription only, whatever types it names',
      ),
      params: SubscriptionParams,
      response: {
        202: { description: 'Due now: follow it in the deliveries', ...Delivery },
        ...STANDARD_ERRORS,
        409: problem('The subscription is disabled'),
      },
    },
    handler: async (req, reply) => {
      const out = await backend.call('WHKTST', req, {
        whkkSubscriptionId: req.params.subscriptionId,
        whkkDeliveryId: '',
      });
      return reply.code(202).send(deliveryFromRecord(out.body));
    },
  });
}

/**
 * /v1/webhook-subscriptions — WHKCRT/WHKINQ/WHKLST/WHKDEL, and the deliveries of one (WHDLST, WHDRTY).
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
import { problem } from '../schemas/problem.ts';
import { recordString } from '../../resources/schemas/record-field.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import { SubscribableEventType } from '../../resources/event.ts';
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

const cursor = cursorCodec('d', 'cursor');

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
        422: problem('The owner keeps as many subscriptions as allowed (reason SUBSCRIPTION_LIMIT_REACHED)'),
      },
    },
    handler: async (req, reply) => {
      const body: SubscriptionRequest = req.body;
      await assertEndpointAllowed(body.url, policy);
      const secret = newWebhookSecret();
      const out = await backend.call(
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
      );
      const created = { ...subscriptionFromRecord(out.body), secret };
      return reply.code(201).header('location', `/v1/webhook-subscriptions/${created.subscriptionId}`).send(created);
    },
  });

  app.route({
    ...fromTable('listWebhookSubscriptions'),
    schema: {
      ...protectedErrors(tags, 'listWebhookSubscriptions', "The caller's subscriptions"),
      response: {
        200: { description: 'Success', ...Type.Object({ items: Type.Array(Subscription) }) },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const out = await backend.call('WHKLST', req, { whklMaxItems: 100 });
      const read = segmentReader(catalog, out.segments);
      return { items: Array.from({ length: out.body.seglItemCount }, () => subscriptionFromRecord(read('WHKREC'))) };
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

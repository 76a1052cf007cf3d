// Generated from openapi/v1.json by `npm run sdk:types` (sdk/scripts/generate-types.ts): do not edit.

/**
 * The operations that declare an Idempotency-Key header (`METHOD /path template`): the client sends a key on
 * these, one per logical call, the same on every retry.
 */
export const IDEMPOTENCY_KEY_OPERATIONS: Readonly<Record<string, 'required' | 'optional'>> = {
  'POST /v1/loan-applications': 'optional',
  'POST /v1/orders': 'optional',
  'POST /v1/payments': 'required',
  'POST /v1/webhook-subscriptions/{subscriptionId}/recover': 'optional',
  'POST /v1/webhook-subscriptions/{subscriptionId}/test': 'optional',
};

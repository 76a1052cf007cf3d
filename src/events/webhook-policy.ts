/** Where webhooks may go: the outbound-URL guard's policy from the WEBHOOK_* settings (https, public addresses). */
import { compilePolicy, type CompiledPolicy } from '../outbound/url-guard.ts';
import type { WebhookSettings } from './settings.ts';

export function webhookPolicy(webhooks: WebhookSettings): CompiledPolicy {
  return compilePolicy({
    allowHttp: webhooks.allowHttp,
    allowedCidrs: webhooks.allowedCidrs,
    ...(webhooks.allowedPorts ? { allowedPorts: webhooks.allowedPorts } : {}),
  });
}

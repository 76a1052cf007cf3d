/** Where webhooks may go: the outbound-URL guard's policy from the WEBHOOK_* settings (https and public addresses by default). */
import type { Config } from '../config.ts';
import { compilePolicy, type CompiledPolicy } from '../outbound/url-guard.ts';

export function webhookPolicy(webhooks: Config['webhooks']): CompiledPolicy {
  return compilePolicy({
    allowHttp: webhooks.allowHttp,
    allowedCidrs: webhooks.allowedCidrs,
    ...(webhooks.allowedPorts ? { allowedPorts: webhooks.allowedPorts } : {}),
  });
}

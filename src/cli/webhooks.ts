/**
 * `corebridge webhooks reencrypt`: seals every stored webhook signing secret with the keyring's first key, the ones
 * a rotation keeps for its overlap and the plain ones of a store from before secrets were sealed too. It runs where
 * the store and the key both are, in one transaction, so no plain secret crosses the transport and the back-end
 * never needs the key; run again, it changes nothing.
 */
import type { BackendStore } from '../backend/store/tx.ts';
import type { WebhookKeyring } from '../events/webhook-secrets.ts';
import { UsageError, type Io } from './usage.ts';

export const WEBHOOKS_USAGE = `usage: corebridge webhooks reencrypt
  seals every webhook signing secret in the back-end's store (SQLite under DATA_DIR, or DATABASE_URL), those a
  rotation keeps for its overlap too, with the first key of WEBHOOK_SECRET_KEY (or WEBHOOK_SECRET_KEY_FILE), plain ones too, in one transaction; the other keys
  must still open what they sealed. Settings from the environment and .env, as for npm start.`;

export interface ReencryptCounts {
  /** Plain secrets sealed. */
  sealed: number;
  /** Secrets moved from an older key. */
  reencrypted: number;
  /** Already under the current key. */
  current: number;
}

/**
 * Every secret under `keyring.current`, each subscription's and the one a rotation keeps for its overlap, in one
 * transaction: a secret no key opens changes nothing at all.
 */
export async function reencryptWebhookSecrets(store: BackendStore, keyring: WebhookKeyring): Promise<ReencryptCounts> {
  // the store's and the keyring's modules only when secrets are sealed, not for --help
  const { previousSubscriptionSecrets, replacePreviousSecret, replaceSecret, subscriptionSecrets } =
    await import('../backend/store/webhooks.ts');
  const { isPlainWebhookSecret, WebhookKeyring, WebhookSecretError } = await import('../events/webhook-secrets.ts');
  return store.transaction(async (tx) => {
    const counts: ReencryptCounts = { sealed: 0, reencrypted: 0, current: 0 };
    const reseal = async (rows: Array<{ subscriptionId: string; secret: string }>, replace: typeof replaceSecret) => {
      for (const { subscriptionId, secret } of rows) {
        const kid = WebhookKeyring.kidOf(secret);
        if (kid === keyring.current) {
          counts.current += 1;
          continue;
        }
        let plain: string;
        try {
          plain = isPlainWebhookSecret(secret) ? secret : keyring.open(secret);
        } catch (error) {
          if (!(error instanceof WebhookSecretError)) throw error;
          throw new UsageError(`subscription ${subscriptionId}: ${error.message}; nothing was changed`, 1);
        }
        await replace(tx, subscriptionId, keyring.seal(plain));
        if (kid === null) counts.sealed += 1;
        else counts.reencrypted += 1;
      }
    };
    await reseal(await subscriptionSecrets(tx), replaceSecret);
    await reseal(await previousSubscriptionSecrets(tx), replacePreviousSecret);
    return counts;
  });
}

export async function webhooksCommand(args: string[], io: Io): Promise<number> {
  if (args.length !== 1 || args[0] !== 'reencrypt') throw new UsageError(WEBHOOKS_USAGE);
  // in the order a static import would load them
  const { openBackendStore } = await import('../backend/store/open.ts');
  const { redactedDatabaseUrl } = await import('../backend/store/postgres-store.ts');
  const { loadConfig, processEnv } = await import('../config.ts');
  const { webhookKeyring } = await import('../events/webhook-secrets.ts');
  const { createLogger } = await import('../logger.ts');
  const { storeLocation } = await import('../transport/open.ts');
  const config = loadConfig(processEnv());
  const keyring = webhookKeyring(config.webhooks, config.dataDir);
  const location = storeLocation(config);
  const store = await openBackendStore(location, {
    log: createLogger({ logLevel: 'warn' }, io.stderr),
    seedWhenEmpty: false,
  });
  try {
    const counts = await reencryptWebhookSecrets(store, keyring);
    const where = location.databaseUrl ? redactedDatabaseUrl(location.databaseUrl) : location.file;
    io.stdout.write(
      `webhook secrets in ${where} under key "${keyring.current}": ${counts.sealed} plain sealed, ` +
        `${counts.reencrypted} re-encrypted, ${counts.current} already current\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

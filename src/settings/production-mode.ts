/** NODE_ENV=production switches production mode on: the start-up refuses the demo's defaults (src/production.ts). */
import { read, section, text, type Env } from './schema.ts';

export const PRODUCTION_SETTINGS = section('Production mode', {
  NODE_ENV: text({
    allowed: 'production, or anything else',
    description: 'production: refuse the demo defaults at start-up (docs/production.md)',
  }),
});

export function loadProductionMode(env: Env): boolean {
  return read(env, PRODUCTION_SETTINGS, 'NODE_ENV') === 'production';
}

/** What loads the demo data on purpose: named where production mode leaves a store empty, and in the checklist. */
export const SEED_COMMAND = 'npm run seed';

/**
 * Whether a serving back-end (the API's embedded one, `corebridge backend serve`) loads the demo data into an empty
 * store: not in production mode, where demo customers and balances would sit in the real database; there the
 * operator loads data with SEED_COMMAND.
 */
export function seedsEmptyStore(production: boolean): boolean {
  return !production;
}

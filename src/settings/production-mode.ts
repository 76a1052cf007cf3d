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

/** Where the back-end's store is: the embedded SQLite file under DATA_DIR, or PostgreSQL (DATABASE_*). */
import { ConfigError, integer, parsed, read, section, type Env } from '../../settings/schema.ts';

export const STORE_SETTINGS = section('Storage', {
  DATABASE_URL: parsed({
    allowed: 'postgres:// URL',
    description: 'e.g. postgres://postgres@127.0.0.1:5432/corebridge (default: SQLite in DATA_DIR)',
    parse(value, name) {
      if (!value) return null;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw new ConfigError(name, 'is not a URL (postgres://user@host:5432/database)');
      }
      if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
        throw new ConfigError(name, `must be a postgres:// URL, got "${url.protocol}"`);
      }
      if (url.pathname.length <= 1) throw new ConfigError(name, 'names no database (postgres://host:5432/corebridge)');
      return value;
    },
  }),
  DATABASE_POOL_SIZE: integer({
    default: 10,
    min: 1,
    max: 500,
    description: 'connections of this back-end instance to PostgreSQL',
  }),
});

export interface StoreSettings {
  /**
   * The back-end's PostgreSQL database (DATABASE_URL, postgres://…), shared by every back-end instance;
   * null: the embedded SQLite file DATA_DIR/backend.sqlite.
   */
  databaseUrl: string | null;
  /** Connections of this back-end instance to PostgreSQL (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
}

export function loadStoreSettings(env: Env): StoreSettings {
  return {
    databaseUrl: read(env, STORE_SETTINGS, 'DATABASE_URL'),
    databasePoolSize: read(env, STORE_SETTINGS, 'DATABASE_POOL_SIZE'),
  };
}

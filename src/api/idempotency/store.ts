/**
 * The API layer's idempotency records, in this process's memory: the keys in flight here and a bounded cache of
 * answers to replay. Nothing here is needed for correctness after a crash or an eviction: the back-end keeps each
 * key with its effect, in the same transaction, and answers a retry with the original (or 422 for another request).
 */

/** Records dropped per purge call. */
export const PURGE_CHUNK = 500;

/** Purges expired records chunk by chunk, letting requests run between chunks; resolves with the count. */
export async function purgeInChunks(store: IdempotencyStore, stopped: () => boolean = () => false): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await store.purgeExpired(PURGE_CHUNK);
    total += n;
    if (n < PURGE_CHUNK || stopped()) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface StoredResponse {
  statusCode: number;
  contentType: string;
  headers: Record<string, string>;
  body: string;
}

export type BeginResult =
  | { outcome: 'execute' }
  | { outcome: 'replay'; response: StoredResponse }
  | { outcome: 'mismatch' }
  | { outcome: 'in-flight' };

/**
 * Embedded (this process's memory, this file: answers at once) or shared by every API instance (Redis,
 * ./redis-store.ts: answers with promises).
 */
export interface IdempotencyStore {
  begin(caller: string, key: string, requestHash: string): BeginResult | Promise<BeginResult>;
  complete(caller: string, key: string, response: StoredResponse): void | Promise<void>;
  /** Forgets an in-flight key whose request failed without a result to replay. */
  release(caller: string, key: string): void | Promise<void>;
  /** Drops at most `maxRows` expired records (bounded: the event loop is never held long). */
  purgeExpired(maxRows?: number): number | Promise<number>;
  /** Forgets every record (demo data reload, or a test that plays a restart). */
  clear(): void | Promise<void>;
  close(): void;
}

/** The embedded store answers at once. */
export interface EmbeddedIdempotencyStore extends IdempotencyStore {
  begin(caller: string, key: string, requestHash: string): BeginResult;
  complete(caller: string, key: string, response: StoredResponse): void;
  release(caller: string, key: string): void;
  purgeExpired(maxRows?: number): number;
  clear(): void;
  /** Records held, and the bytes their answers take (an estimate: strings as two bytes a character). */
  size(): { records: number; bytes: number };
}

interface Entry {
  requestHash: string;
  lockedUntil: number;
  expiresAt: number;
  response: StoredResponse | null;
  bytes: number;
}

/** What a record costs besides its answer: the Map slot, the entry object, the key and hash strings. */
const ENTRY_BYTES = 256;

function responseBytes(r: StoredResponse): number {
  let n = 2 * (r.body.length + r.contentType.length);
  for (const name in r.headers) n += 2 * (name.length + r.headers[name]!.length);
  return n;
}

export function openIdempotencyStore(options: {
  ttlSeconds: number;
  leaseMs: number;
  /** Bytes of records kept; beyond it the oldest answers are dropped (a retry of theirs reaches the back-end). */
  maxBytes: number;
  now?: () => number;
}): EmbeddedIdempotencyStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  // Every record is (re)inserted with the same TTL, so the Map's order is the order of expiry: the oldest first.
  const records = new Map<string, Entry>();
  let bytes = 0;

  // A key is 1–64 characters of [A-Za-z0-9._:-], never a NUL: the caller after one cannot make another's id.
  const idOf = (caller: string, key: string) => `${key}\u0000${caller}`;
  const drop = (id: string, entry: Entry) => {
    records.delete(id);
    bytes -= entry.bytes;
  };
  // Answers go oldest first; keys in flight stay (their requests are running, and are few).
  const evict = () => {
    for (const [id, entry] of records) {
      if (bytes <= options.maxBytes) return;
      if (entry.response) drop(id, entry);
    }
  };

  return {
    begin(caller, key, requestHash) {
      const t = now();
      const id = idOf(caller, key);
      const entry = records.get(id);
      if (entry && entry.expiresAt > t) {
        if (entry.requestHash !== requestHash) return { outcome: 'mismatch' };
        if (entry.response) return { outcome: 'replay', response: entry.response };
        if (entry.lockedUntil > t) return { outcome: 'in-flight' };
        // The holder's lease ran out (it hung): take over. The back-end finds any effect the first attempt
        // committed under the same key, so running again cannot duplicate it.
        entry.lockedUntil = t + options.leaseMs;
        return { outcome: 'execute' };
      }
      if (entry) drop(id, entry);
      records.set(id, {
        requestHash,
        lockedUntil: t + options.leaseMs,
        expiresAt: t + ttlMs,
        response: null,
        bytes: ENTRY_BYTES,
      });
      bytes += ENTRY_BYTES;
      evict();
      return { outcome: 'execute' };
    },
    complete(caller, key, response) {
      const entry = records.get(idOf(caller, key));
      if (!entry || entry.response) return;
      entry.response = response;
      const added = responseBytes(response);
      entry.bytes += added;
      bytes += added;
      evict();
    },
    release(caller, key) {
      const id = idOf(caller, key);
      const entry = records.get(id);
      if (entry && !entry.response) drop(id, entry);
    },
    purgeExpired(maxRows = PURGE_CHUNK) {
      const t = now();
      let n = 0;
      for (const [id, entry] of records) {
        if (n >= maxRows || entry.expiresAt > t) break;
        drop(id, entry);
        n++;
      }
      return n;
    },
    clear() {
      records.clear();
      bytes = 0;
    },
    close() {
      records.clear();
      bytes = 0;
    },
    size: () => ({ records: records.size, bytes }),
  };
}

/**
 * The API layer's idempotency records, in this process's memory: the keys in flight here and a bounded cache of
 * the answers to replay that the back-end does not keep (src/api/plugins/idempotency.ts chooses). Nothing here is
 * needed for correctness after a crash or an eviction: the back-end keeps each key with its effect, in the same
 * transaction, and answers a retry with the original (or 422 for another request).
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
  /** Records held (keys in flight and answers), and the bytes the answers take with their records. */
  size(): { records: number; bytes: number };
}

interface Entry {
  /** Its key in `running` or `answers`. */
  id: string;
  requestHash: string;
  lockedUntil: number;
  expiresAt: number;
  /** The answer, packed (packAnswer): bytes outside the JS heap, which the collector neither scans nor copies. */
  answer: Buffer | null;
}

/** What a record costs besides its answer: the Map slot, the entry object, the key and hash strings. */
const ENTRY_BYTES = 256;

function packAnswer(r: StoredResponse): Buffer {
  return Buffer.from(JSON.stringify([r.statusCode, r.contentType, r.headers, r.body]));
}

function unpackAnswer(packed: Buffer): StoredResponse {
  const [statusCode, contentType, headers, body] = JSON.parse(packed.toString()) as [
    number,
    string,
    Record<string, string>,
    string,
  ];
  return { statusCode, contentType, headers, body };
}

export function openIdempotencyStore(options: {
  ttlSeconds: number;
  leaseMs: number;
  /** Bytes of answers kept; beyond it the oldest are dropped (a retry of theirs runs again). */
  maxBytes: number;
  now?: () => number;
}): EmbeddedIdempotencyStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  // Keys in flight apart from answers: they come and go with their requests, so their Map stays as small as the
  // requests running, and nothing keeps them after their release.
  const running = new Map<string, Entry>();
  const answers = new Map<string, Entry>();
  // The answers in the order they were stored, which with one TTL for all is about the order of expiry: eviction
  // and purge take from the front. (Iterating the Map instead would walk over the slots its deletions leave.) An
  // entry dropped or made anew since is skipped.
  let order: Entry[] = [];
  let head = 0;
  let bytes = 0;

  // A key is 1–64 characters of [A-Za-z0-9._:-], never a NUL: the caller after one cannot make another's id.
  const idOf = (caller: string, key: string) => `${key}\u0000${caller}`;
  const dropAnswer = (entry: Entry) => {
    answers.delete(entry.id);
    bytes -= ENTRY_BYTES + entry.answer!.length;
  };
  /** The oldest answer still held, taken off the front; null when none is left. */
  const oldest = (): Entry | null => {
    while (head < order.length) {
      const entry = order[head++]!;
      if (answers.get(entry.id) === entry) return entry;
    }
    return null;
  };
  const compact = () => {
    if (head > 1024 && head * 2 > order.length) {
      order = order.slice(head);
      head = 0;
    }
  };
  const evict = () => {
    while (bytes > options.maxBytes) {
      const entry = oldest();
      if (!entry) break;
      dropAnswer(entry);
    }
    compact();
  };

  function forget(): void {
    running.clear();
    answers.clear();
    order = [];
    head = 0;
    bytes = 0;
  }

  return {
    begin(caller, key, requestHash) {
      const t = now();
      const id = idOf(caller, key);
      const answered = answers.get(id);
      if (answered) {
        if (answered.expiresAt > t) {
          return answered.requestHash === requestHash
            ? { outcome: 'replay', response: unpackAnswer(answered.answer!) }
            : { outcome: 'mismatch' };
        }
        dropAnswer(answered);
      }
      const entry = running.get(id);
      if (entry && entry.expiresAt > t) {
        if (entry.requestHash !== requestHash) return { outcome: 'mismatch' };
        if (entry.lockedUntil > t) return { outcome: 'in-flight' };
        // The holder's lease ran out (it hung): take over. The back-end finds any effect the first attempt
        // committed under the same key, so running again cannot duplicate it.
        entry.lockedUntil = t + options.leaseMs;
        return { outcome: 'execute' };
      }
      running.set(id, { id, requestHash, lockedUntil: t + options.leaseMs, expiresAt: t + ttlMs, answer: null });
      return { outcome: 'execute' };
    },
    complete(caller, key, response) {
      const id = idOf(caller, key);
      const entry = running.get(id);
      if (!entry) return;
      running.delete(id);
      entry.answer = packAnswer(response);
      answers.set(id, entry);
      order.push(entry);
      bytes += ENTRY_BYTES + entry.answer.length;
      evict();
    },
    release(caller, key) {
      running.delete(idOf(caller, key));
    },
    purgeExpired(maxRows = PURGE_CHUNK) {
      const t = now();
      let n = 0;
      while (n < maxRows) {
        const entry = oldest();
        if (!entry) break;
        if (entry.expiresAt > t) {
          head--; // not expired: it stays first in line
          break;
        }
        dropAnswer(entry);
        n++;
      }
      compact();
      // A key still in flight past its expiry belongs to a request that never ended.
      for (const entry of running.values()) {
        if (n >= maxRows) break;
        if (entry.expiresAt > t) continue;
        running.delete(entry.id);
        n++;
      }
      return n;
    },
    clear: forget,
    close: forget,
    size: () => ({ records: running.size + answers.size, bytes }),
  };
}

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
  /** Its key in `records`. */
  id: string;
  requestHash: string;
  lockedUntil: number;
  expiresAt: number;
  /** The answer, packed (packAnswer): bytes outside the JS heap, which the collector neither scans nor copies. */
  answer: Buffer | null;
}

/** What a record costs besides its answer: the Map slot, the entry object, the key and hash strings. */
const ENTRY_BYTES = 256;
/** Keys in flight an eviction passes over at most before it gives up for this call. */
const MAX_PASSED = 8;

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

const entryBytes = (entry: Entry) => ENTRY_BYTES + (entry.answer?.length ?? 0);

export function openIdempotencyStore(options: {
  ttlSeconds: number;
  leaseMs: number;
  /** Bytes of records kept; beyond it the oldest answers are dropped (a retry of theirs reaches the back-end). */
  maxBytes: number;
  now?: () => number;
}): EmbeddedIdempotencyStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  const records = new Map<string, Entry>();
  // The records in the order they were made, which with one TTL for all is the order of expiry: eviction and
  // purge take from the front. (Iterating the Map instead would walk over the slots its deletions leave.) An
  // entry dropped or made anew since is skipped.
  let order: Entry[] = [];
  let head = 0;
  let bytes = 0;

  // A key is 1–64 characters of [A-Za-z0-9._:-], never a NUL: the caller after one cannot make another's id.
  const idOf = (caller: string, key: string) => `${key}\u0000${caller}`;
  const drop = (entry: Entry) => {
    records.delete(entry.id);
    bytes -= entryBytes(entry);
  };
  /** The oldest record still held, taken off the front; null when none is left. */
  const oldest = (): Entry | null => {
    while (head < order.length) {
      const entry = order[head++]!;
      if (records.get(entry.id) === entry) return entry;
    }
    return null;
  };
  const compact = () => {
    if (head > 1024 && head * 2 > order.length) {
      order = order.slice(head);
      head = 0;
    }
  };
  // Answers go oldest first; a key in flight (its request is running) goes to the back of the line. Only a few
  // are passed over per call: keys in flight alone may fill the bound, and are few and short-lived.
  const evict = () => {
    let passed = 0;
    while (bytes > options.maxBytes && passed < MAX_PASSED) {
      const entry = oldest();
      if (!entry) break;
      if (entry.answer) drop(entry);
      else {
        order.push(entry);
        passed++;
      }
    }
    compact();
  };

  function forget(): void {
    records.clear();
    order = [];
    head = 0;
    bytes = 0;
  }

  return {
    begin(caller, key, requestHash) {
      const t = now();
      const id = idOf(caller, key);
      const entry = records.get(id);
      if (entry && entry.expiresAt > t) {
        if (entry.requestHash !== requestHash) return { outcome: 'mismatch' };
        if (entry.answer) return { outcome: 'replay', response: unpackAnswer(entry.answer) };
        if (entry.lockedUntil > t) return { outcome: 'in-flight' };
        // The holder's lease ran out (it hung): take over. The back-end finds any effect the first attempt
        // committed under the same key, so running again cannot duplicate it.
        entry.lockedUntil = t + options.leaseMs;
        return { outcome: 'execute' };
      }
      if (entry) drop(entry);
      const made: Entry = { id, requestHash, lockedUntil: t + options.leaseMs, expiresAt: t + ttlMs, answer: null };
      records.set(id, made);
      order.push(made);
      bytes += ENTRY_BYTES;
      evict();
      return { outcome: 'execute' };
    },
    complete(caller, key, response) {
      const entry = records.get(idOf(caller, key));
      if (!entry || entry.answer) return;
      entry.answer = packAnswer(response);
      bytes += entry.answer.length;
      evict();
    },
    release(caller, key) {
      const entry = records.get(idOf(caller, key));
      if (entry && !entry.answer) drop(entry);
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
        drop(entry);
        n++;
      }
      compact();
      return n;
    },
    clear: forget,
    close: forget,
    size: () => ({ records: records.size, bytes }),
  };
}

/**
 * Ids of new business objects and events, time-ordered like UUIDv7 (RFC 9562) so index inserts land on
 * the B-tree's right edge and a group commit writes few pages. Ids are not secrets: object-level checks guard reads.
 */
import { randomFillSync } from 'node:crypto';

export type IdPrefix = 'ORD' | 'PAY' | 'LN' | 'WHS' | 'WHD' | 'OP';

// One system call for many ids: a call per id shows in the worker's profile of every payment.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomBytes(count: number): Buffer {
  if (poolAt + count > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += count;
  return pool.subarray(poolAt - count, poolAt);
}

/** A counter's start in a new millisecond: random in the lower half of its span, so half is left to count up in. */
function counterStart(span: number): number {
  return randomBytes(3).readUIntBE(0, 3) % (span >>> 1);
}

/**
 * The time in ms and a counter within it, never the same pair twice in this process: a new millisecond
 * starts the counter at random; at the end of its span the next millisecond is taken; when the clock steps
 * back, the last millisecond is kept. Returns its own state object (no allocation per id).
 */
function monotonicClock(span: number): () => { readonly ms: number; readonly counter: number } {
  const state = { ms: 0, counter: 0 };
  return () => {
    const now = Date.now();
    if (now > state.ms) {
      state.ms = now;
      state.counter = counterStart(span);
    } else if (++state.counter === span) {
      state.ms++;
      state.counter = counterStart(span);
    }
    return state;
  };
}

const idClock = monotonicClock(0x100000); // 20 bits, 5 hex digits
const eventIdClock = monotonicClock(0x1000); // UUIDv7's rand_a, 12 bits

/**
 * A prefix and 16 upper-case hex digits, e.g. PAY-19AB3C4D5E6F7A8B: the time in ms (11 digits), then a
 * counter (5 digits) that starts at random in each millisecond and counts up within it. One process never
 * repeats an id, even when the clock steps back (the last millisecond is kept); two back-end processes
 * (PostgreSQL) rarely do, and the store runs the loser's transaction again, which draws a new id.
 */
export function newId(prefix: IdPrefix): string {
  const { ms, counter } = idClock();
  return `${prefix}-${ms.toString(16).padStart(11, '0')}${counter.toString(16).padStart(5, '0')}`.toUpperCase();
}

/**
 * An event's id: a UUIDv7 (RFC 9562) whose 12-bit rand_a is a counter (its section 6.2, method 1) that starts
 * at random in each millisecond, then 62 random bits: monotonic within this process, as newId is.
 */
export function newEventId(): string {
  const { ms, counter } = eventIdClock();
  const time = ms.toString(16).padStart(12, '0');
  const random = randomBytes(8);
  random[0] = (random[0]! & 0x3f) | 0x80; // the variant, 10xx
  const tail = random.toString('hex');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${counter.toString(16).padStart(3, '0')}-${tail.slice(0, 4)}-${tail.slice(4)}`;
}

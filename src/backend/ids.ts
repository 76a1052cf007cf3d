/**
 * Identifiers of new business objects and events, ordered by creation time as UUIDv7 (RFC 9562) is: each
 * index insert then lands on the right edge of its B-tree, next to the one before. Random ids put every
 * insert on a page of its own, so a group commit wrote (and fsynced) a 4 KiB page per id and index; see
 * bench/README.md. Ids are not secrets: the object-level checks guard every read.
 */
import { randomFillSync } from 'node:crypto';

export type IdPrefix = 'ORD' | 'PAY' | 'LN' | 'WHS' | 'WHD' | 'OP';

const COUNTER_SPAN = 0x100000; // 20 bits, 5 hex digits
let lastMs = 0;
let counter = 0;

// One system call for many ids: a call per id cost 2–8 µs of the worker's profile per payment.
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
 * A prefix and 16 upper-case hex digits, e.g. PAY-19AB3C4D5E6F7A8B: the time in ms (11 digits), then a
 * counter (5 digits) that starts at random in each millisecond and counts up within it. One process never
 * repeats an id, even when the clock steps back (the last millisecond is kept); two back-end processes
 * (PostgreSQL) rarely do, and the store runs the loser's transaction again, which draws a new id.
 */
export function newId(prefix: IdPrefix): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = counterStart(COUNTER_SPAN);
  } else if (++counter === COUNTER_SPAN) {
    lastMs++;
    counter = counterStart(COUNTER_SPAN);
  }
  return `${prefix}-${lastMs.toString(16).padStart(11, '0')}${counter.toString(16).padStart(5, '0')}`.toUpperCase();
}

const EVENT_COUNTER_SPAN = 0x1000; // rand_a, 12 bits
let lastEventMs = 0;
let eventCounter = 0;

/**
 * An event's id: a UUIDv7 (RFC 9562) whose 12-bit rand_a is a counter (its section 6.2, method 1) that starts
 * at random in each millisecond, then 62 random bits: monotonic within this process, as newId is.
 */
export function newEventId(): string {
  const now = Date.now();
  if (now > lastEventMs) {
    lastEventMs = now;
    eventCounter = counterStart(EVENT_COUNTER_SPAN);
  } else if (++eventCounter === EVENT_COUNTER_SPAN) {
    lastEventMs++;
    eventCounter = counterStart(EVENT_COUNTER_SPAN);
  }
  const time = lastEventMs.toString(16).padStart(12, '0');
  const random = randomBytes(8);
  random[0] = (random[0]! & 0x3f) | 0x80; // the variant, 10xx
  const tail = random.toString('hex');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${eventCounter.toString(16).padStart(3, '0')}-${tail.slice(0, 4)}-${tail.slice(4)}`;
}

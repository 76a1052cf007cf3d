/**
 * Identifiers of new business objects and events, ordered by creation time as UUIDv7 (RFC 9562) is: each
 * index insert then lands on the right edge of its B-tree, next to the one before. Random ids put every
 * insert on a page of its own, so a group commit wrote (and fsynced) a 4 KiB page per id and index; see
 * bench/README.md. Ids are not secrets: the object-level checks guard every read.
 */
import { randomFillSync } from 'node:crypto';
import { v7 as uuidV7 } from 'uuid';

export type IdPrefix = 'ORD' | 'PAY' | 'LN' | 'WHS' | 'WHD' | 'OP';

const COUNTER_SPAN = 0x100000; // 20 bits, 5 hex digits
let lastMs = 0;
let counter = 0;

// One system call for many ids: a new millisecond takes 3 random bytes of the pool.
const pool = Buffer.alloc(3 * 1024);
let poolAt = pool.length;
function randomCounterStart(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const start = pool.readUIntBE(poolAt, 3) & (COUNTER_SPAN - 1);
  poolAt += 3;
  // Half the span is left to count up in: a new millisecond is taken only after 512 Ki ids in one.
  return start >>> 1;
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
    counter = randomCounterStart();
  } else if (++counter === COUNTER_SPAN) {
    lastMs++;
    counter = randomCounterStart();
  }
  return `${prefix}-${lastMs.toString(16).padStart(11, '0')}${counter.toString(16).padStart(5, '0')}`.toUpperCase();
}

/** An event's id: a UUIDv7 (time-ordered, monotonic within this process). */
export function newEventId(): string {
  return uuidV7();
}

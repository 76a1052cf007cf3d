/**
 * Event positions on SQLite (src/backend/store/journal.ts, store/events.ts): one writer commits in insert order,
 * so an event takes its position as it is written, and the relay's turn only reads what came after its last one.
 * A store upgraded with events the relay had not positioned yet gives them positions above every earlier one,
 * and keeps what the broker had confirmed as the relay's published mark.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeEvent } from '../../src/backend/store/journal.ts';
import { nextPositionedEvents } from '../../src/backend/store/events.ts';
import { SQLITE_MIGRATIONS_DIR } from '../../src/backend/store/sqlite-store.ts';
import type { BackendStore, Tx } from '../../src/backend/store/tx.ts';
import { SqliteDatabase } from '../../src/sqlite.ts';
import { openSqliteStoreFor, openTempSqliteStore, tempDir } from '../helpers/backend-store.ts';

const event = (tx: Tx, subject: string) =>
  writeEvent(
    { tx, correlationId: `c-${subject}`, now: '2026-01-01T00:00:00.000Z' },
    {
      type: 'CustomerUpdated',
      resource: 'customer',
      subject,
      ownerCustomerId: subject,
      createdBy: 'clerk',
      recordName: 'CUSREC',
      record: { cusCustomerId: subject } as never,
    },
  );

async function rows(store: BackendStore): Promise<Array<{ subject: string; seq: number; position: number | null }>> {
  const all = await store.transaction((tx) =>
    Promise.resolve(tx.all('SELECT subject, seq, position FROM events ORDER BY seq')),
  );
  return all.map((r) => ({
    subject: String(r['subject']),
    seq: Number(r['seq']),
    position: r['position'] === null ? null : Number(r['position']),
  }));
}

test('an event takes its position as it is written: increasing, in commit order; a failed item leaves none', async (t) => {
  const store = openTempSqliteStore(t, 'positions');
  const results = await store.group(['a', 'b', 'refused', 'c'], async (tx, subject) => {
    await event(tx, subject);
    if (subject === 'refused') throw new Error('refused after writing its event');
    return subject;
  });
  assert.deepEqual(
    results.map((r) => r.ok),
    [true, true, false, true],
  );
  await store.group(['d'], (tx, subject) => event(tx, subject));
  const written = await rows(store);
  assert.deepEqual(
    written.map((r) => r.subject),
    ['a', 'b', 'c', 'd'],
  );
  const positions = written.map((r) => r.position);
  assert.ok(
    positions.every((p, i) => p !== null && (i === 0 || p > positions[i - 1]!)),
    `positions increase: ${positions.join(', ')}`,
  );

  // The relay's turn: what came after its last position, in order, then nothing more.
  const after = (last: number, max = 10) => store.transaction((tx) => nextPositionedEvents(tx, last, max));
  const first = await after(0, 3);
  assert.deepEqual(
    first.map((e) => e.position),
    positions.slice(0, 3),
  );
  const rest = await after(first.at(-1)!.position);
  assert.deepEqual(
    rest.map((e) => e.position),
    positions.slice(3),
  );
  assert.deepEqual(await after(rest.at(-1)!.position), []);
});

test('a store upgraded with events the relay had not positioned yet positions them above every earlier one, and keeps what was published', async (t) => {
  const dir = tempDir(t, 'upgrade');
  const file = join(dir, 'backend.sqlite');
  // The store as the release before this one left it: migrations up to 008, events written without a position.
  const before = join(dir, 'migrations-before');
  mkdirSync(before);
  for (const name of readdirSync(SQLITE_MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f < '009'))
    copyFileSync(join(SQLITE_MIGRATIONS_DIR, name), join(before, name));
  const old = new SqliteDatabase(file);
  old.migrate(before);
  const insert =
    old.statement(`INSERT INTO events (event_id, event_type, resource, subject, owner_customer_id, created_by, record_name, record_json, correlation_id, occurred_at)
    VALUES (?, 'CustomerUpdated', 'customer', ?, NULL, 'clerk', 'CUSREC', '{}', 'c', '2026-01-01T00:00:00.000Z')`);
  for (const subject of ['p1', 'p2', 'p3', 'u1', 'u2']) insert.run(`id-${subject}`, subject);
  // The old relay had positioned the first three (from 1, in seq order) when the store was stopped.
  old.statement("UPDATE events SET position = seq WHERE subject IN ('p1', 'p2', 'p3')").run();
  // ... and the broker had confirmed the first two.
  old.statement("UPDATE events SET published_at = '2026-01-01T00:00:01.000Z' WHERE subject IN ('p1', 'p2')").run();
  old.close();

  const store = openSqliteStoreFor(t, file);
  await store.group(['new'], (tx, subject) => event(tx, subject));
  const upgraded = await rows(store);
  assert.deepEqual(
    upgraded.map((r) => r.subject),
    ['p1', 'p2', 'p3', 'u1', 'u2', 'new'],
  );
  assert.deepEqual(
    upgraded.slice(0, 3).map((r) => r.position),
    [1, 2, 3],
    'positions already given stay',
  );
  const positions = upgraded.map((r) => r.position!);
  assert.ok(
    positions.every((p, i) => i === 0 || p > positions[i - 1]!),
    `positions increase: ${positions.join(', ')}`,
  );
  // What was published is now one mark: every event up to the second.
  const mark = await store.transaction((tx) =>
    Promise.resolve(tx.get('SELECT published_through FROM event_relay WHERE id = 1')),
  );
  assert.equal(Number(mark?.['published_through']), 2);
  // The relay (last position 3) hands on the two it had not reached and the new one.
  const next = await store.transaction((tx) => nextPositionedEvents(tx, 3, 10));
  assert.deepEqual(
    next.map((e) => e.position),
    positions.slice(3),
  );
});

/**
 * A write group on SQLite (src/backend/store/sqlite-store.ts): one transaction, one commit; an item that
 * fails keeps nothing and every other item keeps its changes, whether the failed item changed rows first
 * (the group runs again with a savepoint per item) or not (no savepoints at all).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackendStore, Tx } from '../../src/backend/store/tx.ts';
import { openTempSqliteStore } from '../helpers/backend-store.ts';

const audit = (tx: Tx, id: string) =>
  tx.run(
    "INSERT INTO audit_log (tran_code, entity, entity_id, action, principal, correlation_id, at) VALUES ('TEST', 'item', ?, 'done', 'test', ?, '2026-01-01T00:00:00.000Z')",
    id,
    id,
  );

async function keptIds(store: BackendStore): Promise<string[]> {
  const rows = await store.transaction((tx) =>
    Promise.resolve(tx.all("SELECT entity_id FROM audit_log WHERE tran_code = 'TEST' ORDER BY rowid")),
  );
  return rows.map((row) => String(row['entity_id']));
}

interface Item {
  id: string;
  /** What the item does after writing its row (or instead of it). */
  fails?: 'after-writing' | 'before-writing' | 'on-a-failed-statement';
}

async function runGroup(store: BackendStore, items: Item[]) {
  const runs: string[] = [];
  const results = await store.group(items, async (tx, item) => {
    runs.push(item.id);
    if (item.fails === 'before-writing') throw new Error(`refused ${item.id}`);
    await audit(tx, item.id);
    if (item.fails === 'after-writing') throw new Error(`refused ${item.id}`);
    // A second row that breaks a NOT NULL constraint: the statement fails after the first one changed a row.
    if (item.fails === 'on-a-failed-statement')
      await tx.run(
        "INSERT INTO audit_log (tran_code, entity, entity_id, action, principal, correlation_id, at) VALUES ('TEST', 'item', ?, 'done', NULL, 'x', 'y')",
        item.id,
      );
    return `ok ${item.id}`;
  });
  return { runs, results: results.map((r) => (r.ok ? r.value : (r.error as Error).message)) };
}

test('an item that fails before changing anything keeps nothing, and the group runs once', async (t) => {
  const store = openTempSqliteStore(t, 'group');
  const { runs, results } = await runGroup(store, [{ id: 'a' }, { id: 'b', fails: 'before-writing' }, { id: 'c' }]);
  assert.deepEqual(results, ['ok a', 'refused b', 'ok c']);
  assert.deepEqual(runs, ['a', 'b', 'c']);
  assert.deepEqual(await keptIds(store), ['a', 'c']);
});

test('an item that fails after changing rows keeps nothing; the others keep theirs, once', async (t) => {
  const store = openTempSqliteStore(t, 'group');
  const { runs, results } = await runGroup(store, [
    { id: 'a' },
    { id: 'b', fails: 'after-writing' },
    { id: 'c' },
    { id: 'd' },
  ]);
  assert.deepEqual(results, ['ok a', 'refused b', 'ok c', 'ok d']);
  // The first run stopped at b's failure; the second ran every item with a savepoint each.
  assert.deepEqual(runs, ['a', 'b', 'a', 'b', 'c', 'd']);
  assert.deepEqual(await keptIds(store), ['a', 'c', 'd']);
});

test('an item whose second statement fails keeps neither statement', async (t) => {
  const store = openTempSqliteStore(t, 'group');
  const { results } = await runGroup(store, [{ id: 'a', fails: 'on-a-failed-statement' }, { id: 'b' }]);
  assert.match(results[0]!, /NOT NULL constraint failed/);
  assert.equal(results[1], 'ok b');
  assert.deepEqual(await keptIds(store), ['b']);
});

test('groups after a run again start without savepoints and keep their items', async (t) => {
  const store = openTempSqliteStore(t, 'group');
  await runGroup(store, [{ id: 'a', fails: 'after-writing' }]);
  const { runs, results } = await runGroup(store, [{ id: 'b' }, { id: 'c' }]);
  assert.deepEqual(results, ['ok b', 'ok c']);
  assert.deepEqual(runs, ['b', 'c']);
  assert.deepEqual(await keptIds(store), ['b', 'c']);
});

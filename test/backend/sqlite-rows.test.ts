/** Rows read through SqliteDatabase.query (src/sqlite.ts): the same content as node:sqlite's own rows. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { SqliteDatabase } from '../../src/sqlite.ts';

function open(t: TestContext): SqliteDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-rows-'));
  const db = new SqliteDatabase(join(dir, 'rows.db'));
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  db.db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, amount INTEGER, note TEXT, raw BLOB);
    INSERT INTO t VALUES ('a', 4990, NULL, x'00ff'), ('b', -1, 'x', NULL)`);
  return db;
}

test('query rows hold the same columns and values as node:sqlite rows, and inherit nothing', (t) => {
  const db = open(t);
  for (const sql of ['SELECT * FROM t ORDER BY id', 'SELECT id, amount + 1 AS next, note FROM t ORDER BY id']) {
    const native = db.db.prepare(sql).all();
    const rows = db.query(sql).all();
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      native.map((row) => ({ ...row })),
    );
    assert.deepEqual(Object.keys(rows[0]!), Object.keys(native[0]!));
  }
  const row = db.query('SELECT * FROM t WHERE id = ?').get('a')!;
  assert.equal(row['constructor'], undefined);
  assert.equal(row['toString'], undefined);
  assert.deepEqual(row['raw'], new Uint8Array([0, 255]));
  assert.equal(db.query('SELECT * FROM t WHERE id = ?').get('none'), undefined);
  assert.deepEqual(db.query('SELECT * FROM t WHERE id = ?').all('none'), []);
});

test('a repeated column name keeps the last value, as node:sqlite does', (t) => {
  const db = open(t);
  const sql = "SELECT 1 AS v, 2 AS v, '__proto__' AS __proto__";
  const row = db.query(sql).get()!;
  assert.equal(row['v'], 2);
  assert.equal(row['__proto__'], '__proto__');
  assert.equal(row['v'], (db.db.prepare(sql).get() as Record<string, unknown>)['v']);
});

test('after a migration adds a column, a prepared SELECT * returns it', (t) => {
  const db = open(t);
  const query = db.query('SELECT * FROM t WHERE id = ?');
  assert.equal(Object.keys(query.get('a')!).length, 4);
  db.db.exec("ALTER TABLE t ADD COLUMN added TEXT DEFAULT 'new'");
  const row = query.get('a')!;
  assert.equal(row['added'], 'new');
  assert.equal(row['amount'], 4990);
});

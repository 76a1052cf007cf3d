/**
 * Payment load with retries, each payment under its own Idempotency-Key until answered, and the checks after it
 * (each acknowledged payment exactly once, all acknowledged, ledger = balances, sum unchanged), shared by the
 * crash test (one server killed) and the fault test (a stack's parts killed).
 */
import { queryStoreAt } from '../support/database.ts';

export const ACCOUNTS = ['1001-01', '1002-01', '1003-01'];
const ALL_ACCOUNTS = ['1001-01', '1001-02', '1002-01', '1003-01'];

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Ack {
  key: string;
  paymentId: string;
  status: string;
  amountMinor: number;
  attempts: number;
}

export interface PaymentLoad {
  acks: Ack[];
  intents(): number;
  /** Answers that were not the payment, by status (409, 503, 504), and connection errors or time-outs. */
  retried: Map<string, number>;
  /** Answers no client should get: another status, or a retryable one without Retry-After. */
  unexpected: string[];
  stop(): Promise<void>;
}

/** Starts `clients` clients, each paying one payment after another until stopped. */
export function startPaymentLoad(options: {
  base: string;
  auth: Record<string, string>;
  deadline: number;
  clients: number;
  keyPrefix: string;
}): PaymentLoad {
  const acks: Ack[] = [];
  const retried = new Map<string, number>();
  const unexpected: string[] = [];
  let intents = 0;
  let stopping = false;
  const count = (what: string) => retried.set(what, (retried.get(what) ?? 0) + 1);

  async function payOnce(client: number, n: number): Promise<void> {
    const key = `${options.keyPrefix}-${client}-${n}`;
    const from = ACCOUNTS[(client + n) % ACCOUNTS.length]!;
    const to = ACCOUNTS[(client + n + 1) % ACCOUNTS.length]!;
    const amountMinor = 1 + ((client * 7919 + n * 104729) % 500);
    const body = JSON.stringify({
      debtorAccount: from,
      creditorAccount: to,
      amount: amountMinor / 100,
      currency: 'EUR',
      reference: key,
    });
    intents++;
    for (let attempt = 1; ; attempt++) {
      if (Date.now() > options.deadline) throw new Error(`payment ${key} unanswered at the deadline`);
      try {
        const res = await fetch(`${options.base}/v1/payments`, {
          method: 'POST',
          headers: { ...options.auth, 'content-type': 'application/json', 'idempotency-key': key },
          body,
          signal: AbortSignal.timeout(5000),
        });
        if (res.status === 201 || res.status === 200) {
          const p = (await res.json()) as { paymentId: string; status: string };
          acks.push({ key, paymentId: p.paymentId, status: p.status, amountMinor, attempts: attempt });
          return;
        }
        const text = await res.text();
        if (![409, 503, 504].includes(res.status)) {
          unexpected.push(`payment ${key}: ${res.status} ${text}`);
          return;
        }
        count(String(res.status));
        if (!res.headers.get('retry-after')) {
          unexpected.push(`payment ${key}: ${res.status} without Retry-After: ${text}`);
        }
      } catch {
        count('connection error or time-out');
      }
      await sleep(25 + Math.random() * 75);
    }
  }

  const running = Array.from({ length: options.clients }, async (_, client) => {
    for (let n = 0; !stopping; n++) await payOnce(client, n);
  });
  return {
    acks,
    retried,
    unexpected,
    intents: () => intents,
    async stop() {
      stopping = true;
      await Promise.all(running);
    },
  };
}

/**
 * A read as a client makes it: a 503 or 504 (a pooled database connection found broken after a restart, say) is
 * tried again after its Retry-After, a few times; what the checks judge is the answer after that.
 */
async function read(url: string, auth: Record<string, string>): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, { headers: auth });
    if ((res.status !== 503 && res.status !== 504) || attempt === 5) return res;
    await sleep(1000 * Number(res.headers.get('retry-after') ?? 1));
  }
}

/** Balances in minor units, read through the API. */
export async function balances(base: string, auth: Record<string, string>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const a of ALL_ACCOUNTS) {
    const res = await read(`${base}/v1/accounts/${a}/balance`, auth);
    out[a] = Math.round(((await res.json()) as { balance: number }).balance * 100);
  }
  return out;
}

export const total = (b: Record<string, number>) => Object.values(b).reduce((x, y) => x + y, 0);

/** Every acknowledged payment as the API returns it now; failures as sentences. */
export async function checkAcknowledged(
  base: string,
  auth: Record<string, string>,
  acks: readonly Ack[],
): Promise<string[]> {
  const failures: string[] = [];
  for (const ack of acks) {
    const res = await read(`${base}/v1/payments/${ack.paymentId}`, auth);
    if (res.status !== 200) {
      failures.push(`acknowledged ${ack.paymentId} (${ack.key}) answers ${res.status}`);
      continue;
    }
    const p = (await res.json()) as { status: string; amount: number; reference: string };
    if (p.status !== ack.status || Math.round(p.amount * 100) !== ack.amountMinor || p.reference !== ack.key) {
      failures.push(`acknowledged ${ack.paymentId} differs: ${JSON.stringify(p)}`);
    }
  }
  return failures;
}

/** The store itself (SQLite file or PostgreSQL): no duplicates, nothing unacknowledged, ledger = balances. */
export async function checkStore(
  store: { file: string; databaseUrl: string | null },
  load: { acks: readonly Ack[]; intents: number },
): Promise<{ failures: string[]; stored: number }> {
  const failures: string[] = [];
  const query = (sql: string) => queryStoreAt(store, sql);
  const rows = await query("SELECT payment_id, idempotency_key FROM payments WHERE created_by = 'clerk'");
  const byKey = new Map<string, number>();
  for (const r of rows) byKey.set(String(r['idempotency_key']), (byKey.get(String(r['idempotency_key'])) ?? 0) + 1);
  const duplicated = [...byKey].filter(([, n]) => n > 1);
  if (duplicated.length) failures.push(`duplicated payments: ${JSON.stringify(duplicated)}`);
  if (rows.length !== load.intents) failures.push(`${load.intents} payments intended, ${rows.length} stored`);
  if (load.acks.length !== load.intents) {
    failures.push(`${load.intents} payments intended, ${load.acks.length} acknowledged`);
  }
  const ackIds = new Set(load.acks.map((a) => a.paymentId));
  for (const r of rows) {
    const id = String(r['payment_id']);
    if (!ackIds.has(id)) failures.push(`stored payment ${id} was never acknowledged`);
  }
  const ledgerMismatch = await query(`
    SELECT a.account_id, a.balance,
      COALESCE(SUM(CASE p.direction WHEN 'CREDIT' THEN p.amount ELSE -p.amount END), 0) AS ledger
    FROM accounts a LEFT JOIN ledger_postings p ON p.account_id = a.account_id
    GROUP BY a.account_id, a.balance
    HAVING a.balance <> COALESCE(SUM(CASE p.direction WHEN 'CREDIT' THEN p.amount ELSE -p.amount END), 0)`);
  if (ledgerMismatch.length) failures.push(`balances differ from the ledger: ${JSON.stringify(ledgerMismatch)}`);
  const completed = Number((await query("SELECT COUNT(*) AS n FROM payments WHERE status = 'COMPLETED'"))[0]?.['n']);
  const transferRows = await query(
    "SELECT COUNT(DISTINCT transfer_id) AS n FROM ledger_postings WHERE transfer_id LIKE 'PAY-%'",
  );
  const transfers = Number(transferRows[0]?.['n']);
  if (completed !== transfers) failures.push(`${completed} completed payments but ${transfers} posted transfers`);
  return { failures, stored: rows.length };
}

export function summary(
  load: { acks: readonly Ack[]; intents: number; retried: ReadonlyMap<string, number> },
  stored: number,
): string {
  const completed = load.acks.filter((a) => a.status === 'COMPLETED').length;
  const rejected = load.acks.length - completed;
  const afterRetries = load.acks.filter((a) => a.attempts > 1).length;
  return [
    `payments intended: ${load.intents}, acknowledged: ${load.acks.length} ` +
      `(${completed} completed, ${rejected} rejected), stored: ${stored}`,
    `answered only after retries: ${afterRetries}; ` +
      `retried answers: ${JSON.stringify(Object.fromEntries(load.retried))}`,
  ].join('\n');
}

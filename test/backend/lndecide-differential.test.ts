/**
 * Differential test: the loan decision rule in TypeScript (decideLoanRecord, run by runLocalProgram) and
 * in COBOL (src/backend/cobol/LNDECIDE.cbl, in the program host) answer 10,000 random requests with
 * byte-identical records. Seeded, so a failure reproduces; it prints the request, both records and the
 * first field that differs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { loadLinkCatalog } from '../../src/backend/copybooks/index.ts';
import { installmentFor } from '../../src/backend/loan-math.ts';
import { linkMessage, runLocalProgram } from '../../src/backend/links.ts';
import { BLANK_HEADER } from '../../src/backend/message.ts';
import { rateFor } from '../../src/backend/programs/loan-decision.ts';
import { fromMinorUnits, minorToDecimalString } from '../../src/backend/money.ts';
import { openProgramHost } from '../../src/transport/cobol-host.ts';
import { buildCobolHost } from '../../src/transport/cobol-host/build.ts';
import { cobolSkip } from '../helpers/cobol.ts';

const SEED = 20261124;
const RUNS = 10_000;
const catalog = loadLinkCatalog();

interface LoanRuleRequest {
  rating: string;
  /** Minor units. */
  income: number;
  amount: number;
  installments: number;
}

/**
 * Incomes are either anywhere, or within a few cents of the least income that affords the full amount:
 * where a rounding difference would show.
 */
const requests: fc.Arbitrary<LoanRuleRequest> = fc
  .record({
    rating: fc.oneof(
      { arbitrary: fc.constantFrom('A', 'B', 'C'), weight: 8 },
      { arbitrary: fc.constantFrom('D', 'Z', ' '), weight: 1 },
    ),
    amount: fc.integer({ min: 50_000, max: 20_000_000 }),
    installments: fc.integer({ min: 6, max: 120 }),
    anyIncome: fc.integer({ min: 0, max: 200_000_000 }),
    nearThreshold: fc.boolean(),
    offset: fc.integer({ min: -3, max: 3 }),
  })
  .map(({ rating, amount, installments, anyIncome, nearThreshold, offset }) => {
    const rateBp = rateFor(rating, installments);
    if (!nearThreshold || rateBp === undefined) return { rating, income: anyIncome, amount, installments };
    const threshold = Math.ceil((installmentFor(amount, rateBp, installments) * 100) / 40);
    return { rating, income: Math.max(0, threshold + offset), amount, installments };
  });

function requestMessage(r: LoanRuleRequest): Buffer {
  return linkMessage(
    catalog,
    'LNDECIDE',
    { ...BLANK_HEADER, correlationId: 'differential', principal: 'test', role: 'AGENT' },
    {
      lndiRiskRating: r.rating,
      lndiMonthlyIncome: fromMinorUnits(r.income),
      lndiAmount: fromMinorUnits(r.amount),
      lndiInstallments: r.installments,
    },
  );
}

/** What differs, in words: the first response field, or else the first header byte. */
function difference(typescript: Buffer, cobol: Buffer): string {
  const headerLength = catalog.header.maxLength;
  const layout = catalog.response('LNDECIDE');
  const ts = layout.decode(typescript.subarray(headerLength, headerLength + layout.maxLength));
  const cb = layout.decode(cobol.subarray(headerLength, headerLength + layout.maxLength));
  for (const key of Object.keys(ts)) {
    if (JSON.stringify(ts[key]) !== JSON.stringify(cb[key]))
      return `field ${key}: TypeScript ${JSON.stringify(ts[key])}, COBOL ${JSON.stringify(cb[key])}`;
  }
  const at = typescript.findIndex((byte, i) => byte !== cobol[i]);
  return `byte ${at} (${at < headerLength ? 'header' : 'record'}): TypeScript ${typescript[at]}, COBOL ${cobol[at]}`;
}

test(
  `LNDECIDE in COBOL and in TypeScript: byte-identical records for ${RUNS} random requests (seed ${SEED})`,
  { skip: cobolSkip, timeout: 300_000 },
  async (t) => {
    const outDir = mkdtempSync(join(tmpdir(), 'corebridge-differential-'));
    const build = await buildCobolHost({ outDir, programs: ['LNDECIDE'] });
    const { host } = openProgramHost(
      { programs: ['LNDECIDE'], ...build, processes: 2, callTimeoutMs: 10_000 },
      pino({ level: 'warn' }),
    );
    t.after(async () => {
      await host.close();
      rmSync(outDir, { recursive: true, force: true });
    });

    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        const message = requestMessage(r);
        const [typescript, cobol] = [runLocalProgram(catalog, message), await host.call(message)];
        const layout = catalog.response('LNDECIDE');
        const answer = layout.decode(
          typescript.subarray(catalog.header.maxLength, catalog.header.maxLength + layout.maxLength),
        );
        const outcome =
          answer['lndoStatus'] === 'APPROVED'
            ? `APPROVED ${minorToDecimalString(r.amount) === Number(answer['lndoApprovedAmount']).toFixed(2) ? 'in full' : 'reduced'}`
            : `REJECTED ${String(answer['lndoRejectReason'])}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (!typescript.equals(cobol)) {
          assert.fail(
            [
              `request ${JSON.stringify(r)} (amounts in minor units)`,
              `TypeScript record ${typescript.subarray(catalog.header.maxLength).toString('hex')}`,
              `COBOL record      ${cobol.subarray(catalog.header.maxLength).toString('hex')}`,
              difference(typescript, cobol),
            ].join('\n'),
          );
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The requests reached every branch of the rule, so the agreement means something.
    t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    for (const outcome of [
      'APPROVED in full',
      'APPROVED reduced',
      'REJECTED RISK_RATING',
      'REJECTED INSUFFICIENT_INCOME',
    ])
      assert.ok((outcomes.get(outcome) ?? 0) > 100, `${outcome} came up`);
  },
);

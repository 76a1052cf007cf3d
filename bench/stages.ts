/**
 * npm run bench:stages — the per-request time budget of the API, by stage, from V8 CPU profiles.
 *
 * For each scenario (GET /v1/orders/{id}, POST /v1/payments; on request POST /v1/loan-applications with LNDECIDE
 * in TypeScript or in COBOL) a fresh server runs as
 * `taskset -c 0 node --cpu-prof src/server.ts` on a new DATA_DIR, wrk loads it from CPU 1 (warm-up, then the
 * measured run), and the server is stopped with SIGINT so that every thread writes its .cpuprofile. Each
 * sample inside the measured window is charged to the first stage whose rule (stages/rules.ts) matches a frame
 * of its stack, walking from the leaf outward; each stage's time divided by wrk's request count is its
 * µs per request (stages/profile.ts, stages/report.ts).
 *
 * Usage:
 *   npm run bench:stages                          get and payment, each on its own server
 *   npm run bench:stages -- get                   the scenarios named: get | payment | loan | loan-cobol
 *   npm run bench:stages -- --top 8               also the 8 costliest frames of each stage (leaf ← matched frame)
 *   npm run bench:stages -- --analyze DIR [--top N]   re-analyse a run kept with STAGES_KEEP=1 (no server, no load)
 *   npm run bench:stages -- --compare DIR...      kept runs side by side: CPU µs/request per stage and the totals
 * Environment: BENCH_SECONDS (10), BENCH_CONNECTIONS (50), STAGES_WARMUP_SECONDS (3), STAGES_INTERVAL_US
 * (sampling interval, 500), WRK_THREADS (1), STAGES_KEEP=1 (keep DATA_DIR, log and profiles; the path is printed).
 * Anything else in the environment reaches the server (e.g. BACKEND_TRANSPORT=worker).
 */
import { rmSync } from 'node:fs';
import { compare, report } from './stages/report.ts';
import { KEEP, pinned, runScenario, SCENARIOS } from './stages/scenario.ts';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 0;
const analyzeAt = args.indexOf('--analyze');
const compareAt = args.indexOf('--compare');
if (compareAt >= 0) {
  const dirs = args.slice(compareAt + 1).filter((a) => !a.startsWith('--'));
  if (dirs.length === 0) throw new Error('--compare needs kept run directories');
  console.log(compare(dirs));
} else if (analyzeAt >= 0) {
  const dir = args[analyzeAt + 1];
  if (!dir) throw new Error('--analyze needs a directory');
  console.log(report(dir, top));
} else {
  const names = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--top');
  const chosen = names.length
    ? SCENARIOS.filter((s) => names.includes(s.name))
    : SCENARIOS.filter((s) => s.name === 'get' || s.name === 'payment');
  if (chosen.length === 0) throw new Error(`unknown scenario; choose from ${SCENARIOS.map((s) => s.name).join(', ')}`);
  if (!pinned) process.stderr.write('note: taskset not available, server and wrk are not pinned\n');
  for (const scenario of chosen) {
    const runDir = await runScenario(scenario);
    try {
      console.log(`${report(runDir, top)}\n`);
    } finally {
      if (KEEP) console.log(`kept: ${runDir} (npm run bench:stages -- --analyze ${runDir})\n`);
      else rmSync(runDir, { recursive: true, force: true });
    }
  }
}

/** The Markdown that bench:stages prints: one kept run's stage table and thread figures, or several side by side. */
import type { Calibrated } from './profile.ts';
import { BUSY_STAGES, STAGES, type Stage } from './rules.ts';
import { loadRun, type Run } from './run.ts';

function fmt(n: number, digits = 1): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** One run: CPU µs/request per stage and thread, the threads' totals, the machine, and (`top` > 0) hot frames. */
export function report(runDir: string, top: number): string {
  const run = loadRun(runDir);
  const { meta, threads, requests, reqPerSec, windowUs, helpers, pool, rest } = run;
  const perReq = (us: number) => us / requests;
  const multi = threads.length > 1;
  const busyOf = (map: 'cpu' | 'off', t?: Calibrated) =>
    BUSY_STAGES.reduce((s, st) => s + (map === 'cpu' ? run.cpuOf(st, t) : run.offOf(st, t)), 0);
  const busyAll = run.busyCpu;

  const out: string[] = [];
  const { wrk } = meta;
  const bad = wrk.connect + wrk.read + wrk.write + wrk.status + wrk.timeout;
  out.push(`### ${meta.title}`);
  out.push('');
  const pinning = meta.pinned ? ', server on CPU 0, wrk on CPU 1' : ' (not pinned: no taskset)';
  const settings = Object.entries(meta.env).map(([k, v]) => `${k}=${v}`);
  const env = settings.length ? `; ${settings.join(' ')}` : '';
  out.push(
    `${meta.date}, commit ${meta.commit}, node ${meta.node}; ${meta.seconds} s, ${meta.connections} connections` +
      `${pinning}, sampling every ${meta.intervalUs} µs${env}.`,
  );
  const errors = bad
    ? `, **${bad} errors/non-2xx** (connect ${wrk.connect}, read ${wrk.read}, write ${wrk.write}, ` +
      `status ${wrk.status}, timeout ${wrk.timeout})`
    : '';
  out.push(
    `${requests.toLocaleString('en-US')} requests, **${fmt(reqPerSec, 0)} req/s**, ` +
      `p50 ${fmt(wrk.p50Us / 1000, 1)} ms, p99 ${fmt(wrk.p99Us / 1000, 1)} ms${errors}; ` +
      `log ${fmt(meta.logBytes / requests, 0)} bytes/request.`,
  );
  out.push('');
  const head = [
    ...(multi ? [...threads.map((t) => `${t.thread} CPU µs/req`), 'total CPU µs/req'] : ['CPU µs/req']),
    '% of busy CPU',
    'off-CPU µs/req',
  ];
  out.push(`| stage | ${head.join(' | ')} |`);
  out.push(`|---|${head.map(() => '---:').join('|')}|`);
  const cells = (pick: (t?: Calibrated) => number) =>
    multi ? [...threads.map((t) => fmt(perReq(pick(t)))), fmt(perReq(pick()))] : [fmt(perReq(pick()))];
  for (const stage of BUSY_STAGES) {
    const cpu = run.cpuOf(stage);
    const off = run.offOf(stage);
    if (cpu === 0 && off === 0) continue;
    const offCell = off >= 0.05 * requests ? fmt(perReq(off)) : '';
    const cpuCells = cells((t) => run.cpuOf(stage, t)).join(' | ');
    out.push(`| ${stage} | ${cpuCells} | ${fmt((100 * cpu) / busyAll)}% | ${offCell} |`);
  }
  const busyCells = cells((t) => busyOf('cpu', t)).map((c) => `**${c}**`);
  out.push(`| **busy total** | ${busyCells.join(' | ')} | 100% | ${fmt(perReq(busyOf('off')))} |`);
  const blank = multi ? threads.map(() => '') : [];
  const extra = (name: string, us: number) => out.push(`| ${name} | ${[...blank, fmt(perReq(us))].join(' | ')} | | |`);
  extra('V8 helper threads (GC, JIT; /proc)', helpers);
  extra('libuv threadpool (/proc)', pool);
  if (rest > 0.05 * requests) extra('other server threads and child processes (/proc)', rest);
  const serverCpu = `**${fmt(perReq(busyAll + helpers + pool + rest))}**`;
  out.push(`| **server CPU per request** | ${[...blank, serverCpu].join(' | ')} | | |`);
  out.push('');
  for (const t of threads) {
    const x = t.totals;
    if (!x) {
      out.push(`- ${t.thread} thread: no /proc figures for it; its column is profile time (CPU and off-CPU together).`);
      continue;
    }
    const covered = fmt((100 * (x.profiled + x.idleWall)) / windowUs, 0);
    out.push(
      `- ${t.thread} thread, µs/request: CPU ${fmt(perReq(x.cpu))} (/proc; ${fmt(perReq(x.idleCpu))} of it in ` +
        `(idle) samples), preempted ${fmt(perReq(x.preempted))} (run-queue wait), blocked in system calls ` +
        `${fmt(perReq(x.blocked))}, waiting for events ${fmt(perReq(x.idle))} ` +
        `(profile busy ${fmt(perReq(x.profiled))}, ${covered}% of the ${fmt(windowUs / 1e6, 2)} s window covered).`,
    );
  }
  const byName = new Map<string, number>();
  for (const t of meta.osThreads) {
    const name = t.tid === meta.pid ? 'main' : t.name;
    byName.set(name, (byName.get(name) ?? 0) + t.cpuUs);
  }
  const cpuTotal = [...byName.values()].reduce((a, b) => a + b, 0);
  if (meta.cpus) {
    const line = Object.entries(meta.cpus).map(([cpu, v]) => {
      const total = v.reduce((a, b) => a + b, 0) || 1;
      const pct = (i: number) => fmt((100 * (v[i] ?? 0)) / total, 0);
      const irq = fmt((100 * ((v[5] ?? 0) + (v[6] ?? 0))) / total, 0);
      return (
        `${cpu} user ${pct(0)}% system ${pct(2)}% irq+softirq ${irq}% idle ${pct(3)}% iowait ${pct(4)}% ` +
        `steal ${pct(7)}%`
      );
    });
    const cpu0 = meta.cpus['cpu0'];
    let others = '';
    if (cpu0 && meta.pinned && meta.clkTck) {
      // CPU 0 holds every server thread but the profiler's: what else ran there (other processes, kernel
      // threads, interrupts)?
      const used = ((cpu0[0]! + cpu0[1]! + cpu0[2]! + cpu0[5]! + cpu0[6]!) * 1e6) / meta.clkTck;
      const server = meta.osThreads
        .filter((t) => !t.name.startsWith('v8:ProfEvntProc'))
        .reduce((sum, t) => sum + t.cpuUs, 0);
      others =
        " CPU 0 time not used by the server's threads (other processes, kernel threads, interrupts): " +
        `${fmt(perReq(Math.max(0, used - server)))} µs/request.`;
    }
    out.push(`- Machine during the window (/proc/stat): ${line.join('; ')}.${others}`);
  }
  const perThread = [...byName]
    .filter(([, us]) => us > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([n, us]) => `${n} ${fmt(perReq(us))}`);
  out.push(`- CPU of every server thread (/proc), µs/request: ${perThread.join(', ')}; all ${fmt(perReq(cpuTotal))}.`);

  if (top > 0) {
    out.push('');
    out.push(
      `Top ${top} frames per stage (leaf ← frame that decided the stage), profile µs/request ` +
        '(CPU and off-CPU together):',
    );
    const merged = new Map<string, number>();
    for (const t of threads) {
      for (const [key, us] of t.frames) {
        const k = multi ? `${key}\t${t.thread}` : key;
        merged.set(k, (merged.get(k) ?? 0) + us);
      }
    }
    for (const stage of STAGES) {
      const rows = [...merged]
        .filter(([k]) => k.startsWith(`${stage}\t`))
        .sort((a, b) => b[1] - a[1])
        .slice(0, top);
      if (rows.length === 0) continue;
      out.push(`  ${stage}:`);
      for (const [key, us] of rows) {
        const [, leaf, at, thread] = key.split('\t');
        // Where in the leaf function the samples fell, when it has more than one hot line (e.g. BEGIN vs COMMIT).
        const perLine = threads.find((t) => !thread || t.thread === thread)?.lines.get(leaf!);
        const total = perLine ? [...perLine.values()].reduce((a, b) => a + b, 0) : 0;
        const hotLines =
          perLine && perLine.size > 1
            ? [...perLine]
                .sort((a, b) => b[1] - a[1])
                .slice(0, 3)
                .map(([line, n]) => `${line}: ${fmt((100 * n) / total, 0)}%`)
            : [];
        const hot = hotLines.length ? `  {lines ${hotLines.join(', ')}}` : '';
        out.push(
          `    ${fmt(perReq(us), 2).padStart(8)}  ${leaf}${at !== leaf ? `  ←  ${at}` : ''}` +
            `${thread ? `  [${thread}]` : ''}${hot}`,
        );
      }
    }
  }
  return out.join('\n');
}

/** Several kept runs side by side: CPU µs/request per stage (all profiled threads), then the totals. */
export function compare(runDirs: string[]): string {
  const runs = runDirs.map(loadRun);
  const per = (run: Run, us: number) => fmt(us / run.requests);
  const row = (name: string, cell: (run: Run) => string) => `| ${name} | ${runs.map(cell).join(' | ')} |`;
  const out: string[] = [];
  out.push(row('stage', (r) => `${r.meta.scenario} ${r.meta.commit.split(' ')[0]} ${r.meta.date.slice(11, 16)}`));
  out.push(`|---|${runs.map(() => '---:').join('|')}|`);
  for (const stage of BUSY_STAGES) {
    if (runs.every((r) => r.cpuOf(stage) < 0.05 * r.requests)) continue;
    out.push(row(stage, (r) => per(r, r.cpuOf(stage))));
  }
  out.push(row('**busy CPU, profiled threads**', (r) => `**${per(r, r.busyCpu)}**`));
  out.push(row('V8 helper threads (GC, JIT)', (r) => per(r, r.helpers)));
  out.push(row('libuv threadpool', (r) => per(r, r.pool)));
  if (runs.some((r) => r.rest >= 0.05 * r.requests))
    out.push(row('other server threads and child processes', (r) => per(r, r.rest)));
  out.push(row('**server CPU per request**', (r) => `**${per(r, r.busyCpu + r.helpers + r.pool + r.rest)}**`));
  out.push(
    row('off-CPU while busy (preempted, blocked), profiled threads', (r) =>
      per(
        r,
        BUSY_STAGES.reduce((sum, st) => sum + r.offOf(st), 0),
      ),
    ),
  );
  for (const name of ['store', 'idempotency', 'transport', 'GC'] as Stage[]) {
    if (runs.some((r) => r.offOf(name) >= 1 * r.requests)) {
      out.push(row(`… of which in ${name}`, (r) => per(r, r.offOf(name))));
    }
  }
  out.push(
    row('main thread blocked in system calls', (r) =>
      r.threads[0]?.totals ? per(r, r.threads[0].totals.blocked) : '',
    ),
  );
  out.push(row('req/s', (r) => fmt(r.reqPerSec, 0)));
  out.push(row('p99 ms', (r) => fmt(r.meta.wrk.p99Us / 1000)));
  return out.join('\n');
}

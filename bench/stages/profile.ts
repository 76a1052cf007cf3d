/** One thread's V8 CPU profile charged to stages (rules.ts), then split into CPU and off-CPU time from /proc. */
import { BUSY_STAGES, label, matchRule, shortUrl, type CallFrame, type Stage } from './rules.ts';

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  positionTicks?: Array<{ line: number; ticks: number }>;
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One OS thread of the server during the window (/proc/<pid>/task/<tid>). */
export interface OsThread {
  tid: number;
  name: string;
  cpuUs: number;
  runDelayUs: number;
}

export interface ThreadResult {
  thread: string;
  /** Time per stage inside the window, as the samples carry it: on the CPU or not. */
  wall: Map<Stage, number>;
  /** Per stage, the part of long sample intervals beyond GAP × the sampling interval: the thread off the CPU. */
  gaps: Map<Stage, number>;
  /** Wall µs per "stage \t leaf \t matched frame". */
  frames: Map<string, number>;
  /** Per leaf label, the samples per source line (positionTicks: whole profile, not only the window). */
  lines: Map<string, Map<number, number>>;
  samples: number;
}

/**
 * Time accounting. A sample is charged the time since the previous one (its timeDelta). V8 samples a thread
 * by signalling it, so a thread that is off the CPU — preempted by another thread on the same CPU (V8's GC and
 * compiler helpers, the profiler's own thread, a back-end worker) or blocked in a system call such as the
 * fsync under COMMIT — is sampled only when it runs again, with the stack it stopped in, and that sample
 * carries a long interval. The profile alone therefore gives event-loop time, not CPU time. The thread's
 * real CPU time, run-queue wait and idle time are known (/proc schedstat, the (idle) samples), so the
 * off-CPU total is exact; it is spread over the stages in proportion to their long-interval excess
 * (beyond GAP × the sampling interval) and subtracted: each stage's CPU = its time − its off-CPU share.
 */
const GAP = 1.5;

/** Charges each sample inside `window` to a stage; `root` is the checkout the profiled server ran from. */
export function analyzeProfile(
  profile: CpuProfile,
  thread: string,
  window: { startUs: number; endUs: number },
  intervalUs: number,
  root: string,
): ThreadResult {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const memo = new Map<number, { stage: Stage; at: ProfileNode }>();
  const attribute = (leafId: number) => {
    const known = memo.get(leafId);
    if (known) return known;
    let weak: { stage: Stage; at: ProfileNode } | undefined;
    let found: { stage: Stage; at: ProfileNode } | undefined;
    for (let id: number | undefined = leafId; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id)!;
      const rule = matchRule(node.callFrame, root);
      if (!rule) continue;
      let stage = rule.stage;
      if (rule.within) {
        for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
          const url = shortUrl(byId.get(up)!.callFrame, root);
          const hit = rule.within.find((w) => w.url.test(url));
          if (hit) {
            stage = hit.stage;
            break;
          }
        }
      }
      if (!rule.weak) {
        found = { stage, at: node };
        break;
      }
      weak ??= { stage, at: node };
      if (rule.boundary) break;
    }
    const result = found ?? weak ?? { stage: 'other' as Stage, at: byId.get(leafId)! };
    memo.set(leafId, result);
    return result;
  };

  const wall = new Map<Stage, number>();
  const gaps = new Map<Stage, number>();
  const frames = new Map<string, number>();
  const add = <K>(map: Map<K, number>, key: K, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  let samples = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    const from = t;
    t += delta;
    const overlap = Math.min(t, window.endUs) - Math.max(from, window.startUs);
    if (overlap <= 0) continue;
    samples += 1;
    const leafId = profile.samples[i]!;
    const { stage, at } = attribute(leafId);
    add(wall, stage, overlap);
    if (delta > GAP * intervalUs) add(gaps, stage, (overlap * (delta - GAP * intervalUs)) / delta);
    add(frames, `${stage}\t${label(byId.get(leafId)!.callFrame, root)}\t${label(at.callFrame, root)}`, overlap);
  }
  const lines = new Map<string, Map<number, number>>();
  for (const node of profile.nodes) {
    if (!node.positionTicks?.length || shortUrl(node.callFrame, root).startsWith('(')) continue;
    const key = label(node.callFrame, root);
    const perLine = lines.get(key) ?? new Map<number, number>();
    for (const { line, ticks } of node.positionTicks) perLine.set(line, (perLine.get(line) ?? 0) + ticks);
    lines.set(key, perLine);
  }
  return { thread, wall, gaps, frames, lines, samples };
}

/** A profiled thread with its stages split into CPU and off-CPU time. */
export interface Calibrated {
  thread: string;
  cpu: Map<Stage, number>;
  off: Map<Stage, number>;
  /** Totals over the window, µs: CPU, run-queue wait (preempted), blocked in system calls, idle. */
  totals: {
    cpu: number;
    preempted: number;
    blocked: number;
    idle: number;
    idleCpu: number;
    profiled: number;
    idleWall: number;
  } | null;
  frames: Map<string, number>;
  lines: Map<string, Map<number, number>>;
  os: OsThread | undefined;
}

/** Splits a thread's stage times into CPU and off-CPU by its /proc figures; without them, all is taken as CPU. */
export function calibrate(result: ThreadResult, os: OsThread | undefined): Calibrated {
  const wallBusy = BUSY_STAGES.reduce((sum, s) => sum + (result.wall.get(s) ?? 0), 0);
  const idle = result.wall.get('idle') ?? 0;
  const cpu = new Map<Stage, number>();
  const off = new Map<Stage, number>();
  if (!os) {
    for (const s of BUSY_STAGES) cpu.set(s, result.wall.get(s) ?? 0);
    return { thread: result.thread, cpu, off, totals: null, frames: result.frames, lines: result.lines, os };
  }
  // The thread's time in the window: running (C), runnable but preempted (R), sleeping (S). Sleeping is either
  // the event loop waiting in epoll (E, inside (idle) samples: an interruptible wait is sampled on time) or
  // blocked in a system call inside a stage (B, e.g. fsync). Taking E as large as the (idle) samples allow
  // gives the smallest B. The rest of the (idle) samples is the event loop's native work outside JavaScript
  // (libuv polling and socket I/O: V8 marks it idle), running or preempted in proportion to C and R.
  const C = os.cpuUs;
  const R = os.runDelayUs;
  const S = Math.max(0, wallBusy + idle - C - R);
  const E = Math.min(S, idle);
  const B = S - E;
  const idleActive = idle - E;
  const idleCpu = C + R > 0 ? (idleActive * C) / (C + R) : 0;
  const offTotal = Math.min(wallBusy, B + R - (idleActive - idleCpu));
  if (idleCpu > 0) cpu.set('event-loop I/O (native)', idleCpu);
  // Spread offTotal in proportion to the gaps; a stage cannot give more than its whole time, and what it
  // cannot take goes to the others (repeat until every stage's share fits).
  const capped = new Set<Stage>();
  for (;;) {
    let left = offTotal;
    for (const s of capped) left -= result.wall.get(s) ?? 0;
    const open = BUSY_STAGES.filter((s) => !capped.has(s));
    const gapOpen = open.reduce((sum, s) => sum + (result.gaps.get(s) ?? 0), 0);
    const factor = gapOpen > 0 ? Math.max(0, left) / gapOpen : 0;
    const over = open.filter((s) => (result.gaps.get(s) ?? 0) * factor > (result.wall.get(s) ?? 0));
    if (over.length > 0) {
      for (const s of over) capped.add(s);
      continue;
    }
    for (const s of BUSY_STAGES) {
      if (s === 'event-loop I/O (native)') continue;
      const wall = result.wall.get(s) ?? 0;
      const share = capped.has(s) ? wall : (result.gaps.get(s) ?? 0) * factor;
      cpu.set(s, wall - share);
      if (share > 0) off.set(s, share);
    }
    break;
  }
  return {
    thread: result.thread,
    cpu,
    off,
    frames: result.frames,
    lines: result.lines,
    os,
    totals: { cpu: C, preempted: R, blocked: B, idle: E, idleCpu, profiled: wallBusy, idleWall: idle },
  };
}

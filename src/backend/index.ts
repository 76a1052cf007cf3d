/**
 * The back-end transaction system: takes messages (CBHDR header + request record) as bytes, runs each
 * transaction's program as one unit of the store's group (BackendStore.group: on SQLite a savepoint of one
 * group-committed transaction, on PostgreSQL a transaction of its own), and answers with messages as bytes
 * once its changes are durable.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { parseRole, type Caller } from './caller.ts';
import {
  isTranCode, loadLinkCatalog, loadMessageCatalog, READ_ONLY_TRANSACTIONS, SYSTEM_TRANSACTIONS, type LinkedProgramName, type MessageCatalog,
  type RequestRecord, type TranCode,
} from './copybooks/index.ts';
import { LINK_FAILURE, LinkFailure, linkMessage, NeedsLink, readLinkReply, runLocalProgram, type LinkHost } from './links.ts';
import { BLANK_HEADER, encodeSegments, RC, readHeader, segmentReader, writeMessage, type MessageHeader } from './message.ts';
import type { LinkRequestRecord, LinkResponseRecord, Program, ProgramReply } from './program.ts';
import { PROGRAMS } from './programs/index.ts';
import { traceLogFields } from '../observability/trace-log.ts';
import { isoNow } from '../iso-time.ts';
import { openBackendStore, type StoreLocation } from './store/open.ts';
import { STORE_UNAVAILABLE, StoreUnavailableError, type Tx } from './store/tx.ts';

export interface Backend {
  /** Handles one message; never rejects — failures come back as return codes. */
  handle(message: Buffer): Promise<Buffer>;
  /**
   * Handles several messages as one group (BackendStore.group: one commit for all on SQLite), and
   * answers, in order, only once their changes are durable. A message whose program links to a program
   * in another process (src/backend/links.ts) is answered later: its place holds a promise.
   */
  handleBatch(messages: readonly Buffer[]): Promise<Array<Buffer | Promise<Buffer>>>;
  /** Resolves once no answer is waiting for a linked program. */
  idle(): Promise<void>;
  /**
   * A read-only instance reads every inquiry of an event-loop turn from one snapshot; this ends it, so the
   * next inquiry sees every write answered until now. Call it when a write's answer arrives.
   */
  refresh(): void;
  /** Can it serve (database answering, and a program host running where one is used)? */
  ready(): Promise<boolean>;
  /** Closes the store at once, then the program host (its processes finish their calls and end). */
  close(): Promise<void>;
}

export interface BackendOptions extends StoreLocation {
  log: Logger;
  /** Load the demo data when the store is new (default true). */
  seedWhenEmpty?: boolean;
  /**
   * Serve inquiries only, from a read-only connection to a store another back-end instance owns (and has
   * migrated); any other transaction is refused.
   */
  readOnly?: boolean;
  catalog?: MessageCatalog;
  /** Linked programs that run in another process (the COBOL program host), and how to reach it. */
  linkHost?: { programs: ReadonlySet<LinkedProgramName>; host: LinkHost };
}

/** A program that keeps needing new answers from a linked program (its data keeps changing) gives up. */
const MAX_LINK_ROUNDS = 3;

/** The program of a transaction, typed by it: PROGRAMS ties each code to the program of its records. */
function programOf<T extends TranCode>(tran: T): Program<T> {
  return PROGRAMS[tran];
}

export function backendFile(dataDir: string): string {
  return join(dataDir, 'backend.sqlite');
}

/** Signals that a program refused: the transaction rolls back, the reply still goes out. */
class Refusal {
  readonly reply: ProgramReply;
  constructor(reply: ProgramReply) {
    this.reply = reply;
  }
}

export async function createBackend(options: BackendOptions): Promise<Backend> {
  const catalog = options.catalog ?? loadMessageCatalog();
  const readOnlyInstance = options.readOnly === true;
  const store = await openBackendStore(options, { log: options.log, readOnly: readOnlyInstance, seedWhenEmpty: options.seedWhenEmpty !== false });
  const rootLog = options.log.child({ component: 'backend' });
  const linkCatalog = loadLinkCatalog();
  const linkHost = options.linkHost;
  const linksInFlight = new Set<Promise<Buffer>>();

  function answer(header: MessageHeader, reply: ProgramReply): Buffer {
    const out: MessageHeader = {
      ...header,
      returnCode: reply.returnCode,
      reasonCode: reply.reasonCode ?? '',
      reasonText: (reply.reasonText ?? '').slice(0, 120),
    };
    const layout = isTranCode(header.tranCode) && reply.body ? catalog.response(header.tranCode) : null;
    const message = writeMessage(catalog, out, layout, reply.body);
    return layout && reply.segments?.length ? Buffer.concat([message, ...encodeSegments(catalog, reply.segments)]) : message;
  }

  /** A message read and checked, ready to run; or already answered (unreadable, unknown, bad caller). */
  type Job =
    | { header: MessageHeader; reply: ProgramReply }
    | {
      header: MessageHeader; tran: TranCode; caller: Caller; request: RequestRecord<TranCode>; reply?: undefined;
      /** The bytes after a fixed-length request record: its segments. */
      segments: Buffer;
      /** The link its last run could not make here. */
      needs?: NeedsLink;
      /** Answers of links made for it elsewhere, for its next run. */
      answered?: Array<{ request: Buffer; reply: Buffer }>;
    };
  type RunnableJob = Extract<Job, { tran: TranCode }>;

  function prepare(message: Buffer): Job {
    let header: MessageHeader;
    let body: Buffer;
    try {
      ({ header, body } = readHeader(catalog, message));
    } catch (error) {
      rootLog.error({ err: error }, 'unreadable message header');
      // answer() fills in the return and reason codes.
      return { header: { ...BLANK_HEADER }, reply: { returnCode: RC.INVALID_INPUT, reasonCode: 'MALFORMED_HEADER', reasonText: 'unreadable header' } };
    }
    const tran = header.tranCode;
    if (!isTranCode(tran)) {
      return { header, reply: { returnCode: RC.UNKNOWN_TRAN, reasonCode: 'UNKNOWN_TRANSACTION', reasonText: `unknown transaction ${tran}` } };
    }
    if (readOnlyInstance && !READ_ONLY_TRANSACTIONS.has(tran)) {
      rootLog.error({ requestId: header.correlationId, tran }, 'a change was sent to a read-only back-end');
      return { header, reply: { returnCode: RC.ABEND, reasonCode: 'READ_ONLY_BACKEND', reasonText: 'this back-end instance serves inquiries only' } };
    }
    const role = parseRole(header.role);
    // The service's own transactions (event relay, webhook dispatcher, operation runner) take the SYSTEM caller, and it nothing else.
    const callerFits = role !== undefined && (role === 'SYSTEM') === SYSTEM_TRANSACTIONS.has(tran);
    if (!role || !callerFits || !header.principal || (role === 'CUSTOMER' && !header.customerId)) {
      return { header, reply: { returnCode: RC.INVALID_INPUT, reasonCode: 'INVALID_CALLER', reasonText: 'the header names no valid caller' } };
    }
    const caller: Caller = { principal: header.principal, role, customerId: role === 'CUSTOMER' ? header.customerId : null };
    try {
      const layout = catalog.request(tran);
      const fixed = layout.minLength === layout.maxLength && body.length > layout.maxLength;
      // The one place a program's request record meets its type: the layout of the transaction's request
      // copybook decoded it, and records.ts is generated from the same copybook.
      const request = layout.decode(fixed ? body.subarray(0, layout.maxLength) : body) as unknown as RequestRecord<TranCode>;
      return { header, tran, caller, request, segments: fixed ? body.subarray(layout.maxLength) : Buffer.alloc(0) };
    } catch (error) {
      rootLog.warn({ err: error, requestId: header.correlationId, tran }, 'malformed request record');
      return { header, reply: { returnCode: RC.INVALID_INPUT, reasonCode: 'MALFORMED_RECORD', reasonText: 'the request record does not match its copybook' } };
    }
  }

  // A child logger per transaction costs an allocation per call: only made when debug lines are wanted.
  function programLog(header: MessageHeader): Logger {
    return rootLog.isLevelEnabled('debug') ? rootLog.child({ requestId: header.correlationId, tran: header.tranCode, ...traceLogFields(header.traceparent) }) : rootLog;
  }

  function link<P extends LinkedProgramName>(job: RunnableJob, program: P, record: LinkRequestRecord<P>): LinkResponseRecord<P> {
    const message = linkMessage(linkCatalog, program, job.header, record);
    const earlier = job.answered?.find((a) => a.request.equals(message));
    if (earlier) return readLinkReply(linkCatalog, program, earlier.reply);
    if (linkHost?.programs.has(program)) throw new NeedsLink(program, message);
    return readLinkReply(linkCatalog, program, runLocalProgram(linkCatalog, message));
  }

  async function runProgram(tx: Tx, job: RunnableJob): Promise<ProgramReply> {
    const reply = await programOf(job.tran)(
      {
        tx, tranCode: job.tran, caller: job.caller, correlationId: job.header.correlationId, traceparent: job.header.traceparent,
        idempotencyKey: job.header.idempotencyKey, now: isoNow(), log: programLog(job.header),
        link: (program, record) => link(job, program, record),
        segment: segmentReader(catalog, job.segments),
      },
      job.request,
    );
    // Only OK and business REJECTED outcomes keep their writes: anything else rolls back its savepoint.
    if (reply.returnCode !== RC.OK && reply.returnCode !== RC.REJECTED) throw new Refusal(reply);
    return reply;
  }

  const ABEND: ProgramReply = { returnCode: RC.ABEND, reasonCode: 'ABEND', reasonText: 'internal error' };

  /** Runs the runnable jobs as one group and fills in their replies. */
  async function runGroup(jobs: Job[]): Promise<void> {
    const runnable = jobs.filter((j): j is RunnableJob => j.reply === undefined);
    if (runnable.length === 0) return;
    const readOnly = runnable.every((j) => READ_ONLY_TRANSACTIONS.has(j.tran));
    let results;
    try {
      results = await store.group(runnable, runProgram, { readOnly });
    } catch (error) {
      // The commit failed: nothing of the group was kept, so no one may be told it was.
      rootLog.error({ err: error, size: runnable.length }, 'group commit failed');
      for (const job of runnable) (job as Job).reply = ABEND;
      return;
    }
    results.forEach((result, i) => {
      const job = runnable[i]! as Job;
      if (result.ok) job.reply = result.value;
      else if (result.error instanceof Refusal) job.reply = result.error.reply;
      else if (result.error instanceof NeedsLink) (job as RunnableJob).needs = result.error;
      else if (result.error instanceof StoreUnavailableError) {
        rootLog.error({ err: result.error, requestId: job.header.correlationId, tran: job.header.tranCode }, 'database unavailable');
        job.reply = { returnCode: RC.ABEND, reasonCode: STORE_UNAVAILABLE, reasonText: 'the database is not available' };
      }
      else if (result.error instanceof LinkFailure) {
        rootLog.error({ err: result.error, requestId: job.header.correlationId, tran: job.header.tranCode }, 'linked program failed');
        job.reply = { returnCode: RC.ABEND, reasonCode: result.error.reason, reasonText: 'a program of this transaction did not complete' };
      } else {
        rootLog.error({ err: result.error, requestId: job.header.correlationId, tran: job.header.tranCode }, 'transaction abended');
        job.reply = ABEND;
      }
    });
  }

  function encode(job: Job, started: number): Buffer {
    let reply = job.reply ?? ABEND;
    let out: Buffer;
    try {
      out = answer(job.header, reply);
    } catch (error) {
      rootLog.error({ err: error, requestId: job.header.correlationId, tran: job.header.tranCode }, 'response record could not be encoded');
      reply = ABEND;
      out = answer(job.header, reply);
    }
    if (rootLog.isLevelEnabled('debug')) {
      rootLog.debug(
        {
          requestId: job.header.correlationId, tran: job.header.tranCode, rc: reply.returnCode, reason: reply.reasonCode || undefined,
          ms: Math.round((performance.now() - started) * 100) / 100, ...traceLogFields(job.header.traceparent),
        },
        'transaction ended',
      );
    }
    return out;
  }

  /** Makes the links a job asked for, running it again after each answer, until it completes. */
  async function completeWithLinks(job: RunnableJob, started: number): Promise<Buffer> {
    for (let round = 1; job.needs; round++) {
      const { program, message } = job.needs;
      job.needs = undefined;
      if (round > MAX_LINK_ROUNDS) {
        (job as Job).reply = { returnCode: RC.CONFLICT, reasonCode: 'CHANGED_DURING_DECISION', reasonText: 'the data this transaction reads kept changing; try again' };
        break;
      }
      let reply: Buffer;
      try {
        if (!linkHost!.host.available()) throw new Error(`no host for ${program} is running`);
        reply = await linkHost!.host.call(message);
      } catch (error) {
        const reason = (error as { timedOut?: unknown }).timedOut === true ? LINK_FAILURE.TIMEOUT : LINK_FAILURE.UNAVAILABLE;
        rootLog.error({ err: error, requestId: job.header.correlationId, tran: job.tran, program }, 'linked program could not be called');
        (job as Job).reply = { returnCode: RC.ABEND, reasonCode: reason, reasonText: 'a program of this transaction is not available' };
        break;
      }
      (job.answered ??= []).push({ request: message, reply });
      await runAgain(job);
    }
    return encode(job, started);
  }

  // Jobs whose link answers came in during one turn run again together: one group commit, one fsync.
  let again: Array<{ job: RunnableJob; done(): void }> = [];
  function runAgain(job: RunnableJob): Promise<void> {
    return new Promise((done) => {
      if (again.length === 0) setImmediate(() => void runAgainNow());
      again.push({ job, done });
    });
  }
  async function runAgainNow(): Promise<void> {
    const batch = again;
    again = [];
    await runGroup(batch.map((b) => b.job));
    for (const b of batch) b.done();
  }

  async function handleBatch(messages: readonly Buffer[]): Promise<Array<Buffer | Promise<Buffer>>> {
    const started = performance.now();
    const jobs = messages.map(prepare);
    await runGroup(jobs);
    return jobs.map((job) => {
      if (job.reply !== undefined || !job.needs) return encode(job, started);
      const answer = completeWithLinks(job, started);
      linksInFlight.add(answer);
      void answer.finally(() => linksInFlight.delete(answer));
      return answer;
    });
  }

  return {
    handle: async (message) => (await handleBatch([message]))[0]!,
    handleBatch,
    idle: async () => {
      while (linksInFlight.size > 0) await Promise.allSettled([...linksInFlight]);
    },
    refresh: () => store.refresh(),
    ready: async () => (!linkHost || linkHost.host.available()) && store.ready(),
    close: async () => {
      await store.close();
      await linkHost?.host.close();
    },
  };
}

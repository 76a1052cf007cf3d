/**
 * The back-end transaction system: takes a message (CBHDR header + request record) as bytes, runs the
 * transaction's program in one database transaction, and answers with a message as bytes.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { parseRole, type Caller } from './caller.ts';
import { isTranCode, loadMessageCatalog, READ_ONLY_TRANSACTIONS, type MessageCatalog } from './copybooks/index.ts';
import { RC, readHeader, writeMessage, type MessageHeader } from './message.ts';
import type { ProgramReply } from './program.ts';
import { PROGRAMS } from './programs/index.ts';
import { isEmpty, seedDemoData } from './store/seed.ts';
import { SqliteDatabase } from './store/sqlite.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./store/migrations/', import.meta.url));

export interface Backend {
  /** Handles one message; never throws — failures come back as return codes. */
  handle(message: Buffer): Buffer;
  /**
   * Handles several messages as one group commit: each runs in its own savepoint, all commit together
   * (one fsync), and the answers are returned, in order, only after that commit is durable.
   */
  handleBatch(messages: readonly Buffer[]): Buffer[];
  /** Can it serve (database open and answering)? */
  ready(): boolean;
  close(): void;
}

export interface BackendOptions {
  /** SQLite file, usually DATA_DIR/backend.sqlite. */
  file: string;
  log: Logger;
  /** Load the demo data when the store is new (default true). */
  seedWhenEmpty?: boolean;
  catalog?: MessageCatalog;
}

export function backendFile(dataDir: string): string {
  return join(dataDir, 'backend.sqlite');
}

/** Opens (and migrates) the store. */
export function openBackendStore(file: string): SqliteDatabase {
  const db = new SqliteDatabase(file);
  db.migrate(MIGRATIONS_DIR);
  return db;
}

/** Signals that a program refused: the transaction rolls back, the reply still goes out. */
class Refusal {
  readonly reply: ProgramReply;
  constructor(reply: ProgramReply) {
    this.reply = reply;
  }
}

export function createBackend(options: BackendOptions): Backend {
  const catalog = options.catalog ?? loadMessageCatalog();
  const db = openBackendStore(options.file);
  if (options.seedWhenEmpty !== false && isEmpty(db)) seedDemoData(db);
  const rootLog = options.log.child({ component: 'backend' });

  function answer(header: MessageHeader, reply: ProgramReply): Buffer {
    const out: MessageHeader = {
      ...header,
      returnCode: reply.returnCode,
      reasonCode: reply.reasonCode ?? '',
      reasonText: (reply.reasonText ?? '').slice(0, 120),
    };
    const layout = isTranCode(header.tranCode) && reply.body ? catalog.response(header.tranCode) : null;
    return writeMessage(catalog, out, layout, reply.body);
  }

  function handle(message: Buffer): Buffer {
    const started = performance.now();
    let header: MessageHeader;
    let body: Buffer;
    try {
      ({ header, body } = readHeader(catalog, message));
    } catch (error) {
      rootLog.error({ err: error }, 'unreadable message header');
      const blank: MessageHeader = {
        tranCode: '', correlationId: '', principal: '', role: '', customerId: '', idempotencyKey: '',
        returnCode: RC.ABEND, reasonCode: 'MALFORMED_HEADER', reasonText: '',
      };
      return answer(blank, { returnCode: RC.INVALID_INPUT, reasonCode: 'MALFORMED_HEADER', reasonText: 'unreadable header' });
    }
    const log = rootLog.child({ requestId: header.correlationId, tran: header.tranCode });
    let reply: ProgramReply;
    try {
      reply = run(header, body, log);
    } catch (error) {
      log.error({ err: error }, 'transaction abended');
      reply = { returnCode: RC.ABEND, reasonCode: 'ABEND', reasonText: 'internal error' };
    }
    let out: Buffer;
    try {
      out = answer(header, reply);
    } catch (error) {
      log.error({ err: error }, 'response record could not be encoded');
      reply = { returnCode: RC.ABEND, reasonCode: 'ABEND', reasonText: 'internal error' };
      out = answer(header, reply);
    }
    log.info(
      { rc: reply.returnCode, reason: reply.reasonCode || undefined, ms: Math.round((performance.now() - started) * 100) / 100 },
      'transaction ended',
    );
    return out;
  }

  function run(header: MessageHeader, body: Buffer, log: Logger): ProgramReply {
    const tran = header.tranCode;
    if (!isTranCode(tran)) return { returnCode: RC.UNKNOWN_TRAN, reasonCode: 'UNKNOWN_TRANSACTION', reasonText: `unknown transaction ${tran}` };
    const role = parseRole(header.role);
    if (!role || !header.principal || (role === 'CUSTOMER' && !header.customerId)) {
      return { returnCode: RC.INVALID_INPUT, reasonCode: 'INVALID_CALLER', reasonText: 'the header names no valid caller' };
    }
    const caller: Caller = { principal: header.principal, role, customerId: role === 'CUSTOMER' ? header.customerId : null };
    let request: Record<string, unknown>;
    try {
      request = catalog.request(tran).decode(body);
    } catch (error) {
      log.warn({ err: error }, 'malformed request record');
      return { returnCode: RC.INVALID_INPUT, reasonCode: 'MALFORMED_RECORD', reasonText: 'the request record does not match its copybook' };
    }
    const program = PROGRAMS[tran];
    try {
      return db.transaction((tx) => {
        const reply = program(
          { tx, tranCode: tran, caller, correlationId: header.correlationId, idempotencyKey: header.idempotencyKey, now: new Date().toISOString(), log },
          request,
        );
        // Only OK and business REJECTED outcomes keep their writes.
        if (reply.returnCode !== RC.OK && reply.returnCode !== RC.REJECTED) throw new Refusal(reply);
        return reply;
      }, { readOnly: READ_ONLY_TRANSACTIONS.has(tran) });
    } catch (error) {
      if (error instanceof Refusal) return error.reply;
      throw error;
    }
  }

  return {
    handle,
    handleBatch: (messages) => messages.map(handle),
    ready: () => {
      try {
        db.statement('SELECT 1').get();
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.close(),
  };
}

/**
 * The back-end transaction system: takes messages (CBHDR header + request record) as bytes, runs each call's
 * program as one unit of a store group, and answers with messages once the group's changes are durable.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { callCodec } from './calls.ts';
import { loadLinkCatalog, loadMessageCatalog, type LinkedProgramName, type MessageCatalog } from './copybooks/index.ts';
import { callRunner } from './dispatch.ts';
import { groupRunner } from './group-runner.ts';
import { linkCoordinator } from './link-coordinator.ts';
import { linkResolver, type LinkHost } from './links.ts';
import { SEED_COMMAND } from '../settings/production-mode.ts';
import { openBackendStore, type StoreLocation } from './store/open.ts';
import { isEmpty } from './store/seed.ts';

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
  /** Load the demo data when the store is new (default true); when false, an empty store is said in the log. */
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

export function backendFile(dataDir: string): string {
  return join(dataDir, 'backend.sqlite');
}

export async function createBackend(options: BackendOptions): Promise<Backend> {
  const catalog = options.catalog ?? loadMessageCatalog();
  const readOnly = options.readOnly === true;
  const seedWhenEmpty = options.seedWhenEmpty !== false;
  const store = await openBackendStore(options, { log: options.log, readOnly, seedWhenEmpty });
  const log = options.log.child({ component: 'backend' });
  const linkHost = options.linkHost;
  // Production mode: an operator who sees no data learns why, and which command loads the demo data.
  if (!seedWhenEmpty && !readOnly && (await store.transaction(isEmpty))) {
    log.info(
      { command: SEED_COMMAND },
      `back-end store is empty and the demo data is not loaded in production mode: load data with ${SEED_COMMAND}`,
    );
  }

  const codec = callCodec(catalog, { log, readOnly });
  const run = callRunner(catalog, { log, link: linkResolver(loadLinkCatalog(), linkHost?.programs) });
  const runGroup = groupRunner(store, run, log);
  const links = linkCoordinator({ host: linkHost?.host, runGroup, codec, log });

  async function handleBatch(messages: readonly Buffer[]): Promise<Array<Buffer | Promise<Buffer>>> {
    const started = performance.now();
    const calls = messages.map(codec.read);
    await runGroup(calls);
    return calls.map((call) =>
      call.tran !== undefined && call.reply === undefined && call.needs
        ? links.complete(call, started)
        : codec.write(call, started),
    );
  }

  return {
    handle: async (message) => (await handleBatch([message]))[0]!,
    handleBatch,
    idle: () => links.idle(),
    refresh: () => store.refresh(),
    ready: async () => (!linkHost || linkHost.host.available()) && store.ready(),
    close: async () => {
      await store.close();
      await linkHost?.host.close();
    },
  };
}

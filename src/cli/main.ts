/** The `corebridge` command: dispatches to subcommands; every failure is a message on stderr and a non-zero exit. */
import { ConfigError } from '../settings/schema.ts';
import { asksForHelp } from './help.ts';
import { UsageError, type Io } from './usage.ts';

interface CommandModule {
  /** The command's own usage, for `corebridge <command> --help`. */
  usage: string;
  run(args: string[], io: Io): Promise<number>;
}

interface Command {
  /** Its lines under "Commands:" in the top-level usage. */
  summary: readonly string[];
  /** Imported only when the command runs, so each command loads its own modules and no other's. */
  load(): Promise<CommandModule>;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  copybook: {
    summary: [
      'copybook inspect FILE.cpy [--json | --json-schema]   fields: JSON path, COBOL name, offset, length, usage/picture',
      "copybook types   FILE.cpy                            TypeScript interface of the record's JSON form",
      'copybook encode  FILE.cpy [--binary]                 JSON on stdin → record (lowercase hex, or raw with --binary)',
      'copybook decode  FILE.cpy [--binary]                 record (hex, or raw with --binary) on stdin → JSON',
    ],
    load: async () => {
      const m = await import('@corebridge/records/cli');
      return { usage: m.COPYBOOK_USAGE, run: (args, io) => m.copybookCommand(args, io) };
    },
  },
  dataset: {
    summary: [
      'dataset decode   LAYOUT.cpy [--input FILE]           a file of records (F, FB, V, VB) → JSON Lines (dataset --help)',
      'dataset encode   LAYOUT.cpy --output FILE            JSON Lines → a file of records, byte for byte',
      'dataset verify   LAYOUT.cpy [--input FILE]           does the file match the layout? if not, hints that would',
    ],
    load: async () => {
      const m = await import('./dataset.ts');
      return { usage: m.DATASET_USAGE, run: m.datasetCommand };
    },
  },
  services: {
    summary: [
      'services check   DIR                                 check the service files in DIR as startup does (SERVICES_DIR)',
    ],
    load: async () => {
      const m = await import('./services.ts');
      return { usage: m.SERVICES_USAGE, run: m.servicesCommand };
    },
  },
  backend: {
    summary: [
      'backend serve                                        run the back-end as a service over mutual TLS (BACKEND_LISTEN)',
    ],
    load: async () => {
      const m = await import('./backend.ts');
      return { usage: m.BACKEND_USAGE, run: m.backendCommand };
    },
  },
  certs: {
    summary: [
      'certs [--force]                                      make a development CA and certificates in DATA_DIR/certs',
      'certs --issue NAME --usage client|server             add a certificate from that CA (--dns, --ip, --days)',
    ],
    load: async () => {
      const m = await import('./certs.ts');
      return { usage: m.CERTS_USAGE, run: m.certsCommand };
    },
  },
  webhooks: {
    summary: [
      'webhooks reencrypt                                   seal every webhook secret with the first WEBHOOK_SECRET_KEY',
    ],
    load: async () => {
      const m = await import('./webhooks.ts');
      return { usage: m.WEBHOOKS_USAGE, run: m.webhooksCommand };
    },
  },
  'hash-password': {
    summary: [
      'hash-password < secret                               scrypt hash of a password on stdin, for AUTH_ACCOUNTS_FILE',
    ],
    load: async () => {
      const m = await import('./hash-password.ts');
      return { usage: m.HASH_PASSWORD_USAGE, run: m.hashPasswordCommand };
    },
  },
};

/** The top-level usage; the copybook options come from the codec, loaded for them only here. */
async function usage(): Promise<string> {
  const { COPYBOOK_OPTIONS } = await import('@corebridge/records/cli');
  const commands = Object.values(COMMANDS).flatMap((c) => c.summary.map((line) => `  ${line}`));
  return `Usage: corebridge <command> [options]    (corebridge <command> --help: that command's usage)

Commands:
${commands.join('\n')}

Copybook options:
${COPYBOOK_OPTIONS}`;
}

/** The exit code of a failure: a usage error's own, 2 for bad configuration, else 1. */
async function exitCodeOf(e: unknown): Promise<number> {
  if (e instanceof UsageError) return e.exitCode;
  if (e instanceof ConfigError) return 2;
  // the codec's usage errors (a copybook that does not compile, say): its module is loaded when one was thrown
  const { UsageError: CopybookUsageError } = await import('@corebridge/records/cli');
  return e instanceof CopybookUsageError ? e.exitCode : 1;
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(await usage());
      return command === undefined ? 2 : 0;
    }
    if (!Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown command "${command}"\n\n${await usage()}`);
    const { usage: commandUsage, run } = await COMMANDS[command]!.load();
    if (asksForHelp(rest)) {
      io.stdout.write(`${commandUsage.trimEnd()}\n`);
      return 0;
    }
    return await run(rest, io);
  } catch (e) {
    io.stderr.write(`corebridge: ${e instanceof Error ? e.message : String(e)}\n`);
    return await exitCodeOf(e);
  }
}

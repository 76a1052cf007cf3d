/** The `corebridge` command: dispatches to subcommands; every failure is a message on stderr and a non-zero exit. */
import { ConfigError } from '../config.ts';
import { BACKEND_USAGE, backendCommand } from './backend.ts';
import { CERTS_USAGE, certsCommand } from './certs.ts';
import { DATASET_USAGE, datasetCommand } from './dataset.ts';
import {
  COPYBOOK_OPTIONS,
  COPYBOOK_USAGE,
  copybookCommand,
  UsageError as CopybookUsageError,
} from '@corebridge/records/cli';
import { HASH_PASSWORD_USAGE, hashPasswordCommand } from './hash-password.ts';
import { asksForHelp } from './help.ts';
import { SERVICES_USAGE, servicesCommand } from './services.ts';
import { UsageError, type Io } from './usage.ts';
import { WEBHOOKS_USAGE, webhooksCommand } from './webhooks.ts';

export const USAGE = `Usage: corebridge <command> [options]    (corebridge <command> --help: that command's usage)

Commands:
  copybook inspect FILE.cpy [--json | --json-schema]   fields: JSON path, COBOL name, offset, length, usage/picture
  copybook types   FILE.cpy                            TypeScript interface of the record's JSON form
  copybook encode  FILE.cpy [--binary]                 JSON on stdin → record (lowercase hex, or raw with --binary)
  copybook decode  FILE.cpy [--binary]                 record (hex, or raw with --binary) on stdin → JSON
  dataset decode   LAYOUT.cpy [--input FILE]           a file of records (F, FB, V, VB) → JSON Lines (dataset --help)
  dataset encode   LAYOUT.cpy --output FILE            JSON Lines → a file of records, byte for byte
  services check   DIR                                 check the service files in DIR as startup does (SERVICES_DIR)
  backend serve                                        run the back-end as a service over mutual TLS (BACKEND_LISTEN)
  certs [--force]                                      make a development CA and certificates in DATA_DIR/certs
  certs --issue NAME --usage client|server             add a certificate from that CA (--dns, --ip, --days)
  webhooks reencrypt                                   seal every webhook secret with the first WEBHOOK_SECRET_KEY
  hash-password < secret                               scrypt hash of a password on stdin, for AUTH_ACCOUNTS_FILE

Copybook options:
${COPYBOOK_OPTIONS}`;

/** Each command's own usage, for `corebridge <command> --help`. */
const COMMAND_USAGE: Record<string, string | undefined> = {
  copybook: COPYBOOK_USAGE,
  dataset: DATASET_USAGE,
  services: SERVICES_USAGE,
  backend: BACKEND_USAGE,
  certs: CERTS_USAGE,
  webhooks: WEBHOOKS_USAGE,
  'hash-password': HASH_PASSWORD_USAGE,
};

export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    }
    const usage = COMMAND_USAGE[command];
    if (usage !== undefined && asksForHelp(rest)) {
      io.stdout.write(`${usage.trimEnd()}\n`);
      return 0;
    }
    if (command === 'copybook') return await copybookCommand(rest, io);
    if (command === 'dataset') return await datasetCommand(rest, io);
    if (command === 'services') return await servicesCommand(rest, io);
    if (command === 'backend') return await backendCommand(rest, io);
    if (command === 'certs') return await certsCommand(rest, io);
    if (command === 'webhooks') return await webhooksCommand(rest, io);
    if (command === 'hash-password') return await hashPasswordCommand(rest, io);
    throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  } catch (e) {
    const exitCode =
      e instanceof UsageError || e instanceof CopybookUsageError ? e.exitCode : e instanceof ConfigError ? 2 : 1;
    io.stderr.write(`corebridge: ${e instanceof Error ? e.message : String(e)}\n`);
    return exitCode;
  }
}

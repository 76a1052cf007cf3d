/** The `corebridge` command: dispatches to subcommands; every failure is a message on stderr and a non-zero exit. */
import { ConfigError } from '../config.ts';
import { backendCommand } from './backend.ts';
import { certsCommand } from './certs.ts';
import { copybookCommand } from './copybook.ts';
import { servicesCommand } from './services.ts';
import { stackCommand } from './stack.ts';

export interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** A failure the user can act on: printed without a stack trace. */
export class UsageError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

export const USAGE = `Usage: corebridge <command> [options]

Commands:
  copybook inspect FILE.cpy [--json | --json-schema]   fields: JSON path, COBOL name, offset, length, usage/picture
  copybook types   FILE.cpy                            TypeScript interface of the record's JSON form
  copybook encode  FILE.cpy [--binary]                 JSON on stdin → record (lowercase hex, or raw with --binary)
  copybook decode  FILE.cpy [--binary]                 record (hex, or raw with --binary) on stdin → JSON
  services check   DIR                                 check the service files in DIR as startup does (SERVICES_DIR)
  backend serve                                        run the back-end as a service over mutual TLS (BACKEND_LISTEN)
  certs [--force]                                      make a development CA and certificates in DATA_DIR/certs
  certs --issue NAME --usage client|server             add a certificate from that CA (--dns, --ip, --days)
  stack [--api N] [--backend M]                        a small cluster on this machine: N APIs, M back-ends, a front on PORT

Copybook options:
  --profile zos|gnucobol        platform profile (default zos: EBCDIC cp1140, binary 2/4/8 bytes)
  --encoding ascii|latin1|cp037|cp1140
  --binary-sizes ibm|gnucobol   --comp5-byte-order big|little   --zoned-sign ebcdic|ascii
  --format fixed|free|auto      --record NAME (when the copybook has several 01 records)
  --mapping FILE.json           {"fields": {"COBOL-NAME": "jsonName" | false}, "redefines": {"BASE": "VIEW"}}
                                or views by a discriminator: "redefines": {"BASE": {"discriminator": "NAME", "views": {"C": "VIEW"}}}
`;

export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    }
    if (command === 'copybook') return await copybookCommand(rest, io);
    if (command === 'services') return await servicesCommand(rest, io);
    if (command === 'backend') return await backendCommand(rest, io);
    if (command === 'certs') return await certsCommand(rest, io);
    if (command === 'stack') return await stackCommand(rest, io);
    throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  } catch (e) {
    const exitCode = e instanceof UsageError ? e.exitCode : e instanceof ConfigError ? 2 : 1;
    io.stderr.write(`corebridge: ${e instanceof Error ? e.message : String(e)}\n`);
    return exitCode;
  }
}

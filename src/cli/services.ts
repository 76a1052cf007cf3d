/** `corebridge services check DIR`: loads service files as startup would, without starting anything. */
import { UsageError, type Io } from './usage.ts';

export const SERVICES_USAGE = `usage: corebridge services check DIR
  loads the service files in DIR as startup does with SERVICES_DIR=DIR, and lists the routes they declare`;

export async function servicesCommand(args: string[], io: Io): Promise<number> {
  const [sub, dir, ...extra] = args;
  if (sub !== 'check' || dir === undefined || extra.length > 0) throw new UsageError(SERVICES_USAGE);
  // the service definitions' modules (a JSON Schema validator among them) only when they are checked, not for --help
  const { loadServices, ServiceFileError } = await import('../api/services/definition.ts');
  try {
    for (const s of loadServices(dir)) {
      io.stdout.write(
        `${s.method} ${s.url.replace(/:([^/]+)/g, '{$1}')}  program ${s.program}  ${s.request.name} → ${s.response.name}  scope ${s.access.scope}  roles ${s.access.roles.join(',')}  ownership ${s.access.ownership}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof ServiceFileError) throw new UsageError(error.message, 1);
    throw error;
  }
}

/** `--help` / `-h` for every command: its usage on stdout and exit 0, checked before any other argument. */

/** True when the arguments ask for help; a `--` ends the options (what follows is data, not a flag). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** For the npm-script entry points (`npm run token -- --help`): prints the usage and ends the process. */
export function exitWithUsageIfAsked(args: readonly string[], usage: string): void {
  if (!asksForHelp(args)) return;
  process.stdout.write(usage.endsWith('\n') ? usage : `${usage}\n`);
  process.exit(0);
}

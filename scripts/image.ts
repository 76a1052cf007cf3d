/**
 * npm run image [-- --base IMAGE] [--tag NAME]
 * Builds the container image (deploy/Containerfile) with podman and prints each command it runs. Without --base (or
 * BASE) the base image is made here, with no registry: Debian bookworm by debootstrap, plus the Node.js binary that
 * `npm ci` installed and the npm running this script. That base is built once per Node version and then reused.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exitWithUsageIfAsked } from '../src/cli/help.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEFAULT_TAG = 'localhost/corebridge:latest';
const BUILD_CA = '/run/corebridge-build-ca.crt';
const USAGE = `usage: npm run image [-- --base IMAGE] [--tag NAME]
  Builds ${DEFAULT_TAG} (or --tag) from deploy/Containerfile with podman. --base (or BASE) names a Debian bookworm
  image with Node 24, e.g. node:24-bookworm-slim; without it the base is made here with debootstrap (needs root) and
  reused afterwards. DEBIAN_MIRROR (default http://deb.debian.org/debian) is the mirror debootstrap uses.`;

/** A failure the user fixes (a missing tool, a refused build): said in one line, exit 1. */
export class ImageError extends Error {}

/** Runs a command with its output shown, after printing it. */
export function run(command: string, args: string[]): void {
  process.stderr.write(`$ ${[command, ...args].map(quote).join(' ')}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: ROOT });
  if (result.error) throw new ImageError(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new ImageError(`${command} ${args[0] ?? ''} failed (exit ${result.status})`);
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Fails with the way to install podman when it is missing. */
export function requirePodman(): void {
  const result = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0)
    throw new ImageError(
      'podman is not installed or does not run (Debian: apt-get install podman runc; see docs/deploy.md)',
    );
}

function imageExists(name: string): boolean {
  return spawnSync('podman', ['image', 'exists', name]).status === 0;
}

/** Debian bookworm (minbase) with this Node and npm where the official Node images keep them, imported into podman. */
function buildBase(name: string): void {
  if (process.getuid?.() !== 0)
    throw new ImageError('making the base image needs root (debootstrap); or give --base node:24-bookworm-slim');
  if (spawnSync('debootstrap', ['--version']).error)
    throw new ImageError('debootstrap is not installed (Debian: apt-get install debootstrap)');
  // npm runs this script: npm_execpath is its npm-cli.js, in the package directory copied into the image.
  const npmCli = process.env.npm_execpath;
  if (!npmCli) throw new ImageError('run this through npm: npm run image');
  const npmDir = dirname(dirname(npmCli));
  const rootfs = mkdtempSync(join(tmpdir(), 'corebridge-rootfs-'));
  try {
    const mirror = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
    run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, mirror]);
    // What a container never needs: downloaded packages, package lists, documentation.
    for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man']) {
      rmSync(join(rootfs, dir), { recursive: true, force: true });
      mkdirSync(join(rootfs, dir), { recursive: true });
    }
    mkdirSync(join(rootfs, 'var/cache/apt/archives/partial'));
    mkdirSync(join(rootfs, 'var/lib/apt/lists/partial'));
    process.stderr.write(`copying ${process.execPath} (Node ${process.version}) and ${npmDir} into the base\n`);
    cpSync(process.execPath, join(rootfs, 'usr/local/bin/node'));
    cpSync(npmDir, join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx'));
    importRootfs(rootfs, name);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
}

/** tar of the directory piped into podman import. */
function importRootfs(rootfs: string, name: string): void {
  const changes = ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["/bin/bash"]'];
  const importArgs = ['import', ...changes.flatMap((c) => ['--change', c]), '-', name];
  process.stderr.write(`$ tar --numeric-owner -C ${rootfs} -c . | podman ${importArgs.map(quote).join(' ')}\n`);
  const pipeline = 'set -o pipefail; tar --numeric-owner -C "$1" -c . | podman "${@:2}"';
  const result = spawnSync('bash', ['-c', pipeline, 'import', rootfs, ...importArgs], { stdio: 'inherit' });
  if (result.status !== 0) throw new ImageError(`podman import failed (exit ${result.status})`);
}

/** Builds the image and answers its name. */
export function buildImage(options: { base?: string | undefined; tag?: string | undefined } = {}): string {
  requirePodman();
  const tag = options.tag ?? DEFAULT_TAG;
  let base = options.base;
  if (!base) {
    if (Number(process.versions.node.split('.')[0]) !== 24)
      throw new ImageError(`needs Node 24, got ${process.version}`);
    base = `localhost/corebridge-base:bookworm-node${process.versions.node}`;
    if (imageExists(base)) process.stderr.write(`reusing the base image ${base}\n`);
    else buildBase(base);
  }
  // Host networking, and the CA file this machine's Node or npm is told to trust (a TLS-inspecting proxy's): npm ci in
  // the build reaches the registry as npm does here. The file is mounted for the build only, never copied into a layer.
  const extraCa = [process.env.NODE_EXTRA_CA_CERTS, process.env.npm_config_cafile].find((f) => f && existsSync(f));
  const trust = extraCa
    ? ['--volume', `${extraCa}:${BUILD_CA}:ro`, '--build-arg', `NODE_EXTRA_CA_CERTS=${BUILD_CA}`]
    : [];
  const previous = imageId(tag);
  // Docker format: an OCI image cannot carry a HEALTHCHECK.
  run('podman', [
    'build',
    ...trust,
    '--format',
    'docker',
    '--network',
    'host',
    '--build-arg',
    `BASE=${base}`,
    '-f',
    'deploy/Containerfile',
    '-t',
    tag,
    '.',
  ]);
  // The image this build replaced, with its layers no other image uses: each build would otherwise leave one behind.
  // The dependency stages' layers stay, as the next build's cache.
  if (previous && previous !== imageId(tag)) spawnSync('podman', ['rmi', previous], { stdio: 'ignore' });
  return tag;
}

function imageId(name: string): string | null {
  const result = spawnSync('podman', ['image', 'inspect', '--format', '{{.Id}}', name], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  exitWithUsageIfAsked(process.argv.slice(2), USAGE);
  const { values } = parseArgs({ options: { base: { type: 'string' }, tag: { type: 'string' } } });
  try {
    const started = Date.now();
    const tag = buildImage({ base: values.base ?? process.env.BASE, tag: values.tag });
    process.stderr.write(`built ${tag} in ${Math.round((Date.now() - started) / 1000)} s\n`);
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    process.stderr.write(`image: ${error.message}\n`);
    process.exit(1);
  }
}

/**
 * The package as another project gets it: packed by npm, installed into a new project outside the repository whose
 * tsconfig.json is TypeScript's default (`tsc --init`), the README's example compiled by tsc and run, its output
 * compared with what the README says it prints; then `require()` from CommonJS and the `corebridge-copybook` bin.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const packageDir = join(import.meta.dirname, '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** The fenced block of `lang` that follows `marker` in the README. */
function block(marker: string, lang: string): string {
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `README.md has no "${marker}"`);
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme.slice(at));
  assert.ok(match, `README.md has no \`\`\`${lang} block after "${marker}"`);
  return match[1]!;
}

/** The environment of a project that is not this repository: none of npm's settings for it, nor its Node options. */
function outsideEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.toLowerCase().startsWith('npm_') && k !== 'NODE_OPTIONS' && k !== 'INIT_CWD') env[k] = v;
  }
  return env;
}

function run(command: string, args: string[], options: SpawnSyncOptions): string {
  const out = spawnSync(command, args, { encoding: 'utf8', ...options });
  const shown = `${command} ${args.join(' ')}`;
  assert.equal(out.status, 0, `${shown} exited ${out.status}:\n${String(out.stdout)}\n${String(out.stderr)}`);
  return String(out.stdout);
}

test("npm pack, npm install into a new project, the README's example under a default tsc --init, CommonJS, the bin", () => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-records-package-'));
  try {
    const env = outsideEnv();
    run('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: packageDir, env });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, `npm pack left no tarball in ${dir}`);

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, tarball)], { cwd: project, env });
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@corebridge/records/package.json'), 'utf8'));
    assert.deepEqual(installed.dependencies ?? {}, {}, 'the package has no runtime dependencies');
    const onInstall = Object.keys(installed.scripts ?? {}).filter((k) => /install|prepare/.test(k));
    assert.deepEqual(onInstall, [], 'nothing runs when a project installs it');
    assert.deepEqual(readdirSync(join(project, 'node_modules')).sort(), ['.bin', '.package-lock.json', '@corebridge']);

    run(process.execPath, [tsc, '--init'], { cwd: project, env });
    writeFileSync(join(project, 'example.ts'), block('## Example', 'ts'));
    run(process.execPath, [tsc, '-p', project], { cwd: project, env });
    const printed = run(process.execPath, ['example.js'], { cwd: project, env });
    assert.equal(printed, block('`npx tsc && node example.js` prints:', ''));

    writeFileSync(
      join(project, 'common.cjs'),
      [
        "const { compileCopybook, RecordEncodeError } = require('@corebridge/records');",
        "const layout = compileCopybook('01 R.\\n 05 CODE PIC X(3).\\n 05 QTY PIC S9(5) COMP-3.', { format: 'free' });",
        "const bytes = layout.encode({ code: 'AB', qty: -42 });",
        "console.log(bytes.toString('hex'), JSON.stringify(layout.decode(bytes)));",
        'try { layout.encode({ qty: 123456 }); } catch (e) { console.log(e instanceof RecordEncodeError, e.message); }',
      ].join('\n'),
    );
    const common = run(process.execPath, ['common.cjs'], { cwd: project, env }).split('\n');
    assert.equal(common[0], 'c1c24000042d {"code":"AB","qty":-42}');
    assert.match(common[1]!, /^true .*qty/);

    writeFileSync(
      join(project, 'r.cpy'),
      '       01 R.\n           05 CODE PIC X(3).\n           05 QTY PIC S9(5) COMP-3.\n',
    );
    const bin = join(project, 'node_modules/.bin/corebridge-copybook');
    assert.match(run(bin, ['inspect', 'r.cpy'], { cwd: project, env }), /^R: 6 bytes; cp1140/);
    assert.equal(
      run(bin, ['encode', 'r.cpy'], { cwd: project, env, input: '{"code":"AB","qty":-42}' }),
      'c1c24000042d\n',
    );
    assert.match(run(bin, ['--help'], { cwd: project, env }), /^usage: corebridge-copybook inspect FILE.cpy/);
    const wrong = spawnSync(bin, ['inspect'], { cwd: project, env, encoding: 'utf8' });
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /^corebridge-copybook: copybook inspect needs a copybook file\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * npm run contract:check [-- --base FILE | --base-ref REF] [--head FILE]
 * Lists every change between the committed contract and the code's, breaking first.
 * Exit 0: nothing breaks; 1: something breaks (it needs a new major version); 2: the comparison could not be made.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { COMMITTED_CONTRACT, currentContract } from '../contract/document.ts';
import { compareContracts, type ContractChange } from '../contract/openapi-diff.ts';

const USAGE = `usage: npm run contract:check [-- --base FILE | --base-ref GIT-REF] [--head FILE]
  --base FILE       the contract clients rely on (default: the committed openapi/v1.json)
  --base-ref REF    the committed openapi/v1.json as of a git ref (a tag, a branch, a commit)
  --head FILE       the contract to check (default: the one the code generates)
exit status: 0 nothing breaks, 1 a breaking change, 2 the contracts could not be compared`;

const REPO_ROOT = dirname(dirname(COMMITTED_CONTRACT));
const CONTRACT_PATH = relative(REPO_ROOT, COMMITTED_CONTRACT);

/** A failure to compare at all: printed with the usage, exit 2. */
class CheckError extends Error {}

type Document = Record<string, unknown>;

function parseDocument(text: string, name: string): Document {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new CheckError(`${name} is not JSON: ${(error as Error).message}`);
  }
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(document) || !isObject((document as Document).paths))
    throw new CheckError(`${name} is not an OpenAPI document (no "paths" object)`);
  return document as Document;
}

function readDocument(file: string): Document {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const missingCommitted = file === COMMITTED_CONTRACT && (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CheckError(
      missingCommitted
        ? `${CONTRACT_PATH} does not exist: write it with npm run contract:update`
        : `cannot read ${file}: ${(error as Error).message}`,
    );
  }
  return parseDocument(text, file);
}

function readAtRef(ref: string): Document {
  let text: string;
  try {
    text = execFileSync('git', ['show', `${ref}:${CONTRACT_PATH}`], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new CheckError(`cannot read ${CONTRACT_PATH} at ${ref}: ${stderr || (error as Error).message}`);
  }
  return parseDocument(text, `${CONTRACT_PATH} at ${ref}`);
}

function formatReport(changes: ContractChange[], baseName: string, headName: string): string {
  const lines = [`Contract check: ${baseName} (base) → ${headName} (head)`];
  if (changes.length === 0) return `${lines[0]}\nNo differences.\n`;
  const groups = [
    { title: 'Breaking', mark: '✗', list: changes.filter((change) => change.severity === 'breaking') },
    { title: 'Non-breaking', mark: '•', list: changes.filter((change) => change.severity === 'non-breaking') },
  ];
  for (const { title, mark, list } of groups) {
    if (list.length === 0) continue;
    lines.push(
      '',
      `${title} (${list.length}):`,
      ...list.map((change) => `  ${mark} ${change.location}: ${change.message}`),
    );
  }
  const [breaking, nonBreaking] = groups.map((group) => group.list.length);
  lines.push('', `${breaking} breaking, ${nonBreaking} non-breaking.`);
  if (breaking! > 0) {
    lines.push(
      'A breaking change must ship as a new major version: add /v2/... paths beside /v1; the v1 contract may only grow.',
    );
  } else {
    lines.push(`Nothing breaks. Run npm run contract:update to refresh the committed snapshot (${CONTRACT_PATH}).`);
  }
  return `${lines.join('\n')}\n`;
}

async function check(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        base: { type: 'string' },
        'base-ref': { type: 'string' },
        head: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new CheckError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.base !== undefined && values['base-ref'] !== undefined)
    throw new CheckError('give --base or --base-ref, not both');
  const [base, baseName] =
    values['base-ref'] !== undefined
      ? [readAtRef(values['base-ref']), `${CONTRACT_PATH} at ${values['base-ref']}`]
      : [readDocument(values.base ?? COMMITTED_CONTRACT), values.base ?? CONTRACT_PATH];
  const [head, headName] =
    values.head !== undefined ? [readDocument(values.head), values.head] : [await currentContract(), 'the code'];
  const changes = compareContracts(base, head);
  process.stdout.write(formatReport(changes, baseName, headName));
  return changes.some((change) => change.severity === 'breaking') ? 1 : 0;
}

try {
  process.exitCode = await check(process.argv.slice(2));
} catch (error) {
  // Exit 1 means "breaking", so a comparison that could not be made at all (even a crash) is 2.
  const detail =
    error instanceof CheckError ? `${error.message}\n${USAGE}` : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`contract:check: ${detail}\n`);
  process.exitCode = 2;
}

/**
 * The contract as the code states it: the OpenAPI document of the app on its default configuration (the
 * embedded provider at http://localhost:8080/oauth), and the committed copy it is checked against.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

/** The committed contract of major version 1. */
export const COMMITTED_CONTRACT = fileURLToPath(new URL('../../openapi/v1.json', import.meta.url));

export async function currentContract(): Promise<OpenApiDocument> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-contract-'));
  try {
    // Only what shapes the document is set; everything else is the default a new user gets.
    const app = await buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', BACKEND_TRANSPORT: 'in-process' }));
    try {
      await app.ready();
      return JSON.parse(JSON.stringify(app.swagger())) as OpenApiDocument;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The committed text: two-space JSON and a final newline, so diffs in review are line by line. */
export function contractText(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export function readCommittedContract(file = COMMITTED_CONTRACT): OpenApiDocument {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

export function writeCommittedContract(document: OpenApiDocument, file = COMMITTED_CONTRACT): void {
  writeFileSync(file, contractText(document));
}

/**
 * A client generated from the published OpenAPI document accepts the requests the documentation shows.
 * openapi-typescript, with its defaults, generates the types of the document the Worker serves; every
 * calculator request of the README and `docs/` (REST bodies and `calc_*` tool arguments, read from their
 * shell examples by test/support/doc-requests.ts) and every calculator's declared example must type-check
 * against its operation's request body, with the project's own TypeScript. Request bodies are described as
 * a client may send them, so an example that gives only some fields compiles; a request the service would
 * refuse (a misspelt field, a value of the wrong type) must not, which proves the check can fail.
 *
 * openapi-typescript needs the TypeScript 5 compiler API; it is installed, with that TypeScript, in the
 * workspace scripts/client-generator (the project compiles with TypeScript 7, which has none).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALCULATORS } from '../lib/registry.ts';
import { OPENAPI_TEMPLATE_PATH, openApiJson } from '../lib/openapi-json.ts';
import { docRequests, type DocRequest } from './support/doc-requests.ts';
import { calcPath } from './support/declared.ts';

const ROOT = join(import.meta.dirname, '..');
const GENERATOR = join(ROOT, 'scripts/client-generator/node_modules/openapi-typescript/bin/cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let dir: string;

/** Type-checks `files` (name → source) beside the generated client; the diagnostics, one per line (none: ''). */
function typeCheck(files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2024',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      allowImportingTsExtensions: true,
      exactOptionalPropertyTypes: false,
      types: [],
      skipLibCheck: true,
    },
    files: ['client.ts', ...Object.keys(files)],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  try {
    execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

/** A TypeScript module assigning each request to its operation's request body type. */
function requestsModule(requests: readonly DocRequest[]): string {
  const lines = [
    "import type { paths } from './client.ts';",
    "type Body<P extends keyof paths> = paths[P] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;",
  ];
  requests.forEach((r, i) => {
    lines.push(`// ${r.where}`, `export const request${i}: Body<${JSON.stringify(r.path)}> = ${JSON.stringify(r.body)};`);
  });
  return `${lines.join('\n')}\n`;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fund-edge-client-'));
  // The document exactly as GET /api/v1/openapi.json serves it (npm run build wrote the template).
  const template = readFileSync(join(ROOT, 'public', OPENAPI_TEMPLATE_PATH), 'utf8');
  writeFileSync(join(dir, 'openapi.json'), openApiJson(template, 'http://127.0.0.1:8787'));
  // openapi-typescript with its defaults: no flag at all.
  execFileSync(process.execPath, [GENERATOR, join(dir, 'openapi.json'), '--output', join(dir, 'client.ts')], { stdio: 'pipe' });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a client generated with openapi-typescript defaults', () => {
  it('accepts every calculator request the README and docs/ show, and every declared example', () => {
    const shown = docRequests(ROOT);
    // The README's quick start and docs/calculators.md's examples as published (one per calculator, from the declarations).
    expect(shown.some((r) => r.where.startsWith('README.md:'))).toBe(true);
    for (const def of CALCULATORS)
      expect(
        shown.map((r) => r.path),
        def.slug,
      ).toContain(calcPath(def));
    const declared = CALCULATORS.map(
      (def): DocRequest => ({ where: `the declared example of ${def.slug}`, path: calcPath(def), body: def.example }),
    );
    expect(typeCheck({ 'requests.ts': requestsModule([...shown, ...declared]) })).toBe('');
  }, 120_000);

  it('accepts a request with some fields or none, and refuses a misspelt field and a wrong type', () => {
    const fee = calcPath('fee-calculator');
    const ok = requestsModule([
      { where: 'two fields', path: fee, body: { horizonYears: 3, hurdlePct: 6 } },
      { where: 'no field', path: fee, body: {} },
      { where: 'null hurdle', path: fee, body: { hurdlePct: null } },
    ]);
    expect(typeCheck({ 'some.ts': ok })).toBe('');
    const bad = requestsModule([
      { where: 'misspelt', path: fee, body: { horizonYearz: 3 } },
      { where: 'wrong type', path: fee, body: { horizonYears: 'five' } },
    ]);
    const diagnostics = typeCheck({ 'bad.ts': bad });
    expect(diagnostics).toMatch(/bad\.ts\(4,.*horizonYearz/);
    expect(diagnostics).toMatch(/bad\.ts\(6,.*error TS2322/);
  }, 120_000);
});

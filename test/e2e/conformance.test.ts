/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, run with the project's Node 22)
 * against both servers in workerd over real HTTP, for every server scenario that applies to them
 * (docs/mcp.md#conformance lists the others and why not). The fund server is reached through a local proxy
 * that adds its key, since the suite's CLI sends no `Authorization` header. A scenario passes when the CLI
 * exits 0 and reports no failed check (warnings are allowed and listed in docs/mcp.md).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey, startWorker, type TestWorker } from '../support/worker.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', 'node', 'bin', 'node');
const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The scenarios that apply, by revision (the suite runs each at the revision given). */
const PUBLIC_SCENARIOS: readonly (readonly [string, string])[] = [
  ['server-initialize', '2025-11-25'],
  ['ping', '2025-11-25'],
  ['tools-list', '2025-11-25'],
  ['dns-rebinding-protection', '2025-11-25'],
  ['server-session-lifecycle', '2025-11-25'],
  ['server-sse-polling', '2025-11-25'],
  ['server-sse-multiple-streams', '2025-11-25'],
  ['tools-list', '2026-07-28'],
  ['dns-rebinding-protection', '2026-07-28'],
  ['http-header-validation', '2026-07-28'],
  ['server-sse-multiple-streams', '2026-07-28'],
];
/** On the fund server (through the key-adding proxy): the handshake and the tool list of both revisions. */
const FUND_SCENARIOS: readonly (readonly [string, string])[] = [
  ['server-initialize', '2025-11-25'],
  ['ping', '2025-11-25'],
  ['tools-list', '2025-11-25'],
  ['tools-list', '2026-07-28'],
  ['http-header-validation', '2026-07-28'],
];

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-conformance-'));
let worker: TestWorker;
let proxy: Server;
let proxyBase: string;

beforeAll(async () => {
  const key = await mintKey(persistDir, ['--fund', 'sample-fund', '--label', 'conformance']);
  worker = await startWorker(persistDir);
  // Forwards every request to the Worker with the fund key added (and the Host the Worker is reached at).
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length', 'accept-encoding'].includes(name))
        headers.set(name, value);
    }
    headers.set('authorization', `Bearer ${key}`);
    const answer = await fetch(`${worker.base}${req.url}`, {
      method: req.method,
      headers,
      ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
    });
    // fetch has decoded the body: its framing and encoding headers describe the original.
    const out = Object.fromEntries(
      [...answer.headers].filter(([name]) => !['content-encoding', 'content-length', 'transfer-encoding'].includes(name)),
    );
    res.writeHead(answer.status, out);
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  proxyBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** Runs one scenario (asynchronously: the Worker's proxy runs in this process) and returns the CLI's output. */
async function scenario(url: string, name: string, revision: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      NODE,
      [CLI, 'server', '--url', url, '--scenario', name, '--spec-version', revision, '--timeout', '20000'],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function expectPassed({ code, output }: { code: number; output: string }) {
  expect(output, output).not.toMatch(/SKIPPED/);
  expect(output, output).toMatch(/Passed: \d+\/\d+, 0 failed/);
  expect(code, output).toBe(0);
}

describe('the public server', () => {
  it.each(PUBLIC_SCENARIOS)('passes %s at %s', async (name, revision) => {
    expectPassed(await scenario(`${worker.base}/api/mcp/public`, name, revision));
  });
});

describe('the fund server, with a fund key', () => {
  it.each(FUND_SCENARIOS)('passes %s at %s', async (name, revision) => {
    expectPassed(await scenario(`${proxyBase}/api/mcp`, name, revision));
  });
});

/**
 * docs/mcp.md's session by hand speaks the protocol as a client must: after `initialize`, every request
 * carries in `MCP-Protocol-Version` the revision the server answered (its result's `protocolVersion`, as the
 * page shows it), and that revision is one the SDK serves.
 */
import { readFileSync } from 'node:fs';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

const page = readFileSync('docs/mcp.md', 'utf8');
const start = page.indexOf('## A session, by hand');
const block = page.slice(page.indexOf('```sh', start), page.indexOf('\n```\n', page.indexOf('```sh', start) + 5));

describe("docs/mcp.md's session by hand", () => {
  it('sends, after initialize, the revision the server answered', () => {
    const answered = /# \{"result":\{"protocolVersion":"([\d-]+)"/.exec(block)?.[1];
    expect(answered).toBeDefined();
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(answered);
    const sent = [...block.matchAll(/MCP-Protocol-Version: ([\d-]+)/g)].map((m) => m[1]);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(new Set(sent)).toEqual(new Set([answered]));
  });
});

/**
 * The MCP SDK's startup exchange (lib/mcp/dispatch.ts `warmUpSdk`, run by lib/worker.ts): it answers its
 * `tools/call` through the SDK as a request would be answered, and settles within the microtasks of the
 * code that started it (at startup workerd runs no timer and allows no I/O).
 */
import { describe, expect, it } from 'vitest';
import { warmUpSdk } from '../../lib/mcp/dispatch.ts';

describe('warmUpSdk', () => {
  it("answers the tools/call with the tool's {} as text and structuredContent", async () => {
    const answer = await (await warmUpSdk())?.json();
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{}' }], structuredContent: {} } });
  });

  it('settles before any timer fires: no I/O, no timer', async () => {
    let settled = false;
    const exchange = warmUpSdk().then(() => {
      settled = true;
    });
    const atFirstTimer = await new Promise<boolean>((resolve) => setTimeout(() => resolve(settled), 0));
    expect(atFirstTimer).toBe(true);
    await exchange;
  });
});

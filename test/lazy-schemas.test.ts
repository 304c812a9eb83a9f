/**
 * The declarations' schemas are built on first read, once (lib/validation.ts `lazy`): `defineCalculator` and
 * `defineFundTool` turn the schema functions into getters, and giving a declaration its path keeps them so.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineCalculator, locatedCalculator } from '../lib/calculators/definition.ts';
import { defineFundTool, locatedFundTool } from '../lib/fund/definition.ts';
import { calculatorEndpoint } from '../lib/calculators/endpoint.ts';
import { fundEndpoint } from '../lib/fund/endpoint.ts';
import { lazy } from '../lib/validation.ts';
import { CALCULATORS, FUND_TOOLS } from '../lib/registry.ts';

/** A schema function that counts its calls. */
function counted<T>(build: () => T): { build: () => T; calls: () => number } {
  let calls = 0;
  return {
    build: () => {
      calls++;
      return build();
    },
    calls: () => calls,
  };
}

describe('lazy', () => {
  it('builds on first call, then hands back the same value; a build that threw is tried again', () => {
    const c = counted(() => ({}));
    const get = lazy(c.build);
    expect(c.calls()).toBe(0);
    expect(get()).toBe(get());
    expect(c.calls()).toBe(1);
    let fail = true;
    const flaky = lazy(() => {
      if (fail) throw new Error('not yet');
      return 1;
    });
    expect(flaky).toThrow('not yet');
    fail = false;
    expect(flaky()).toBe(1);
  });
});

describe('declarations build their schemas on first read', () => {
  it('a calculator: not when declared, located or made an endpoint; once when read', () => {
    const input = counted(() => z.strictObject({ x: z.number().default(1) }));
    const output = counted(() => z.object({ y: z.number() }));
    const def = defineCalculator({
      slug: 'probe',
      title: 'Probe',
      description: 'd',
      input: input.build,
      output: output.build,
      example: {},
      run: ({ x }) => ({ y: x }),
    });
    const located = locatedCalculator(def, 'probe');
    const endpoint = calculatorEndpoint(def);
    expect([input.calls(), output.calls()]).toEqual([0, 0]);
    expect(located.path).toBe('probe');
    expect(located.input).toBe(def.input);
    expect(endpoint.methods.POST!.body).toBe(def.input);
    expect(endpoint.methods.POST!.response.schema).toBe(endpoint.methods.POST!.response.schema);
    expect([input.calls(), output.calls()]).toEqual([1, 1]);
    expect(located.input.parse({})).toEqual({ x: 1 });
  });

  it('a fund tool: not when declared, located or made an endpoint; once when read', () => {
    const query = counted(() => z.strictObject({}));
    const output = counted(() => z.strictObject({ n: z.number() }));
    const def = defineFundTool({
      tool: 'get_probe',
      title: 'Probe',
      description: 'd',
      query: query.build,
      output: output.build,
      example: {},
      problems: [],
      run: async () => ({ n: 1 }),
    });
    const located = locatedFundTool(def, 'probe');
    const endpoint = fundEndpoint(def);
    expect([query.calls(), output.calls()]).toEqual([0, 0]);
    expect(endpoint.methods.GET!.query).toBe(located.query);
    expect(endpoint.methods.GET!.response.schema).toBe(def.output);
    expect([query.calls(), output.calls()]).toEqual([1, 1]);
  });

  it('every declared calculator and fund tool reads its schemas through getters', () => {
    for (const def of [...CALCULATORS, ...FUND_TOOLS]) {
      const names = 'slug' in def ? ['input', 'output'] : ['query', 'output'];
      for (const name of names) expect(typeof Object.getOwnPropertyDescriptor(def, name)?.get, `${name} of a declaration`).toBe('function');
    }
  });
});

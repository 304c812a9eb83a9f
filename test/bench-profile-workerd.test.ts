/**
 * bench/profile-workerd.ts attributes each line of the unminified bundle to the source module esbuild's
 * `// path` comment above it names.
 */
import { describe, expect, it } from 'vitest';
import { moduleIndex } from '../bench/profile-workerd.ts';

describe('moduleIndex', () => {
  const bundle = [
    'var __defProp = Object.defineProperty;', // 0
    '// lib/errors.ts', // 1
    'class ApiError {}', // 2
    '// @__NO_SIDE_EFFECTS__', // 3: an annotation, not a module
    '// node_modules/zod/v4/core/util.js', // 4
    'function get() {}', // 5
    '// lib/fund/synthetic/codec.ts', // 6
    'function decodeFund() {}', // 7
  ].join('\n');
  const moduleOf = moduleIndex(bundle);

  it('gives each line the module whose comment comes last before it', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 99].map(moduleOf)).toEqual([
      '(bundle prelude)',
      'lib/errors.ts',
      'lib/errors.ts',
      'lib/errors.ts',
      'node_modules/zod/v4/core/util.js',
      'node_modules/zod/v4/core/util.js',
      'lib/fund/synthetic/codec.ts',
      'lib/fund/synthetic/codec.ts',
      'lib/fund/synthetic/codec.ts',
    ]);
  });
});

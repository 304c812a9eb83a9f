/** Registers bench/tsx-hooks.ts (`.tsx` through esbuild) for a bench child process: `node --import ./bench/tsx-register.ts`. */
import { register } from 'node:module';

register('./tsx-hooks.ts', import.meta.url);

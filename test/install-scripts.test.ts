/**
 * npm's install-script policy (`allowScripts` in package.json, advisory in npm 11, enforced in npm 12):
 * every package of the lockfile that has an install script has a decision there, and every decision names
 * such a package, so that `npm install` has nothing left to warn about ("not yet covered by allowScripts").
 * Why each is allowed or not: docs/configuration.md#install-scripts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean; name?: string }>;
};

/** The names of the lockfile's packages that run an install script (`node_modules/<name>` paths, nested too). */
const withScripts = new Set(
  Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([path, p]) => p.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
);

describe('install scripts', () => {
  it('each package with an install script is allowed or refused in package.json, and no other', () => {
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual([...withScripts].sort());
  });

  it('the docs say why for each', () => {
    const page = readFileSync('docs/configuration.md', 'utf8');
    const section = page.slice(page.indexOf('## Install scripts'));
    for (const name of withScripts) expect(section, name).toContain(`\`${name}\``);
  });
});

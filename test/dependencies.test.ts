import fs from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

type Lock = { packages: Record<string, { version?: string; engines?: Record<string, string> | string[]; hasInstallScript?: boolean }> };

const lock = JSON.parse(fs.readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as Lock;
const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

describe('dependencies', () => {
  it('every locked package supports the Node versions Herald promises (npm ci prints no EBADENGINE warning)', () => {
    // The oldest version the README and package.json promise, and the one running the tests.
    const oldest = semver.minVersion(manifest.engines.node)!.version;
    const demands: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (!path || !range) continue;
      for (const version of [process.versions.node, oldest]) {
        if (!semver.satisfies(version, range))
          demands.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${range} (not ${version})`);
      }
    }
    expect(semver.major(oldest)).toBe(20);
    expect(demands).toEqual([]);
  });

  it('every locked package with install scripts has its decision in allowScripts (npm ci prints no install-scripts warning)', () => {
    // npm 11 runs a dependency's install scripts only when allowScripts says so, and warns about
    // each package it has no decision for.
    const undecided = Object.entries(lock.packages)
      .filter(([path, entry]) => path && entry.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .filter((name) => typeof manifest.allowScripts?.[name] !== 'boolean');
    expect(undecided).toEqual([]);
  });

  it('Herald itself has no install-time script (npm install -g . has no build step to approve or to skip)', () => {
    // bin/herald.js builds on its first start; a global install would ask to approve `prepare`.
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];
    expect(Object.keys(manifest.scripts).filter((name) => lifecycle.includes(name))).toEqual([]);
  });
});

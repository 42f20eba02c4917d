import fs from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

type Lock = { packages: Record<string, { version?: string; engines?: Record<string, string> | string[] }> };

const lock = JSON.parse(fs.readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as Lock;
const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };

describe('dependencies', () => {
  it('every locked package supports the Node versions Herald promises (npm ci prints no EBADENGINE warning)', () => {
    // The oldest version the README and package.json promise, and the one running the tests.
    const oldest = semver.minVersion(manifest.engines.node)!.version;
    const demands: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (!path || !range) continue;
      for (const version of [process.versions.node, oldest]) {
        if (!semver.satisfies(version, range)) demands.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${range} (not ${version})`);
      }
    }
    expect(semver.major(oldest)).toBe(20);
    expect(demands).toEqual([]);
  });
});

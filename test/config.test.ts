import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('has working defaults: SQLite in ./data, port 3000, BASE_URL from the port', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.database).toEqual({ kind: 'sqlite', file: path.resolve('data', 'herald.db') });
  });

  it('reads PORT, HOST, DATA_DIR, BASE_URL and DATABASE_URL', () => {
    const config = loadConfig({ PORT: '8080', HOST: '127.0.0.1', DATA_DIR: '/tmp/x', BASE_URL: 'https://social.example.com/', DATABASE_URL: 'postgres://u@db/herald' });
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', dataDir: '/tmp/x', baseUrl: 'https://social.example.com', database: { kind: 'postgres', url: 'postgres://u@db/herald' } });
    expect(loadConfig({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['BASE_URL', 'not a url'],
    ['BASE_URL', 'ftp://example.com'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['SECRET_KEY', 'short'],
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_ROUTES', '{not json'],
    ['RATE_LIMIT_ROUTES', '{"/posts": 5}'],
    ['DEPRECATIONS', '{"GET /x": {"sunset": "soon"}}'],
    ['TRUST_PROXY', 'maybe'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});

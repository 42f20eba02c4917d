import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { checkAddress } from '../../src/net/address-policy.ts';
import type { LookupFunction } from '../../src/net/outbound.ts';

/** A resolver that answers from a table and records every question; unknown names do not exist. */
export function resolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup: LookupFunction = async (hostname) => {
    asked.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    return answers.map((address) => ({ address, family: isIP(address) }));
  };
  return { lookup, asked };
}

/** A connector that records what it would have opened and opens nothing. */
export function recorder(failWith = 'ERECORDED') {
  const opened: Array<{ hostname: string; port: string | number; servername: string | null | undefined; protocol: string }> = [];
  const connector: buildConnector.connector = (opts, callback) => {
    opened.push({ hostname: opts.hostname, port: opts.port, servername: opts.servername, protocol: opts.protocol });
    callback(Object.assign(new Error('recorded, not opened'), { code: failWith }), null);
  };
  return { opened, connector };
}

/**
 * A real connector that opens loopback connections only. Anything else is recorded in
 * `violations` and fails without a packet being sent: tests assert the list stays empty.
 */
export function loopbackOnlyConnector() {
  const violations: string[] = [];
  const real = buildConnector({ timeout: 2000 });
  const connector: buildConnector.connector = (opts, callback) => {
    const loopback = !checkAddress(opts.hostname).allowed && checkAddress(opts.hostname, { allowLoopback: true }).allowed;
    if (!loopback) {
      violations.push(opts.hostname);
      return callback(new Error(`test refused to open ${opts.hostname}`), null);
    }
    real(opts, callback);
  };
  return { connector, violations };
}

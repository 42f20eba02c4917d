import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a server-side fetch may connect to. Everything that is not plainly a public
 * unicast address is refused: loopback, private, link-local (cloud metadata), CGNAT,
 * multicast, unspecified, documentation, benchmarking and reserved ranges, in IPv4 and IPv6,
 * including IPv4 addresses embedded in IPv6 (mapped, compatible, NAT64, 6to4, Teredo).
 */
type Range = [network: string, prefix: number, reason: string];

const IPV4_RANGES: Range[] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT (shared)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved (IETF protocol assignments)'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved (6to4 relay)'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const IPV6_RANGES: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'reserved (local-use NAT64)'],
  ['100::', 64, 'reserved (discard)'],
  ['2001::', 23, 'reserved (IETF protocol assignments)'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'reserved (SRv6)'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved (site-local)'],
  ['ff00::', 8, 'multicast'],
];

function buildLists(ranges: Range[], family: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, reason, family };
  });
}

const v4Lists = buildLists(IPV4_RANGES, 'ipv4');
const v6Lists = buildLists(IPV6_RANGES, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** The 8 groups of an IPv6 address as numbers (handles `::` and a trailing dotted IPv4). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => parseInt(g || '0', 16));
}

function v4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (g.length !== 8) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated)
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) {
    if (g[5] === 0 && g[6] === 0) return null; // :: and ::1 are their own ranges
    return v4FromGroups(g[6]!, g[7]!);
  }
  // ::ffff:0:a.b.c.d (SIIT translated)
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4FromGroups(g[6]!, g[7]!);
  // 64:ff9b::/96 (NAT64)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4FromGroups(g[6]!, g[7]!);
  // 2002::/16 (6to4): the IPv4 address is in bits 16-47
  if (g[0] === 0x2002) return v4FromGroups(g[1]!, g[2]!);
  // 2001:0::/32 (Teredo): the client's IPv4 address is the last 32 bits, inverted
  if (g[0] === 0x2001 && g[1] === 0) return v4FromGroups(~g[6]! & 0xffff, ~g[7]! & 0xffff);
  return null;
}

export type AddressVerdict =
  | { allowed: true }
  | {
      allowed: false;
      /** A sentence fragment naming the address and why: "10.0.0.1 is a private address". */
      reason: string;
      /** What the address is, for composing other sentences: "a private address". */
      range: string;
      /** A loopback address (or a form of one), which OUTBOUND_ALLOW_LOOPBACK lets through. */
      loopback: boolean;
    };

function withArticle(words: string): string {
  return `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;
}

function refused(address: string, range: string, loopback = false): AddressVerdict {
  return { allowed: false, reason: `${address} is ${range}`, range, loopback };
}

/**
 * Decides whether a connection to `address` (an IP literal) is allowed. With `allowLoopback`
 * (tests and local development only) loopback addresses pass; nothing else changes.
 */
export function checkAddress(address: string, options: { allowLoopback?: boolean } = {}): AddressVerdict {
  const family = isIP(address);
  if (family === 4) {
    for (const { list, reason } of v4Lists) {
      if (list.check(address, 'ipv4')) {
        if (reason === 'loopback' && options.allowLoopback) return { allowed: true };
        return refused(address, `${withArticle(reason)} address`, reason === 'loopback');
      }
    }
    return { allowed: true };
  }
  if (family === 6) {
    const bare = address.split('%')[0]!;
    const v4 = embeddedIpv4(bare);
    if (v4) {
      const inner = checkAddress(v4, options);
      return inner.allowed ? inner : refused(address, `an IPv6 form of ${v4}, ${inner.range}`, inner.loopback);
    }
    for (const { list, reason } of v6Lists) {
      if (list.check(bare, 'ipv6')) {
        if (reason === 'loopback' && options.allowLoopback) return { allowed: true };
        return refused(address, `${withArticle(reason)} address`, reason === 'loopback');
      }
    }
    if (!globalUnicast.check(bare, 'ipv6')) return refused(address, 'not a global unicast address');
    return { allowed: true };
  }
  return refused(address, 'not an IP address');
}

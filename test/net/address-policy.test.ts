import { describe, expect, it } from 'vitest';
import { checkAddress, embeddedIpv4 } from '../../src/net/address-policy.ts';

/** [address, what it is] for every refused range: its first, last and a typical address. */
const REFUSED_V4: Array<[string, string]> = [
  ['0.0.0.0', 'an unspecified ("this network") address'],
  ['0.255.255.255', 'an unspecified ("this network") address'],
  ['10.0.0.0', 'a private address'],
  ['10.20.30.40', 'a private address'],
  ['10.255.255.255', 'a private address'],
  ['100.64.0.0', 'a carrier-grade NAT (shared) address'],
  ['100.100.100.200', 'a carrier-grade NAT (shared) address'],
  ['100.127.255.255', 'a carrier-grade NAT (shared) address'],
  ['127.0.0.1', 'a loopback address'],
  ['127.255.255.254', 'a loopback address'],
  ['169.254.0.0', 'a link-local (cloud metadata) address'],
  ['169.254.169.254', 'a link-local (cloud metadata) address'],
  ['169.254.255.255', 'a link-local (cloud metadata) address'],
  ['172.16.0.0', 'a private address'],
  ['172.31.255.255', 'a private address'],
  ['192.0.0.0', 'a reserved (IETF protocol assignments) address'],
  ['192.0.0.255', 'a reserved (IETF protocol assignments) address'],
  ['192.0.2.1', 'a documentation address'],
  ['192.88.99.1', 'a reserved (6to4 relay) address'],
  ['192.168.0.0', 'a private address'],
  ['192.168.255.255', 'a private address'],
  ['198.18.0.0', 'a benchmarking address'],
  ['198.19.255.255', 'a benchmarking address'],
  ['198.51.100.7', 'a documentation address'],
  ['203.0.113.9', 'a documentation address'],
  ['224.0.0.0', 'a multicast address'],
  ['239.255.255.250', 'a multicast address'],
  ['240.0.0.0', 'a reserved address'],
  ['255.255.255.255', 'a reserved address'],
];

/** Public neighbours of the refused ranges, and well-known public addresses. */
const ALLOWED_V4 = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.255',
  '192.0.3.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
];

const REFUSED_V6: Array<[string, RegExp]> = [
  ['::', /^:: is an unspecified address$/],
  ['::1', /^::1 is a loopback address$/],
  ['0:0:0:0:0:0:0:1', /a loopback address/],
  // IPv4-mapped, in both spellings, and SIIT-translated
  ['::ffff:127.0.0.1', /^::ffff:127\.0\.0\.1 is an IPv6 form of 127\.0\.0\.1, a loopback address$/],
  ['::ffff:7f00:1', /IPv6 form of 127\.0\.0\.1, a loopback address/],
  ['0:0:0:0:0:ffff:a9fe:a9fe', /IPv6 form of 169\.254\.169\.254, a link-local \(cloud metadata\) address/],
  ['::ffff:10.0.0.1', /IPv6 form of 10\.0\.0\.1, a private address/],
  ['::ffff:0.0.0.0', /IPv6 form of 0\.0\.0\.0/],
  ['::ffff:0:192.168.1.1', /IPv6 form of 192\.168\.1\.1, a private address/],
  // IPv4-compatible (deprecated)
  ['::127.0.0.1', /IPv6 form of 127\.0\.0\.1, a loopback address/],
  ['::10.1.2.3', /IPv6 form of 10\.1\.2\.3, a private address/],
  // NAT64, well-known and local-use prefixes
  ['64:ff9b::10.0.0.1', /IPv6 form of 10\.0\.0\.1, a private address/],
  ['64:ff9b::a9fe:a9fe', /IPv6 form of 169\.254\.169\.254/],
  ['64:ff9b:1::8.8.8.8', /a reserved \(local-use NAT64\) address/],
  // 6to4 and Teredo carrying internal IPv4 addresses
  ['2002:7f00:1::', /IPv6 form of 127\.0\.0\.1, a loopback address/],
  ['2002:c0a8:101::1', /IPv6 form of 192\.168\.1\.1, a private address/],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', /IPv6 form of 127\.0\.0\.1, a loopback address/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /IPv6 form of 192\.0\.2\.45, a documentation address/],
  // IPv6's own special ranges
  ['100::1', /a reserved \(discard\) address/],
  ['2001:2::1', /a reserved \(IETF protocol assignments\) address/],
  ['2001:db8::1', /a documentation address/],
  ['3fff::1', /a documentation address/],
  ['5f00::1', /a reserved \(SRv6\) address/],
  ['fc00::1', /a private \(unique local\) address/],
  ['fd00:ec2::254', /a private \(unique local\) address/],
  ['fe80::1', /a link-local address/],
  ['fe80::1%eth0', /a link-local address/],
  ['febf:ffff::1', /a link-local address/],
  ['fec0::1', /a reserved \(site-local\) address/],
  ['ff02::1', /a multicast address/],
  ['ff0e::1', /a multicast address/],
  ['::2', /not a global unicast address/],
  ['1::1', /not a global unicast address/],
  ['4000::1', /not a global unicast address/],
];

const ALLOWED_V6 = [
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '::ffff:93.184.216.34',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
];

describe('checkAddress', () => {
  it.each(REFUSED_V4)('refuses %s as %s', (address, range) => {
    expect(checkAddress(address)).toEqual({
      allowed: false,
      reason: `${address} is ${range}`,
      range,
      loopback: range === 'a loopback address',
    });
  });

  it.each(ALLOWED_V4)('allows the public address %s', (address) => {
    expect(checkAddress(address)).toEqual({ allowed: true });
  });

  it.each(REFUSED_V6)('refuses %s', (address, reason) => {
    const verdict = checkAddress(address);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toMatch(reason);
  });

  it.each(ALLOWED_V6)('allows the public address %s', (address) => {
    expect(checkAddress(address)).toEqual({ allowed: true });
  });

  it("refuses anything that is not an IP literal (names and odd spellings are the URL parser's business)", () => {
    for (const text of ['localhost', '127.1', '0x7f.0.0.1', '2130706433', '0177.0.0.1', '', '1.2.3.4.5', '[::1]']) {
      expect(checkAddress(text)).toMatchObject({ allowed: false, reason: `${text} is not an IP address` });
    }
  });

  it('with allowLoopback lets loopback through, in every form, and nothing else', () => {
    const options = { allowLoopback: true };
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(checkAddress(address, options), address).toEqual({ allowed: true });
    }
    for (const address of ['0.0.0.0', '::', '10.0.0.1', '169.254.169.254', '::ffff:10.0.0.1', 'fe80::1', 'fd00::1', '192.168.1.1']) {
      expect(checkAddress(address, options).allowed, address).toBe(false);
    }
  });
});

describe('embeddedIpv4', () => {
  it.each([
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::ffff:102:304', '1.2.3.4'],
    ['::1.2.3.4', '1.2.3.4'],
    ['::ffff:0:1.2.3.4', '1.2.3.4'],
    ['64:ff9b::1.2.3.4', '1.2.3.4'],
    ['2002:102:304::', '1.2.3.4'],
    ['2001:0:4136:e378:8000:63bf:fefd:fcfb', '1.2.3.4'],
  ])('reads %s as %s', (address, v4) => {
    expect(embeddedIpv4(address)).toBe(v4);
  });

  it.each(['::', '::1', '2606:4700:4700::1111', 'fe80::1', '64:ff9b:1::1.2.3.4'])('finds none in %s', (address) => {
    expect(embeddedIpv4(address)).toBeNull();
  });
});

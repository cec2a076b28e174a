import { describe, expect, it } from 'vitest';
import { deliveryUrlRefusal, isRefusedAddress, webhookUrlProblem } from './webhook-address-guard.ts';

describe('webhook address guard', () => {
  it('refuses loopback, private, link-local, unique-local and unspecified addresses, IPv4 inside IPv6 too', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a00:1',
      '64:ff9b::10.0.0.1',
      'not an address',
    ]) {
      expect(isRefusedAddress(address), address).toBe(true);
    }
  });

  it('refuses the IPv6 forms that carry an IPv4 address, in dotted and in hex notation', () => {
    for (const address of [
      // IPv4-translated (::ffff:0:0/96)
      '::ffff:0:127.0.0.1',
      '::ffff:0:10.1.2.3',
      '::ffff:0:a01:203',
      '0:0:0:0:ffff:0:c0a8:101',
      // IPv4-compatible (::/96, deprecated), public IPv4 inside too
      '::127.0.0.1',
      '::10.0.0.1',
      '::8.8.8.8',
      '::808:808',
      // Well-known NAT64 (64:ff9b::/96) to a private IPv4
      '64:ff9b::127.0.0.1',
      '64:ff9b::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:0:0:0:0:c0a8:1',
      // Local-use NAT64 (64:ff9b:1::/48), whatever it embeds
      '64:ff9b:1::8.8.8.8',
      '64:ff9b:1::a00:1',
      '64:ff9b:1:ffff::1',
      // 6to4 (2002::/16, deprecated): the IPv4 address in groups 2 and 3, private or public
      '2002:7f00:1::1',
      '2002:a00:1::',
      '2002:c0a8:101:0:0:0:0:1',
      '2002:808:808::1',
      // A zone index does not hide the address
      'fe80::1%eth0',
    ]) {
      expect(isRefusedAddress(address), address).toBe(true);
    }
  });

  it('lets public addresses through', () => {
    for (const address of [
      '93.184.215.14',
      '8.8.8.8',
      '172.32.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '::ffff:0:8.8.8.8',
      '64:ff9b::8.8.8.8',
      '64:ff9b::808:808',
      '2001:db9::1',
    ]) {
      expect(isRefusedAddress(address), address).toBe(false);
    }
  });

  it('checks URLs: https only and no private IP literal, unless private URLs are allowed', () => {
    expect(webhookUrlProblem('https://hooks.example.com/ferry', false)).toBeNull();
    expect(webhookUrlProblem('https://localhost/x', false)).toBeNull(); // a name: checked when resolved
    expect(webhookUrlProblem('http://hooks.example.com/ferry', false)).toMatch(/https/);
    expect(webhookUrlProblem('https://[::1]:8443/x', false)).toMatch(/public address/);
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/password/);
    expect(webhookUrlProblem('ftp://hooks.example.com/', true)).toMatch(/https/);
    expect(webhookUrlProblem('http://127.0.0.1:9/x', true)).toBeNull();
    expect(webhookUrlProblem('/relative', true)).toMatch(/absolute/);
    expect(webhookUrlProblem('https://[::ffff:0:127.0.0.1]/x', false)).toMatch(/public address/);
    expect(webhookUrlProblem('https://[2002:a00:1::1]/x', false)).toMatch(/public address/);
  });

  it('checks a URL again at delivery: a private literal or http registered while allowed is refused once off', () => {
    expect(deliveryUrlRefusal(new URL('http://127.0.0.1:9/x'), true)).toBeNull();
    expect(deliveryUrlRefusal(new URL('https://10.0.0.7/x'), false)?.message).toMatch(
      /^refused: the URL must be a public address: 10\.0\.0\.7 is loopback/,
    );
    expect(deliveryUrlRefusal(new URL('https://[64:ff9b::a00:7]/x'), false)?.message).toMatch(
      /public address/,
    );
    expect(deliveryUrlRefusal(new URL('http://hooks.example.com/x'), false)?.message).toMatch(/https/);
    expect(deliveryUrlRefusal(new URL('https://hooks.example.com/x'), false)).toBeNull();
  });
});

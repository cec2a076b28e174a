import { describe, expect, it } from 'vitest';
import { isRefusedAddress, webhookUrlProblem } from './webhook-address-guard.ts';

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

  it('lets public addresses through', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
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
  });
});

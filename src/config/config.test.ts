import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('TRUST_PROXY', () => {
  it('is off by default and for false or 0', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
  });

  it('takes a hop count or a comma list of addresses and CIDRs', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
    ]);
  });

  it('refuses true with a one-line message naming TRUST_PROXY', () => {
    const error = (() => {
      try {
        loadConfig({ TRUST_PROXY: 'true' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^TRUST_PROXY=true is refused: it lets a client choose its own IP/);
    expect(problems[0]).not.toContain('\n');
  });

  it('refuses what is not an address, and hop counts above 10', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(/TRUST_PROXY .*"proxy.internal"/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow(/TRUST_PROXY/);
  });
});

describe('sign-in limits', () => {
  it('default to 10 sign-ins a minute per IP, 10 per address and 5 sessions per address', () => {
    expect(loadConfig({}).signIn).toEqual({
      perIpPerMinute: 10,
      perAddressPerMinute: 10,
      sessionsPerAddress: 5,
    });
    expect(
      loadConfig({ RATE_LIMIT_SIGN_IN: '3', RATE_LIMIT_SIGN_IN_ADDRESS: '4', SESSIONS_PER_ADDRESS: '2' })
        .signIn,
    ).toEqual({ perIpPerMinute: 3, perAddressPerMinute: 4, sessionsPerAddress: 2 });
  });
});

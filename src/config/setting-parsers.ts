import { isIP } from 'node:net';

/** The kinds of setting SETTINGS (config.ts) is made of, each with its parse and its one-line problems. */

/** How one environment variable is read: its default, how an operator sees it, and how a raw value parses. */
export interface Setting<T> {
  readonly fallback: T;
  /** The default as `ferry start --help` and docs/configuration.md show it. */
  readonly shown: string;
  readonly doc: string;
  /** The value, or what is wrong with the raw text (the message starts after the variable's name). */
  parse(raw: string): { value: T } | { problem: string };
}

export const int = (fallback: number, min: number, max: number, doc: string): Setting<number> => ({
  fallback,
  shown: String(fallback),
  doc,
  parse(raw) {
    const value = Number(raw);
    return Number.isInteger(value) && value >= min && value <= max
      ? { value }
      : { problem: `must be an integer from ${min} to ${max}, got "${raw}"` };
  },
});
export const bool = (fallback: boolean, doc: string): Setting<boolean> => ({
  fallback,
  shown: String(fallback),
  doc,
  parse(raw) {
    if (raw === 'true' || raw === '1') return { value: true };
    if (raw === 'false' || raw === '0') return { value: false };
    return { problem: `must be true or false, got "${raw}"` };
  },
});
/** A switch whose default depends on other settings: unset is null, and the caller decides. */
export const optionalBool = (doc: string, shown: string): Setting<boolean | null> => ({
  fallback: null,
  shown,
  doc,
  parse: (raw) => bool(false, doc).parse(raw),
});
/** Free text; `check` returns a problem or null. `shown` overrides how the default reads. */
export const text = <T extends string | null>(
  fallback: T,
  doc: string,
  options: { shown?: string; check?: (raw: string) => string | null } = {},
): Setting<T | string> => ({
  fallback,
  shown: options.shown ?? (fallback === null ? 'unset' : String(fallback)),
  doc,
  parse(raw) {
    const problem = options.check?.(raw) ?? null;
    return problem ? { problem } : { value: raw };
  },
});
export const oneOf = <T extends string>(values: readonly T[], fallback: T, doc: string): Setting<T> => ({
  fallback,
  shown: fallback,
  doc: `${doc} (${values.join(', ')})`,
  parse: (raw) =>
    (values as readonly string[]).includes(raw)
      ? { value: raw as T }
      : { problem: `must be one of ${values.join(', ')}` },
});
/** A secret: the value itself never goes into a message. */
export const privateKey = (doc: string, shown: string): Setting<`0x${string}` | null> => ({
  fallback: null,
  shown,
  doc,
  parse: (raw) =>
    /^0x[0-9a-fA-F]{64}$/.test(raw)
      ? { value: raw as `0x${string}` }
      : { problem: 'must be a 0x-prefixed 32-byte hex private key' },
});

/** A CIDR or a plain IPv4/IPv6 address. */
function isAddressOrCidr(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** `false`/`0`, a hop count, or a comma list of proxy addresses/CIDRs. `true` is refused: see Config.trustProxy. */
export const trustProxySetting = (): Setting<false | number | readonly string[]> => ({
  fallback: false,
  shown: 'false',
  doc: 'proxies trusted for X-Forwarded-For: false, a hop count (1-10), or addresses/CIDRs',
  parse(raw) {
    if (raw === 'false' || raw === '0') return { value: false };
    if (raw === 'true') {
      return {
        problem:
          '=true is refused: it lets a client choose its own IP; set the number of proxy hops (e.g. 1) or the proxy addresses',
      };
    }
    if (/^\d+$/.test(raw)) {
      return Number(raw) <= 10
        ? { value: Number(raw) }
        : { problem: `must be false, a hop count from 1 to 10, or proxy addresses; got "${raw}"` };
    }
    const list = raw.split(',').map((entry) => entry.trim());
    const bad = list.filter((entry) => !isAddressOrCidr(entry));
    if (bad.length === 0) return { value: Object.freeze(list) };
    return {
      problem: `must be false, a hop count, or a comma list of proxy addresses/CIDRs; "${bad.join('", "')}" is not one`,
    };
  },
});

import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { FerryError } from '../domain/ferry-error.ts';

/**
 * Addresses a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE_URLS is on: Ferry's own host and the networks
 * behind it (loopback, private, carrier-grade NAT, link-local, unique-local), and what is not a host at all.
 */
const REFUSED = new BlockList();
for (const [network, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  REFUSED.addSubnet(network, bits, 'ipv4');
}
for (const [network, bits] of [
  // IPv4-compatible (deprecated), `::` and `::1` included: nothing public answers there.
  ['::', 96],
  // NAT64 for local use (RFC 8215): translated by the operator's own gateway, into whatever network it serves.
  ['64:ff9b:1::', 48],
  // 6to4 (deprecated, RFC 7526): relayed to the IPv4 address inside by whichever relay is nearest.
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  REFUSED.addSubnet(network, bits, 'ipv6');
}

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address the packet reaches: IPv4-mapped (`::ffff:0:0/96`),
 * IPv4-translated (`::ffff:0:0:0/96`) and the well-known NAT64 prefix (`64:ff9b::/96`). The first six groups.
 */
const EMBEDDING_PREFIXES: readonly (readonly number[])[] = [
  [0, 0, 0, 0, 0, 0xffff],
  [0, 0, 0, 0, 0xffff, 0],
  [0x64, 0xff9b, 0, 0, 0, 0],
];

/** An IPv6 literal (as isIP accepts it) as its eight 16-bit groups. */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const high = part(head);
  const low = part(tail);
  return [...high, ...Array<number>(8 - high.length - low.length).fill(0), ...low];
}

/** The IPv4 address carried in the last 32 bits of the groups. */
const ipv4Of = (groups: readonly number[]) =>
  [groups[6] ?? 0, groups[7] ?? 0].flatMap((g) => [g >>> 8, g & 255]).join('.');

/**
 * Whether `address` (an IP literal) may not be reached: loopback, private, link-local, unique-local, multicast,
 * unspecified, and every IPv6 form that leads to such an IPv4 address (mapped, translated, NAT64) or to an IPv4
 * address chosen by someone else's gateway (local-use NAT64, 6to4, IPv4-compatible). Not an IP literal: refused.
 */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return REFUSED.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (EMBEDDING_PREFIXES.some((prefix) => prefix.every((group, i) => groups[i] === group))) {
    return REFUSED.check(ipv4Of(groups), 'ipv4');
  }
  return REFUSED.check(groups.map((g) => g.toString(16)).join(':'), 'ipv6');
}

/** A URL's host without IPv6 brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The problem with `raw` as a webhook URL, or null when it may be registered. Without private URLs only `https` to
 * a host that is not a refused IP literal; host names are resolved (and checked again) at each delivery.
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (allowPrivate) return null;
  if (url.protocol !== 'https:') return 'must be an https URL (http needs WEBHOOK_ALLOW_PRIVATE_URLS=true)';
  const host = bareHost(url);
  if (isIP(host) !== 0 && isRefusedAddress(host)) {
    return `must be a public address: ${host} is loopback, private or link-local (WEBHOOK_ALLOW_PRIVATE_URLS=false)`;
  }
  return null;
}

/**
 * A delivery's URL may not be reached: nothing was sent. The message names the host as the account wrote it, never
 * the address a name resolved to: the account must not learn how Ferry's own network resolves its names.
 */
export class WebhookAddressRefusedError extends FerryError {
  override readonly name = 'WebhookAddressRefusedError';
  constructor(reason: string) {
    super(`refused: ${reason}`, { retryable: true });
  }
}

/**
 * A host name that resolves to no address: a failure like any unreachable receiver (tried again later), not a
 * refusal. It carries the resolver's `ENOTFOUND` code so the delivery records "host not found".
 */
export class WebhookHostNotFoundError extends FerryError {
  override readonly name = 'WebhookHostNotFoundError';
  readonly code = 'ENOTFOUND';
  constructor(host: string) {
    super(`${host} has no address`, { retryable: true });
  }
}

/**
 * The refusal of a delivery to `url` before any lookup: the rule of registration (webhookUrlProblem) applied again,
 * since the setting may have been turned off after the endpoint was registered and IP literals are never resolved.
 */
export function deliveryUrlRefusal(url: URL, allowPrivate: boolean): WebhookAddressRefusedError | null {
  const problem = webhookUrlProblem(url.href, allowPrivate);
  return problem === null ? null : new WebhookAddressRefusedError(`the URL ${problem}`);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that resolves the host once, refuses it when any of its addresses is refused, and
 * hands the socket the very addresses it checked: a DNS answer that changes between check and connect (rebinding)
 * is never used.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (host: string, options: { all?: boolean }, callback: LookupCallback): void => {
    lookup(host, { all: true, verbatim: true })
      .then((addresses) => {
        if (!allowPrivate) {
          const refused = addresses.find((a) => isRefusedAddress(a.address));
          if (refused) {
            throw new WebhookAddressRefusedError(
              `${host} resolves to a loopback, private or link-local address (WEBHOOK_ALLOW_PRIVATE_URLS=false)`,
            );
          }
        }
        const [first] = addresses;
        if (!first) throw new WebhookHostNotFoundError(host);
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ''));
  };
}

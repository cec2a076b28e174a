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
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  REFUSED.addSubnet(network, bits, 'ipv6');
}

/** Whether `address` (an IP literal) is loopback, private, link-local or unique-local; IPv4 inside IPv6 included. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return REFUSED.check(address, 'ipv4');
  if (family !== 6) return true;
  // ::ffff:10.0.0.1 (IPv4-mapped) and 64:ff9b::a00:1 (NAT64) reach the IPv4 address inside.
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (embedded) return REFUSED.check(embedded, 'ipv4');
  const [, high, low] = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address) ?? [];
  if (high !== undefined && low !== undefined) {
    const n = (Number.parseInt(high, 16) << 16) | Number.parseInt(low, 16);
    return REFUSED.check([24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.'), 'ipv4');
  }
  return REFUSED.check(address, 'ipv6');
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

/** The host of a delivery resolves to an address webhooks may not reach: nothing was sent. */
export class WebhookAddressRefusedError extends FerryError {
  override readonly name = 'WebhookAddressRefusedError';
  constructor(host: string, address: string) {
    super(
      `refused: ${host} resolves to ${address}, a loopback, private or link-local address (WEBHOOK_ALLOW_PRIVATE_URLS=false)`,
      { retryable: true },
    );
  }
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
          if (refused) throw new WebhookAddressRefusedError(host, refused.address);
        }
        const [first] = addresses;
        if (!first) throw new Error(`${host} has no address`);
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ''));
  };
}

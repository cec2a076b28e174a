import {
  type Address,
  bytesToBigInt,
  concat,
  getAddress,
  type Hex,
  hexToBytes,
  keccak256,
  numberToHex,
  size,
  slice,
  toHex,
} from 'viem';
import { ChainError } from '../chain-error.ts';

/**
 * A LayerZero V2 packet as EndpointV2's PacketSent carries it (PacketV1Codec): an 81-byte header
 * (version 1, nonce 8, srcEid 4, sender 32, dstEid 4, receiver 32), then the guid (32) and the message.
 */
export interface LzPacket {
  /** The 81-byte header DVNs verify and ReceiveUln302 commits. */
  header: Hex;
  nonce: bigint;
  srcEid: number;
  /** The sending OApp, left-padded to 32 bytes. */
  sender: Hex;
  dstEid: number;
  receiver: Address;
  guid: Hex;
  message: Hex;
  /** keccak256(guid ‖ message): what DVNs attest and the endpoint stores until lzReceive. */
  payloadHash: Hex;
}

const HEADER_BYTES = 81;
const PACKET_VERSION = 1;

export function decodeLzPacket(encoded: Hex): LzPacket {
  if (size(encoded) < HEADER_BYTES + 32)
    throw new ChainError(`LayerZero packet too short (${size(encoded)} bytes)`);
  const version = Number(slice(encoded, 0, 1));
  if (version !== PACKET_VERSION)
    throw new ChainError(`LayerZero packet version ${version} is not ${PACKET_VERSION}`);
  const payload = slice(encoded, HEADER_BYTES);
  return {
    header: slice(encoded, 0, HEADER_BYTES),
    nonce: BigInt(slice(encoded, 1, 9)),
    srcEid: Number(slice(encoded, 9, 13)),
    sender: slice(encoded, 13, 45),
    dstEid: Number(slice(encoded, 45, 49)),
    receiver: getAddress(slice(encoded, 61, 81)),
    guid: slice(encoded, HEADER_BYTES, HEADER_BYTES + 32),
    message: size(payload) > 32 ? slice(encoded, HEADER_BYTES + 32) : '0x',
    payloadHash: keccak256(payload),
  };
}

/** The endpoint's Origin of a packet, as lzReceive takes it. */
export function lzOrigin(packet: LzPacket): { srcEid: number; sender: Hex; nonce: bigint } {
  return { srcEid: packet.srcEid, sender: packet.sender, nonce: packet.nonce };
}

/** An address as LayerZero's bytes32 peer / sender form. */
export function addressToBytes32(address: Address): Hex {
  return toHex(BigInt(address), { size: 32 });
}

/**
 * Type-3 options asking the executor for `gas` on lzReceive: 0x0003, then worker 1 (executor), option size 17,
 * option type 1 (LZRECEIVE) and the gas as uint128. SendUln302 refuses a send without options.
 */
export function lzReceiveOptions(gas: bigint): Hex {
  return concat(['0x0003', '0x01', '0x0011', '0x01', numberToHex(gas, { size: 16 })]);
}

const EXECUTOR_WORKER_ID = 1;
const LZ_RECEIVE_OPTION = 1;

/**
 * The gas a send's options ask the executor to give lzReceive, as LayerZero's executor reads them: type-3 options
 * (every executor LZRECEIVE option, summed) or the legacy type 1 and 2 (a uint256 gas after the type). Null when
 * the options ask for none or are malformed: the caller then has no gas to go by.
 */
export function lzReceiveGasOf(options: Hex): bigint | null {
  const bytes = hexToBytes(options);
  if (bytes.length < 2) return null;
  const type = (bytes[0] as number) * 256 + (bytes[1] as number);
  if (type === 1 || type === 2) return bytes.length >= 34 ? bytesToBigInt(bytes.subarray(2, 34)) : null;
  if (type !== 3) return null;
  let gas = 0n;
  let found = false;
  // Each option: worker id (1 byte), size (2 bytes), then `size` bytes: the option type and its parameters.
  for (let at = 2; at < bytes.length; ) {
    if (at + 3 > bytes.length) return null;
    const worker = bytes[at] as number;
    const size = (bytes[at + 1] as number) * 256 + (bytes[at + 2] as number);
    const body = bytes.subarray(at + 3, at + 3 + size);
    if (size === 0 || body.length !== size) return null;
    if (worker === EXECUTOR_WORKER_ID && body[0] === LZ_RECEIVE_OPTION) {
      // gas (uint128), optionally followed by a native value (uint128).
      if (body.length !== 17 && body.length !== 33) return null;
      gas += bytesToBigInt(body.subarray(1, 17));
      found = true;
    }
    at += 3 + size;
  }
  return found && gas > 0n ? gas : null;
}

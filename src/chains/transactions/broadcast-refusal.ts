import { walkCauses } from '../../domain/cause-walk.ts';

/**
 * Why a node refused a raw transaction, read by meaning: the wording differs between geth, anvil, erigon and
 * hosted RPCs. `known`: it already has it (as good as accepted). Null: not a refusal of the transaction itself
 * (the node is down, the request timed out): the caller's error handling decides.
 */
export type BroadcastRefusal = 'known' | 'nonce-too-low' | 'underpriced' | 'unfunded';

/** The messages and details (the node's words, for viem's errors) of the error and its causes. */
function texts(error: unknown): string {
  const out: string[] = [];
  walkCauses(error, (e) => {
    const { message, details } = e as { message?: unknown; details?: unknown };
    if (typeof message === 'string') out.push(message);
    if (typeof details === 'string') out.push(details);
    return false;
  });
  return out.join(' ').toLowerCase();
}

export function classifyRefusal(error: unknown): BroadcastRefusal | null {
  const all = texts(error);
  if (/already known|known transaction|already imported/.test(all)) return 'known';
  if (/nonce too low|nonce has already been used|nonce is too low/.test(all)) return 'nonce-too-low';
  if (
    /underpriced|less than block base fee|fee cap less than|feecap too low|max fee per gas less/.test(all)
  ) {
    return 'underpriced';
  }
  if (/insufficient funds|insufficient balance for transfer|not enough funds|lack of funds/.test(all)) {
    return 'unfunded';
  }
  return null;
}

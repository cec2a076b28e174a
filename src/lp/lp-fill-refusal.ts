import type { JournalQuote } from '../store/ledgers/lp-journal.ts';
import type { OrderView } from './ferry-api.ts';
import { quoteOutputAmount } from './pricing.ts';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Why the bot will not fill this order, or null: it fills only orders of quotes it made itself (in its journal), on
 * exactly those terms, at a price its pricing gives. Anyone holding the LP's API key can create and accept a quote
 * in its name; without this check the bot would pay out whatever such a quote promised.
 */
export function fillRefusal(
  order: OrderView,
  quote: JournalQuote | null,
  decimals: { input: number; output: number },
) {
  if (!quote) return 'this bot did not make the quote of this order (not in its journal)';
  const d = order.details;
  const terms =
    same(quote.inputChain, d.inputChain) &&
    same(quote.outputChain, d.outputChain) &&
    same(quote.inputToken, d.inputToken) &&
    same(quote.outputToken, d.outputToken) &&
    quote.inputAmount === BigInt(d.inputAmount) &&
    quote.outputAmount === BigInt(d.outputAmount);
  if (!terms) return "the order's terms differ from the quote this bot made";
  const priced = quoteOutputAmount(BigInt(d.inputAmount) - BigInt(d.protocolFee), quote.spreadBps, decimals);
  if (BigInt(d.outputAmount) > priced) {
    return `the order pays out ${d.outputAmount}, more than this bot's pricing gives (${priced})`;
  }
  return null;
}

/**
 * How the reference bot batches its proofs on LayerZero routes (lp-prover.ts): a proof message goes out once
 * DEFAULT_PROVE_BATCH fills of one route wait, or DEFAULT_PROVE_AFTER_SECONDS after the oldest of them was filled,
 * whichever comes first. A message costs about 440,000 gas whatever it carries (prove's LayerZero send, two DVN
 * verifications, the commit, lzReceive's base) and about 22,000 more per fill (bench scenarios 12 and 13), so a swap
 * costs about 180,000 + 440,000 / batch all in: 620,000 alone, 290,000 at 4, 225,000 at 10. The window is what the
 * LP's repayment waits at most beyond the proof's own delivery; at one swap a second it gathers about 8 fills.
 * It must stay below Ferry's `proveAfterSeconds` of the output chain (registry default 60 s, devnets 15 s), after
 * which Ferry's worker proves a fill nobody proved, one message per order. Kept apart from lp-bot.ts so the CLI can
 * show the defaults without loading the bot and viem.
 */
export const DEFAULT_PROVE_BATCH = 10;
export const DEFAULT_PROVE_AFTER_SECONDS = 8;

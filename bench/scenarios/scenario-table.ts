/**
 * Every bench scenario, as bench/run.ts runs them: those on the seeded Ferry in this order on each backend, then
 * each run of its own, then the PostgreSQL run. A new scenario is one more entry (bench/README.md).
 */
import { nodeFlags, say } from '../harness/bench-settings.ts';
import type { Scenario } from '../harness/scenario.ts';
import { runBatchSettlement } from './batched-proofs.ts';
import { runFadedLp } from './faded-lp.ts';
import { fanOut } from './fan-out.ts';
import { runLzGas } from './lz-gas.ts';
import { multiInstanceScenario } from './multi-instance-rows.ts';
import { rawPgWritesLocked } from './raw-pg-writes.ts';
import {
  createQuoteRequests,
  createQuotes,
  lpStream,
  ownOrder,
  publicOrdersPage,
  swapFlow,
} from './seeded-api.ts';
import { runSettlement } from './settlement-latency.ts';

export const SCENARIOS: readonly Scenario[] = [
  { id: '2', title: 'a page of the public order list', needs: ['seeded-ferry'], run: publicOrdersPage },
  { id: '3', title: "one of the money mover's orders", needs: ['seeded-ferry'], run: ownOrder },
  // Fan-out runs before the write scenarios: the quote requests and quotes they create expire minutes later,
  // and the sweeper's expiry events (up to 500 a second) would be fanned out to every client during 7.
  { id: '7', title: 'one write fanned out to streaming clients', needs: ['seeded-ferry'], run: fanOut },
  { id: '10', title: "the LPs' request stream", needs: ['seeded-ferry'], run: lpStream },
  { id: '4', title: 'creating quote requests', needs: ['seeded-ferry'], run: createQuoteRequests },
  { id: '5', title: 'creating quotes', needs: ['seeded-ferry'], run: createQuotes },
  { id: '6', title: 'the whole swap flow', needs: ['seeded-ferry'], run: swapFlow },
  { id: '11', title: 'settlement latency', needs: ['anvil', 'ferry'], run: runSettlement },
  { id: '12', title: 'gas per order through LayerZero V2', needs: ['anvil'], run: runLzGas },
  {
    id: '13',
    title: 'batched proofs under a steady stream',
    needs: ['anvil', 'ferry'],
    run: () => runBatchSettlement(say, nodeFlags),
  },
  { id: '14', title: 'the quoted LP fades', needs: ['anvil', 'ferry', 'named'], run: () => runFadedLp(say) },
  { id: '8', title: 'raw PostgreSQL writes under one lock', needs: ['postgres'], run: rawPgWritesLocked },
  {
    id: '9',
    title: 'the multi-instance run',
    needs: ['postgres', 'redis', 'ferry'],
    run: multiInstanceScenario,
  },
];

/** The simulator's mutable state: one per simulator instance, built from deterministic fixtures. */
import { createCertificateState, type CertificateState } from './fixtures/certificates.fixtures.ts';
import { createHostingState, type HostingState } from './fixtures/hosting.fixtures.ts';
import { createCommerceState, type CommerceState } from './fixtures/commerce.fixtures.ts';
import { createSubgraphState, type SubgraphState } from './fixtures/subgraph.fixtures.ts';

export interface SimState {
  certificates: CertificateState;
  hosting: HostingState;
  commerce: CommerceState;
  subgraphs: SubgraphState;
}

/** Knobs that change behaviour at run time; tests may set them through `Simulator.configure`. */
export interface SimKnobs {
  latencyMs: number;
  faultRate: number;
  /** The catalog subgraph's own burst limit per credential per minute (it "also returns 429"). */
  catalogPerMinute: number;
}

export interface SimContext {
  readonly state: SimState;
  readonly now: () => number;
  readonly knobs: SimKnobs;
  /** Called by `POST /__sim/reset`: route-local counters and windows register here. */
  readonly onReset: Array<() => void>;
}

export async function createSimState(now: () => number): Promise<SimState> {
  const start = now();
  return {
    certificates: createCertificateState(start),
    hosting: createHostingState(start),
    commerce: createCommerceState(start),
    subgraphs: createSubgraphState(start),
  };
}

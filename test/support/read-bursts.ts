/**
 * Reads sent to gateway replicas at once while the simulator holds them, for the tests that count
 * what each replica decided alone (no answer tells it what is left) — and what the reads were
 * answered: data, or a refusal by name. Each read is one upstream call (a certificate of
 * demo-customer; reads at once name distinct ones, so none is coalesced with another).
 */
import { expect } from 'vitest';
import { until } from './clock.ts';
import type { GatewayProcess } from './gateway-process.ts';
import type { ReplicaDoors } from './replica-doors.ts';

const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") { certificate(certificateId: $id) { certificateId } } }`;

/** demo-customer's certificates are cert-0001 to cert-0044. */
const cert = (n: number) => `cert-${String((n % 44) + 1).padStart(4, '0')}`;

/** One certificate read (the `n`th certificate, modulo 44) as demo-token: the response body. */
export const readCertificate = async (replica: GatewayProcess, n: number): Promise<any> =>
  (await replica.gql(DETAIL, { id: cert(n) })).body;

export interface HeldBursts {
  /** Reads of each replica that reached the simulator. */
  readonly sent: readonly number[];
  /** Reads of each replica that it refused before they were sent, when the bursts settled. */
  readonly refused: readonly number[];
  /** What refused each of them, by replica: the limiter, else the error's code (and message). */
  readonly refusedBy: readonly (readonly string[])[];
  /** Each replica's answers, once the simulator answers what it holds. */
  readonly answers: readonly Promise<any[]>[];
  /** Whether every read was held at the simulator or refused before `settleMs`. */
  readonly settled: boolean;
}

/**
 * Sends `sizes[r]` reads at once to replica r (the test holds them at the simulator), and resolves
 * once every one has reached the simulator or been refused by its replica — or after `settleMs`
 * (`settled` says which), so that a build whose reads wait for the held answers still gets counted.
 * `first` numbers the certificates, 20 apart per replica.
 */
export async function heldBursts(
  replicas: readonly GatewayProcess[],
  doors: ReplicaDoors,
  sizes: readonly number[],
  { first, settleMs }: { first: number; settleMs: number },
): Promise<HeldBursts> {
  const before = replicas.map((_, r) => doors.sent(r));
  const refused = replicas.map(() => 0);
  const refusedBy = replicas.map((): string[] => []);
  const answers = replicas.map((replica, r) =>
    Promise.all(
      Array.from({ length: sizes[r] ?? 0 }, (_, i) =>
        readCertificate(replica, first + r * 20 + i).then((body) => {
          if (body.errors) {
            refused[r]! += 1;
            const { extensions, message } = body.errors[0] ?? {};
            refusedBy[r]!.push(extensions?.limiter ?? `${extensions?.code}: ${message}`);
          }
          return body;
        }),
      ),
    ),
  );
  const sent = () => replicas.map((_, r) => doors.sent(r) - before[r]!);
  const settled = await until(
    () => sent().every((n, r) => n + refused[r]! === sizes[r]),
    'every read of the bursts held at the upstream or refused',
    settleMs,
  ).then(
    () => true,
    () => false,
  );
  return {
    sent: sent(),
    refused: [...refused],
    refusedBy: refusedBy.map((names) => [...names]),
    answers,
    settled,
  };
}

/** How a refused read may be named: RATE_LIMITED, by the limiter that said no. */
const READ_LIMITERS = ['SHARED_BUDGET', 'RESERVE', 'CREDENTIAL'];

/** Every read answered with its certificate or refused by name, and no other error. */
export function expectAnsweredOrRefusedByName(bodies: readonly any[]): void {
  for (const body of bodies) {
    for (const error of body.errors ?? []) {
      expect(error.extensions?.code, JSON.stringify(error)).toBe('RATE_LIMITED');
      expect(READ_LIMITERS, JSON.stringify(error)).toContain(error.extensions.limiter);
    }
    if (!body.errors) {
      expect(body.data.certificateCustomer.certificate.certificateId).toMatch(/^cert-/);
    }
  }
}

/** The reads by answer: `data`, else the limiter (or the code) of the first error. */
export function answersOf(bodies: readonly any[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const body of bodies) {
    const first = body.errors?.[0]?.extensions;
    const name = body.errors ? String(first?.limiter ?? first?.code) : 'data';
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** The limiters that refused these reads. */
export const limitersOf = (bodies: readonly any[]): string[] =>
  bodies.flatMap((body) =>
    (body.errors ?? []).map((error: any) => String(error.extensions?.limiter)),
  );

/** The simulation's outcomes as the markdown tables of docs/budget.md "Across replicas: leases". */
import type { Outcome } from './world.ts';

const percent = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)} %`;
const fixed = (value: number, digits = 2) => value.toFixed(digits);

function table(header: string[], rows: string[][]): string {
  const lines = [header, header.map(() => '---'), ...rows].map(
    (cells) => `| ${cells.join(' | ')} |`,
  );
  return lines.join('\n');
}

/** Cost at steady load: script runs, per call and by credential rank, and the calls that wait. */
export function costTable(outcomes: readonly (Outcome & { redisRttMs: number })[]): string {
  return table(
    [
      'scenario',
      'design',
      'Redis RTT',
      'script runs / s',
      'per upstream call',
      'by credential rank (1–10 · 11–100 · 101–1000)',
      'calls that wait for Redis',
      'their wait (p50 · p99)',
    ],
    outcomes.map((outcome) => [
      outcome.scenario,
      outcome.design,
      `${outcome.redisRttMs} ms`,
      fixed(outcome.scriptRunsPerSec, 0),
      fixed(outcome.scriptRunsPerCall),
      outcome.tiers.map((tier) => fixed(tier.scriptRunsPerCall)).join(' · '),
      percent(outcome.waitedShare),
      `${fixed(outcome.waitedP50Ms, 1)} · ${fixed(outcome.waitedP99Ms, 1)} ms`,
    ]),
  );
}

/** The nearly spent window: 429s, what was served and refused, and fairness between replicas. */
export function scarcityTable(outcomes: readonly Outcome[]): string {
  return table(
    [
      'scenario',
      'design',
      'upstream 429s',
      'reads past their room',
      'reads sent',
      'refused: budget',
      'refused: Redis unreachable',
      'served / wanted: heavy · light replicas',
      'room left unspent while refusing',
    ],
    outcomes.map((outcome) => [
      outcome.scenario,
      outcome.design,
      String(outcome.upstream429),
      String(outcome.pastReadRoom),
      String(outcome.sent),
      String(outcome.refused),
      String(outcome.refusedUnreachable),
      `${percent(outcome.heavyServed)} · ${percent(outcome.lightServed)}`,
      String(outcome.unspentWhileRefused),
    ]),
  );
}

/**
 * Which signal starts the drain and which forces the exit (src/server/shutdown/shutdown-signals.ts):
 * under npm the first repeat of the first signal is npm's forwarded copy, not a second request.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  onShutdownSignals,
  type ShutdownSignal,
} from '../../../src/server/shutdown/shutdown-signals.ts';

function signalled(forwardedCopies: number, signals: ShutdownSignal[]) {
  const target = new EventEmitter();
  const seen: string[] = [];
  onShutdownSignals(
    {
      onFirst: (signal) => seen.push(`drain ${signal}`),
      onForce: (signal) => seen.push(`force ${signal}`),
    },
    forwardedCopies,
    target as never,
  );
  for (const signal of signals) target.emit(signal);
  return seen;
}

describe('shutdown signals', () => {
  it("under npm, a group's signal (twice: direct and forwarded) drains once; a third forces", () => {
    expect(signalled(1, ['SIGTERM', 'SIGTERM'])).toEqual(['drain SIGTERM']);
    expect(signalled(1, ['SIGINT', 'SIGINT', 'SIGINT'])).toEqual(['drain SIGINT', 'force SIGINT']);
    // Another signal is never a copy of the first.
    expect(signalled(1, ['SIGTERM', 'SIGINT'])).toEqual(['drain SIGTERM', 'force SIGINT']);
  });

  it('run directly (node src/main.ts), the second signal forces', () => {
    expect(signalled(0, ['SIGTERM', 'SIGTERM'])).toEqual(['drain SIGTERM', 'force SIGTERM']);
  });
});

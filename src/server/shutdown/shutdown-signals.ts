/**
 * Which SIGTERM/SIGINT starts the drain, and which one forces the exit (docs/deploy.md
 * "Shutdown"): the first starts it; a later one exits at once — except the copy npm forwards.
 *
 * `npm start` execs node (package.json), so node is npm's child, and npm (its run-script) forwards
 * every SIGTERM and SIGINT it receives to that child. A signal sent to the whole process group — a
 * terminal's Ctrl-C, systemd's default `KillMode=control-group`, `kill -- -PGID` — therefore reaches
 * node twice: once directly, once through npm. Counted as two, that one request to stop would skip the
 * drain (exit 1 mid-request). Under npm the first repeat of the first signal is taken as that copy:
 * a person who means "now" presses Ctrl-C again (a third and fourth copy), and a supervisor that sent
 * its signal to npm alone gets the drain, bounded by the shutdown watchdog, either way.
 */

export type ShutdownSignal = 'SIGTERM' | 'SIGINT';

const SIGNALS: readonly ShutdownSignal[] = ['SIGTERM', 'SIGINT'];

export interface ShutdownSignalHandlers {
  /** The first signal: start the drain. */
  readonly onFirst: (signal: ShutdownSignal) => void;
  /** A signal after the first (not npm's copy of it): exit now. */
  readonly onForce: (signal: ShutdownSignal) => void;
}

/**
 * Listens to SIGTERM and SIGINT on `target` (the process). `forwardedCopies`: how many repeats of the
 * first signal are the forwarder's copies, not requests of their own (1 under npm, else 0:
 * config.ts's `startedByNpm`).
 */
export function onShutdownSignals(
  handlers: ShutdownSignalHandlers,
  forwardedCopies: number,
  target: Pick<NodeJS.Process, 'on'> = process,
): void {
  let first: ShutdownSignal | undefined;
  let copiesLeft = forwardedCopies;
  const onSignal = (signal: ShutdownSignal) => {
    if (first === undefined) {
      first = signal;
      handlers.onFirst(signal);
      return;
    }
    if (signal === first && copiesLeft > 0) {
      copiesLeft -= 1;
      return;
    }
    handlers.onForce(signal);
  };
  for (const signal of SIGNALS) target.on(signal, () => onSignal(signal));
}

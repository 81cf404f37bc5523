/**
 * The signals Node answers with a diagnosis, when its flags ask it to: a heap snapshot
 * (`--heapsnapshot-signal`) or a diagnostic report (`--report-on-signal`, on SIGUSR2 unless
 * `--report-signal` names another). Such a signal must not also stop Weft: close-with-grace, which
 * shuts down on the signals that would otherwise end the process, listens to SIGUSR2 among them,
 * and an operator taking a heap snapshot of a replica would have drained it (docs/deploy.md
 * "Shutdown").
 */

/** How a diagnostic report is asked for, as `process.report` tells (its flags already read). */
export interface ReportOnSignal {
  readonly reportOnSignal: boolean;
  readonly signal: string;
}

/** The value of `--heapsnapshot-signal` among these flags (`=value` or the next flag), if any. */
function heapSnapshotSignal(flags: readonly string[]): string | undefined {
  let signal: string | undefined;
  flags.forEach((flag, index) => {
    const [name, value] = flag.replaceAll('_', '-').split('=', 2) as [string, string | undefined];
    if (name !== '--heapsnapshot-signal') return;
    signal = value ?? flags[index + 1];
  });
  return signal;
}

/**
 * The signals Node itself handles for a diagnosis in this process, from its flags (`NODE_OPTIONS`'s
 * and the command line's) and `process.report`.
 */
export function diagnosticSignals(
  flags: readonly string[],
  report: ReportOnSignal | undefined,
): string[] {
  const signals = new Set<string>();
  const snapshot = heapSnapshotSignal(flags);
  if (snapshot) signals.add(snapshot);
  if (report?.reportOnSignal) signals.add(report.signal);
  return [...signals];
}

import { describe, expect, it } from 'vitest';
import { nodeOptionFlags } from '../../../../src/config.ts';
import { diagnosticSignals } from '../../../../src/server/shutdown/diagnostic-signals.ts';

const NO_REPORT = { reportOnSignal: false, signal: 'SIGUSR2' };

describe('the signals Node answers with a diagnosis', () => {
  it('reads --heapsnapshot-signal in each form Node takes, from NODE_OPTIONS and the command line', () => {
    expect(diagnosticSignals(['--heapsnapshot-signal=SIGUSR2'], NO_REPORT)).toEqual(['SIGUSR2']);
    expect(diagnosticSignals(['--heapsnapshot-signal', 'SIGUSR1'], NO_REPORT)).toEqual(['SIGUSR1']);
    expect(diagnosticSignals(['--heapsnapshot_signal=SIGHUP'], NO_REPORT)).toEqual(['SIGHUP']);
    const flags = [
      ...nodeOptionFlags({
        NODE_OPTIONS: ' --max-old-space-size=384  --heapsnapshot-signal=SIGUSR2 ',
      }),
      '--expose-gc',
    ];
    expect(diagnosticSignals(flags, NO_REPORT)).toEqual(['SIGUSR2']);
  });

  it('adds the report’s signal when reports are taken on a signal, and nothing otherwise', () => {
    expect(diagnosticSignals([], { reportOnSignal: true, signal: 'SIGUSR2' })).toEqual(['SIGUSR2']);
    expect(
      diagnosticSignals(['--heapsnapshot-signal=SIGUSR2'], {
        reportOnSignal: true,
        signal: 'SIGUSR2',
      }),
    ).toEqual(['SIGUSR2']);
    expect(diagnosticSignals(['--max-old-space-size=384', '--expose-gc'], NO_REPORT)).toEqual([]);
    expect(nodeOptionFlags({})).toEqual([]);
  });
});

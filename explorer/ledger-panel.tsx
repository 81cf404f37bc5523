/**
 * The ledger panel: a GraphiQL plugin (its icon in the sidebar) that shows, for the last operation
 * the explorer ran, every upstream call it needed — method, route template, status, what served it,
 * attempts, time, the GraphQL paths that asked — the totals with the bound computed before the run
 * beside the calls made ("bound N · made M"), and the credential's budget after it
 * (docs/try-it.md "The explorer"). It reads what the response carried; it counts nothing.
 */
import type { GraphiQLPlugin } from '@graphiql/react';
import { useSyncExternalStore, type SVGProps } from 'react';
import type { LastRun, LastRunStore } from './last-run.ts';
import { callTimeMs, ledgerRows, type Ledger } from './ledger.ts';

export const LEDGER_PLUGIN_TITLE = 'Upstream ledger';

function Budget({ budget }: { budget: Ledger['budget'] }) {
  if (budget === null) {
    return (
      <p className="weft-ledger-note" data-name="no-budget">
        No budget: the request carried no credential the gateway knows.
      </p>
    );
  }
  return (
    <dl className="weft-ledger-facts weft-ledger-budget">
      <dt>Remaining</dt>
      <dd data-name="remaining">{budget.remaining}</dd>
      <dt>Limit</dt>
      <dd data-name="limit">{budget.limit}</dd>
      <dt>Resets in</dt>
      <dd data-name="resetSec">{budget.resetSec} s</dd>
      <dt>Write reserve</dt>
      <dd data-name="writeReserve">{budget.writeReserve}</dd>
    </dl>
  );
}

function Calls({ ledger }: { ledger: Ledger }) {
  const rows = ledgerRows(ledger);
  if (rows.length === 0) {
    return (
      <p className="weft-ledger-note" data-name="no-calls">
        {ledger.replayed
          ? 'A replay of a whole earlier response (Idempotency-Key): no call was made, none is listed.'
          : 'No upstream call: everything was answered by the gateway itself.'}
      </p>
    );
  }
  return (
    <table className="weft-ledger-calls">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Call</th>
          <th scope="col">Status</th>
          <th scope="col">Source</th>
          <th scope="col" title="Upstream requests that got an answer (retries included)">
            Tries
          </th>
          <th scope="col">ms</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index} data-source={row.source}>
            <td>{index + 1}</td>
            <td>
              <span data-col="method">{row.method}</span>{' '}
              <span data-col="route" className="weft-ledger-route">
                {row.route}
              </span>
              {row.paths && (
                <div data-col="paths" className="weft-ledger-paths">
                  {row.paths}
                </div>
              )}
            </td>
            <td data-col="status">{row.status}</td>
            <td data-col="source">{row.detail}</td>
            <td data-col="attempts">{row.attempts}</td>
            <td data-col="ms">{row.ms}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The panel's content for one state of the last run (pure: tested without a browser). */
export function LedgerView({ run }: { run: LastRun | undefined }) {
  if (run === undefined) {
    return (
      <div className="weft-ledger">
        <div className="weft-ledger-title">{LEDGER_PLUGIN_TITLE}</div>
        <p className="weft-ledger-note" data-name="no-run">
          Run an operation: the upstream calls it needed show here, with your budget after it.
        </p>
      </div>
    );
  }
  const { ledger } = run;
  return (
    <div className="weft-ledger" data-state={run.state}>
      <div className="weft-ledger-title">{LEDGER_PLUGIN_TITLE}</div>
      <p className="weft-ledger-run">
        <strong data-name="operation">{run.operation}</strong>,{' '}
        {new Date(run.startedAt).toLocaleTimeString()}
        {run.state === 'running' && ' — running…'}
        {run.state === 'failed' && ' — the request failed'}
        {run.events > 1 && ` — ${run.events} events, the latest shown`}
      </p>
      {ledger === undefined ? (
        run.state === 'running' ? null : (
          <p className="weft-ledger-note" data-name="no-ledger">
            The response carried no ledger (<code>extensions.upstream</code>).
          </p>
        )
      ) : (
        <>
          <h3>Budget after it</h3>
          <Budget budget={ledger.budget} />
          <h3>Totals</h3>
          <dl className="weft-ledger-facts weft-ledger-totals">
            <dt>Reached the upstream</dt>
            <dd data-name="upstream">{ledger.totals.upstream}</dd>
            <dt>Served without it</dt>
            <dd data-name="withoutUpstream">{ledger.totals.withoutUpstream}</dd>
            <dt>Calls listed</dt>
            <dd data-name="listed">{ledger.calls.length}</dd>
            <dt>Time in calls</dt>
            <dd data-name="callTime">{callTimeMs(ledger).toFixed(1)} ms</dd>
            <dt title="The upper bound computed before the run (then once its unpaged lists arrived), and the calls that reached the upstream">
              Bound, made
            </dt>
            <dd data-name="boundMade">
              bound <span data-name="bound">{ledger.bound ?? '—'}</span>
              {ledger.refinedBound === undefined ? null : (
                <span title="Once the unpaged lists arrived, with their real lengths">
                  {' '}
                  → <span data-name="refinedBound">{ledger.refinedBound}</span>
                </span>
              )}{' '}
              · made <span data-name="made">{ledger.totals.upstream}</span>
            </dd>
          </dl>
          <h3>Calls</h3>
          <Calls ledger={ledger} />
        </>
      )}
    </div>
  );
}

function LedgerIcon(props: SVGProps<SVGSVGElement>) {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.5" {...props}>
      <path d="M5 4h14v16H5z" />
      <path d="M8 8h8M8 12h8M8 16h5" />
    </svg>
  );
}

export function ledgerPlugin(lastRun: LastRunStore): GraphiQLPlugin {
  function LedgerContent() {
    const run = useSyncExternalStore(lastRun.subscribe, lastRun.get);
    return <LedgerView run={run} />;
  }
  return { title: LEDGER_PLUGIN_TITLE, icon: LedgerIcon, content: LedgerContent };
}

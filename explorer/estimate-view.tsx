/**
 * The estimate before a run, under the response (GraphiQL's footer): the operation's upper bound of
 * upstream calls and its costliest fields, or the per-operation limit a run would be refused by
 * (docs/try-it.md "The explorer"). `EstimateWatch` (`estimate-watch.tsx`) hands the estimator
 * (`estimate.ts`) the editors' text; `EstimateBar` shows what it answered.
 */
import { useSyncExternalStore } from 'react';
import {
  topFields,
  type Estimate,
  type EstimateSkip,
  type EstimateState,
  type Estimator,
} from './estimate.ts';

const SKIPPED: Record<EstimateSkip, string> = {
  'no-token': 'Set your token in the Headers tab: the estimate is asked for with it.',
  empty: 'No operation to estimate.',
  syntax: 'The document does not parse yet.',
  variables: 'The variables are not a JSON object.',
  subscription: 'A subscription has no bound: its polls are bounded per event.',
};

function Answer({ estimate }: { estimate: Estimate }) {
  switch (estimate.kind) {
    case 'bound': {
      const top = topFields(estimate);
      return (
        <>
          <span className="weft-estimate-bound">
            at most <strong data-name="estimate-calls">{estimate.calls}</strong> upstream{' '}
            {estimate.calls === 1 ? 'call' : 'calls'}
          </span>
          {top.length > 0 && (
            <ul className="weft-estimate-fields" data-name="estimate-fields">
              {top.map((entry) => (
                <li key={entry.field}>
                  <code data-col="field">{entry.field}</code>{' '}
                  <span data-col="calls">{entry.calls}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      );
    }
    case 'over-limit':
      return (
        <span className="weft-estimate-refused" data-name="estimate-over-limit">
          a run would be refused: at most{' '}
          <strong data-name="estimate-actual">{estimate.actual}</strong> upstream calls, the limit
          is <strong data-name="estimate-max">{estimate.max}</strong>
        </span>
      );
    case 'refused':
      return (
        <span className="weft-estimate-refused" data-name="estimate-refused">
          {estimate.message}
        </span>
      );
    case 'unavailable':
      return (
        <span className="weft-estimate-note" data-name="estimate-unavailable">
          No estimate: {estimate.message}
        </span>
      );
  }
}

/** The footer's content for one state of the estimator (pure: tested without a browser). */
export function EstimateView({ state }: { state: EstimateState }) {
  const shown =
    state.status === 'done'
      ? state.estimate
      : state.status === 'pending'
        ? state.previous
        : undefined;
  return (
    <div className="weft-estimate" data-status={state.status}>
      <span className="weft-estimate-title">Before a run</span>
      {state.status === 'idle' && <span className="weft-estimate-note">—</span>}
      {state.status === 'skipped' && (
        <span
          className="weft-estimate-note"
          data-name="estimate-skipped"
          data-reason={state.reason}
        >
          {SKIPPED[state.reason]}
        </span>
      )}
      {shown && <Answer estimate={shown} />}
      {state.status === 'pending' && (
        <span className="weft-estimate-note" data-name="estimate-pending">
          {shown ? ' (updating…)' : 'estimating…'}
        </span>
      )}
    </div>
  );
}

export function EstimateBar({ estimator }: { estimator: Estimator }) {
  const state = useSyncExternalStore(estimator.subscribe, estimator.get);
  return <EstimateView state={state} />;
}

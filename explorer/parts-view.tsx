/**
 * "As it arrived", in GraphiQL's footer under the response: the parts of the last run's answer in
 * parts (`@defer`, `@stream`), or its subscription's events, each with the time it came after the
 * request was sent — while more is still to come and after (docs/try-it.md "The explorer"). The
 * response editor shows what GraphiQL made of them (the parts merged, the latest event); this line
 * shows the pieces: which came first, which deferred fragment (label, path) and which streamed
 * items (label, list, how many) came when. Nothing for a run answered in one piece.
 */
import { useSyncExternalStore } from 'react';
import type { LastRun, LastRunStore } from './last-run.ts';
import { describePieces, type ArrivedPart } from './response-parts.ts';

function describePart(part: ArrivedPart): string {
  const errors =
    part.errors > 0 ? ` (${part.errors} ${part.errors === 1 ? 'error' : 'errors'})` : '';
  switch (part.kind) {
    case 'first':
      return `first part${errors}`;
    case 'later':
      return `${part.pieces.length === 0 ? 'last part' : describePieces(part.pieces)}${errors}`;
    case 'event':
      return `event ${part.index}${errors}`;
  }
}

/** The footer's line for one last run (pure: tested without a browser). */
export function PartsView({ run }: { run: LastRun | undefined }) {
  if (run === undefined || run.delivery === 'single') return null;
  const noun = run.delivery === 'parts' ? 'part' : 'event';
  const waiting = run.delivery === 'parts' ? 'more to come…' : 'listening…';
  const finished = run.delivery === 'parts' ? 'complete' : 'the stream ended';
  const hidden = run.arrived - run.parts.length;
  return (
    <div
      className="weft-parts"
      data-delivery={run.delivery}
      data-more={run.more ? 'true' : 'false'}
      data-arrived={run.arrived}
    >
      <span className="weft-parts-title">As it arrived</span>
      <span data-name="parts-count">
        {run.arrived} {run.arrived === 1 ? noun : `${noun}s`}
      </span>
      <ol className="weft-parts-list">
        {hidden > 0 && <li className="weft-parts-note">{hidden} earlier not listed</li>}
        {run.parts.map((part) => (
          <li key={part.index} data-kind={part.kind} data-index={part.index}>
            <span data-col="what">{describePart(part)}</span>
            {' · '}
            <span data-col="at">{part.atMs} ms</span>
          </li>
        ))}
      </ol>
      <span className="weft-parts-note" data-name="parts-state">
        {run.state === 'failed' ? 'failed' : run.more ? waiting : finished}
      </span>
    </div>
  );
}

export function PartsBar({ lastRun }: { lastRun: LastRunStore }) {
  const run = useSyncExternalStore(lastRun.subscribe, lastRun.get);
  return <PartsView run={run} />;
}

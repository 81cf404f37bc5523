/**
 * Inside GraphiQL (a child of its provider, for the header editor): learns the shared token from the
 * user's edits, and writes it into whatever GraphiQL itself puts in the header editor.
 *
 * GraphiQL 5 has one Monaco header editor for all tabs and fills it with `setValue` on every tab
 * switch, new tab, closed tab and prettify: Monaco reports those as a "flush" of the model, the
 * user's typing as ordinary edits. So a token typed in any tab becomes the shared one at once, and
 * every tab GraphiQL shows afterwards — new, never opened, opened before — gets it written in before
 * anything runs; removing it in one tab puts the placeholder back where another tab had it.
 */
import { useGraphiQL } from '@graphiql/react';
import { useEffect } from 'react';
import type { SharedToken, tokenRules } from './shared-token.ts';

interface TokenSyncProps {
  readonly token: SharedToken;
  readonly rules: ReturnType<typeof tokenRules>;
}

export function TokenSync({ token, rules }: TokenSyncProps): null {
  const editor = useGraphiQL((state) => state.headerEditor);
  useEffect(() => {
    const model = editor?.getModel();
    if (!editor || !model) return undefined;
    const sync = () => {
      const text = editor.getValue();
      const next = rules.withToken(text, token.get());
      if (next !== text) editor.setValue(next);
    };
    const subscription = model.onDidChangeContent((event) => {
      // A change handler must not change the text: the sync waits for GraphiQL's own update.
      if (event.isFlush) queueMicrotask(sync);
      else {
        const typed = rules.tokenIn(editor.getValue());
        if (typed !== undefined) token.set(typed);
      }
    });
    sync();
    return () => subscription.dispose();
  }, [editor, token, rules]);
  return null;
}

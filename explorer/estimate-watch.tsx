/**
 * Inside GraphiQL (a child of its provider, for the editors): hands the estimator (`estimate.ts`)
 * the operation, variables and header editors' text, the operation GraphiQL would run and the
 * shared token, on every change of any of them — typing, a tab switch (GraphiQL refills its one
 * editor of each kind), a token typed in any tab.
 */
import { useGraphiQL } from '@graphiql/react';
import { useEffect } from 'react';
import type { Estimator } from './estimate.ts';
import type { SharedToken } from './shared-token.ts';

interface EstimateWatchProps {
  readonly estimator: Estimator;
  readonly token: SharedToken;
}

export function EstimateWatch({ estimator, token }: EstimateWatchProps): null {
  const queryEditor = useGraphiQL((state) => state.queryEditor);
  const variableEditor = useGraphiQL((state) => state.variableEditor);
  const headerEditor = useGraphiQL((state) => state.headerEditor);
  const operationName = useGraphiQL((state) => state.operationName);
  useEffect(() => {
    if (!queryEditor) return undefined;
    const read = () =>
      estimator.update({
        query: queryEditor.getValue(),
        variables: variableEditor?.getValue() ?? '',
        headers: headerEditor?.getValue() ?? '',
        operationName: operationName || undefined,
        token: token.get(),
      });
    const editors = [queryEditor, variableEditor, headerEditor].filter((editor) => !!editor);
    const subscriptions = editors.flatMap((editor) => [
      editor.onDidChangeModelContent(read),
      editor.onDidChangeModel(read),
    ]);
    const unsubscribe = token.subscribe(read);
    read();
    return () => {
      for (const subscription of subscriptions) subscription.dispose();
      unsubscribe();
    };
  }, [estimator, token, queryEditor, variableEditor, headerEditor, operationName]);
  useEffect(() => () => estimator.dispose(), [estimator]);
  return null;
}

/**
 * GraphiQL's editors as the browser tests read them. Both functions run in the page (serialized by
 * Playwright, so each is self-contained): the text of the Monaco model whose URI ends with `name`
 * (`operation.graphql`, `request-headers.json`, `response.json`; GraphiQL 5 keeps its Monaco at
 * `globalThis.__MONACO`). Functions, not strings: the page's CSP forbids evaluating strings, as it
 * should.
 */
export const editorText = (name: string): string =>
  String(
    (globalThis as any).__MONACO?.editor
      .getModels()
      .find((model: any) => model.uri.path.endsWith(name))
      ?.getValue() ?? '',
  );

/** Whether the editor `name` shows `text` (for `page.waitForFunction`). */
export const editorIncludes = ({ name, text }: { name: string; text: string }): boolean =>
  String(
    (globalThis as any).__MONACO?.editor
      .getModels()
      .find((model: any) => model.uri.path.endsWith(name))
      ?.getValue() ?? '',
  ).includes(text);

/**
 * The one `Authorization` header every tab uses. GraphiQL sends the headers its editor shows (the
 * fetcher adds only `Weft-Priority` and `Weft-Ledger`), so the token has to be in each tab's editor:
 * `token-sync.ts` writes it there. This file holds the token and the text rules.
 *
 * It is kept for this browser tab's session (sessionStorage: only this origin, gone when the tab
 * closes, never in localStorage), with React's external-store protocol so components can follow it.
 */

const KEY = 'weft-explorer-authorization';

export interface SharedToken {
  /** The token (null: none yet). */
  get(): string | null;
  set(value: string | null): void;
  /** React's `useSyncExternalStore` subscription. */
  subscribe(listener: () => void): () => void;
}

export function createSharedToken(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>) {
  let token: string | null;
  try {
    token = storage.getItem(KEY);
  } catch {
    token = null;
  }
  let listeners: (() => void)[] = [];
  const shared: SharedToken = {
    get: () => token,
    set(value) {
      if (value === token) return;
      token = value;
      try {
        if (value === null) storage.removeItem(KEY);
        else storage.setItem(KEY, value);
      } catch {
        // Private mode: memory only.
      }
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.push(listener);
      return () => {
        listeners = listeners.filter((other) => other !== listener);
      };
    },
  };
  return shared;
}

type Headers = Record<string, unknown>;

/**
 * A header editor's text as an object; {} when empty (GraphiQL sends none); null when it is not a
 * JSON object (the user is mid-edit, or it is wrong: GraphiQL refuses to run it).
 */
export function parseHeaders(text: string): Headers | null {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Headers)
    : null;
}

function authorizationName(headers: Headers): string | undefined {
  return Object.keys(headers).find((name) => name.toLowerCase() === 'authorization');
}

/** The rules, for one placeholder (the header editor's initial `Authorization`). */
export function tokenRules(placeholder: string) {
  const isToken = (value: unknown): value is string =>
    typeof value === 'string' && value.trim() !== '' && value !== placeholder;
  return {
    /**
     * What a user's edit makes the shared token: its Authorization, or null (removed, placeholder);
     * undefined while the text is no JSON object.
     */
    tokenIn(text: string): string | null | undefined {
      const headers = parseHeaders(text);
      if (headers === null) return undefined;
      const name = authorizationName(headers);
      const value = name === undefined ? undefined : headers[name];
      return isToken(value) ? value : null;
    },
    /** The text with the shared token in it; the same text when it already agrees (or is no object). */
    withToken(text: string, shared: string | null): string {
      const headers = parseHeaders(text);
      if (headers === null) return text;
      const name = authorizationName(headers);
      const current = name === undefined ? undefined : headers[name];
      const wanted = shared !== null ? shared : isToken(current) ? placeholder : current;
      if (current === wanted) return text;
      headers[name ?? 'Authorization'] = wanted;
      return JSON.stringify(headers, null, 2);
    },
  };
}

/**
 * GraphiQL keeps tabs, history and settings in localStorage (under the `weft-explorer` namespace):
 * never with a token in them. With `shouldPersistHeaders` off it stores no tab's headers; this
 * storage also replaces any bearer token in what it is given (the history keeps headers) with the
 * placeholder, so a token never outlives the browser tab.
 */
import { createLocalStorage, type Storage } from '@graphiql/toolkit';

/** `value` with every `Bearer <token>` replaced by `placeholder`. */
export function scrubBearer(value: string, placeholder: string): string {
  return value.replace(/Bearer\s+[^"\\\s]+/g, placeholder);
}

export function createSafeStorage(placeholder: string): Storage {
  const storage = createLocalStorage({ namespace: 'weft-explorer' });
  return {
    getItem: (key) => storage.getItem(key),
    setItem: (key, value) => storage.setItem(key, scrubBearer(value, placeholder)),
    removeItem: (key) => storage.removeItem(key),
    clear: () => storage.clear(),
    get length() {
      return storage.length;
    },
  };
}

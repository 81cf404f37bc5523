/**
 * The fields that asked for a ledger call (`paths` in docs/budget.md), bounded whatever the document.
 *
 * A call is noted with the fields that asked for it as graphql-js already holds them (`info.path`,
 * a linked list of response keys): nothing is copied or joined while the operation runs. Each call
 * keeps at most {@link MAX_PATHS_PER_CALL} distinct fields and counts the others; only the calls a
 * report lists are named in text, each path at most {@link MAX_PATH_CHARS} characters, and at most
 * {@link MAX_LEDGER_PATH_BYTES} bytes of paths per report. Without these bounds an alias is
 * repeated in every path under it: a 32 KB document of long aliases over 44 certificates made a
 * 6 MB ledger beside a 1.3 MB answer, and 30 such requests ran the process out of heap.
 */

/** A field's place in the result, as graphql-js gives it (`info.path`): response keys, list indexes. */
export interface FieldPath {
  readonly prev: FieldPath | undefined;
  readonly key: string | number;
}

/** Fields named per call at most; the others are counted (`morePaths`). */
export const MAX_PATHS_PER_CALL = 8;
/** A longer response key (an alias) is cut to this many characters, ending with `…`. */
export const MAX_PATH_KEY_CHARS = 40;
/** A longer path keeps its end (the asking field), starting with `…`. */
export const MAX_PATH_CHARS = 200;
/**
 * UTF-8 bytes of path text in one report at most (its JSON quoting aside); past them a call names
 * none and counts them all. GraphQL names are ASCII: only a cut's `…` takes more than one byte.
 */
export const MAX_LEDGER_PATH_BYTES = 32 * 1024;

/** The fields one call is made for: the first {@link MAX_PATHS_PER_CALL} distinct ones and a count. */
export class FieldAskers {
  readonly #paths: FieldPath[] = [];
  #more = 0;

  /** The askers of one field (what a resolver runs with). */
  static of(path: FieldPath): FieldAskers {
    const askers = new FieldAskers();
    askers.#paths.push(path);
    return askers;
  }

  /** Notes the fields of `other` (a field that asked, or every asker of a batch). */
  addAll(other: FieldAskers): void {
    for (const path of other.#paths) {
      if (this.#paths.includes(path)) continue;
      if (this.#paths.length < MAX_PATHS_PER_CALL) this.#paths.push(path);
      else this.#more += 1;
    }
    this.#more += other.#more;
  }

  /** The fields kept (at most {@link MAX_PATHS_PER_CALL}). */
  get paths(): readonly FieldPath[] {
    return this.#paths;
  }

  /** Fields beyond those kept. */
  get more(): number {
    return this.#more;
  }
}

const keyText = (key: string | number): string => {
  const text = String(key);
  return text.length <= MAX_PATH_KEY_CHARS ? text : `${text.slice(0, MAX_PATH_KEY_CHARS - 1)}…`;
};

/** `apps.2.status`: response keys and list indexes, at most {@link MAX_PATH_CHARS} characters. */
export function pathText(path: FieldPath): string {
  const keys: string[] = [];
  let length = -1;
  // From the field up: past the room left, the root end is cut anyway.
  for (let at: FieldPath | undefined = path; at && length <= MAX_PATH_CHARS; at = at.prev) {
    const key = keyText(at.key);
    keys.push(key);
    length += key.length + 1;
  }
  const text = keys.reverse().join('.');
  return text.length <= MAX_PATH_CHARS ? text : `…${text.slice(text.length - MAX_PATH_CHARS + 1)}`;
}

/** The `paths` (and `morePaths`) of the calls of one report, within {@link MAX_LEDGER_PATH_BYTES}. */
export function pathsOfReport(): (askers: FieldAskers | undefined) => {
  paths: string[];
  morePaths?: number;
} {
  let room = MAX_LEDGER_PATH_BYTES;
  return (askers) => {
    if (!askers) return { paths: [] };
    const paths: string[] = [];
    for (const path of askers.paths) {
      const text = pathText(path);
      const bytes = Buffer.byteLength(text);
      if (bytes > room) {
        room = 0;
        break;
      }
      room -= bytes;
      paths.push(text);
    }
    const more = askers.more + askers.paths.length - paths.length;
    return more > 0 ? { paths, morePaths: more } : { paths };
  };
}

/**
 * A replayable answer's `data` encoded once as JSON for both of its uses: the whole-response cache
 * stores it (as `{"data":…}`) and Apollo sends it (beside the answer's `extensions`). Encoded twice,
 * every replayable miss would walk and serialise the same data twice.
 *
 * The cache plugin encodes the data in `willSendResponse`, which runs before Apollo serialises the
 * answer; Apollo's `stringifyResult` then finds the text by the same `data` object. No plugin changes
 * an answer's data in place after that (errors and extensions are read when the answer is
 * serialised, so one added later is sent). Any answer whose data was not encoded here (not offered
 * to the cache, or replaced by a later plugin) is serialised as Apollo does by default.
 */
import type { FormattedExecutionResult } from 'graphql';

export interface ResultEncoding {
  /** The JSON text of a result's `data`, encoded on the first call for that object. */
  encodeData(data: object): string;
  /** Apollo's `stringifyResult`: the same bytes as its default (`JSON.stringify` and a newline). */
  stringifyResult(result: FormattedExecutionResult): string;
}

export function createResultEncoding(): ResultEncoding {
  // Weakly held: a text lives as long as the answer it encodes, i.e. until it is sent.
  const texts = new WeakMap<object, string>();
  return {
    encodeData(data) {
      let text = texts.get(data);
      if (text === undefined) {
        text = JSON.stringify(data);
        texts.set(data, text);
      }
      return text;
    },

    stringifyResult(result) {
      const { errors, data, extensions } = result;
      const dataText = errors === undefined && data ? texts.get(data) : undefined;
      // Apollo's field order (errors, data, extensions); undefined members are left out.
      if (dataText === undefined) return `${JSON.stringify({ errors, data, extensions })}\n`;
      const extensionsText =
        extensions === undefined ? '' : `,"extensions":${JSON.stringify(extensions)}`;
      return `{"data":${dataText}${extensionsText}}\n`;
    },
  };
}

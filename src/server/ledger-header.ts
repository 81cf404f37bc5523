/**
 * How a request asks for its ledger (docs/budget.md): `Weft-Ledger: 1`. Its first name,
 * `Weft-Trace: 1`, is read the same, so a client written against it keeps its ledger; the new name
 * keeps the ledger apart from `TRACING`, which is OpenTelemetry.
 */

/** The header, and its first name still read. */
export const LEDGER_HEADER = 'weft-ledger';
export const FORMER_LEDGER_HEADER = 'weft-trace';

/** Both names: what CORS allows and what a replay varies on. */
export const LEDGER_HEADERS = [LEDGER_HEADER, FORMER_LEDGER_HEADER] as const;

/** Whether the request's headers ask for the ledger, by either name. */
export function asksForLedger(headers: Readonly<Record<string, string | string[] | undefined>>) {
  return headers[LEDGER_HEADER] === '1' || headers[FORMER_LEDGER_HEADER] === '1';
}

/**
 * Whether a graphql-ws connection's parameters ask for the ledger (browsers cannot set headers on a
 * WebSocket): by either name, as the client spelt it or in lower case.
 */
export function paramsAskForLedger(params: Readonly<Record<string, unknown>> | undefined): boolean {
  const says = (spelt: string) => String(params?.[spelt] ?? params?.[spelt.toLowerCase()]) === '1';
  return says('Weft-Ledger') || says('Weft-Trace');
}

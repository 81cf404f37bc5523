/** The ledger's request header by its two names (`Weft-Ledger`, and `Weft-Trace` still read). */
import { describe, expect, it } from 'vitest';
import { asksForLedger, paramsAskForLedger } from '../../../src/server/ledger-header.ts';

describe('the ledger header', () => {
  it('is asked for by Weft-Ledger: 1 or Weft-Trace: 1', () => {
    expect(asksForLedger({ 'weft-ledger': '1' })).toBe(true);
    expect(asksForLedger({ 'weft-trace': '1' })).toBe(true);
    expect(asksForLedger({ 'weft-ledger': '0', 'weft-trace': '1' })).toBe(true);
  });

  it('is not asked for by another value or without either header', () => {
    expect(asksForLedger({})).toBe(false);
    expect(asksForLedger({ 'weft-ledger': 'yes' })).toBe(false);
    expect(asksForLedger({ 'weft-trace': 'true' })).toBe(false);
  });

  it('is asked for by a graphql-ws connection parameter under either name and spelling', () => {
    expect(paramsAskForLedger({ 'Weft-Ledger': '1' })).toBe(true);
    expect(paramsAskForLedger({ 'weft-ledger': 1 })).toBe(true);
    expect(paramsAskForLedger({ 'Weft-Trace': '1' })).toBe(true);
    expect(paramsAskForLedger({ 'weft-trace': '1' })).toBe(true);
    expect(paramsAskForLedger({ 'Weft-Ledger': '0' })).toBe(false);
    expect(paramsAskForLedger(undefined)).toBe(false);
  });
});

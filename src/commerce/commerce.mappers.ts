/**
 * Upstream commerce records → the parents of the graph's commerce types (codegen mappers), and money.
 * The document shows the transaction record; store, channel and customer records are "not shown", so
 * their parents keep the record whole for `raw` plus the ids the gateway can name.
 */
import type { RedactedTransaction } from './transaction-presentation.ts';
import { isRecord } from '../kit/is-record.ts';

type JsonObject = Readonly<Record<string, unknown>>;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Parent of `Store`: the id only; the record loads on demand (`raw`). */
export interface StoreParent {
  readonly __typename: 'Store';
  readonly storeId: string;
}

/** Parent of `Channel`. `storeId` is the store it was reached through, if any (kept in its id). */
export interface ChannelParent {
  readonly __typename: 'Channel';
  readonly channelId: string;
  readonly storeId: string | null;
  readonly raw: JsonObject;
}

/** Parent of `StoreCustomer`. */
export interface StoreCustomerParent {
  readonly __typename: 'StoreCustomer';
  readonly storeId: string;
  readonly customerId: string;
  readonly raw: JsonObject;
}

/**
 * Parent of `Transaction`: an already redacted record (card-redaction.ts). Its fields are read from
 * `fields`; the card summary and the `raw` view come from `shown`, worked out only when selected.
 */
export interface TransactionParent {
  readonly __typename: 'Transaction';
  readonly storeId: string;
  readonly transactionId: string;
  readonly fields: JsonObject;
  readonly shown: RedactedTransaction;
}

export const toStore = (storeId: string): StoreParent => ({ __typename: 'Store', storeId });

/** A channel list item or record; null when it has no `channelId` (nothing to address it by). */
export function toChannel(raw: unknown, storeId: string | null): ChannelParent | null {
  if (!isRecord(raw)) return null;
  const channelId = str(raw.channelId);
  return channelId === null ? null : { __typename: 'Channel', channelId, storeId, raw };
}

/** `registeredStores[].storeId` of a channel record, or null when the record has no such list. */
export function registeredStoreIds(raw: JsonObject): string[] | null {
  if (!Array.isArray(raw.registeredStores)) return null;
  return raw.registeredStores
    .map((entry: unknown) => (isRecord(entry) ? str(entry.storeId) : null))
    .filter((id): id is string => id !== null);
}

/** A customer record; null when it has no `customerId`. */
export function toStoreCustomer(raw: unknown, storeId: string): StoreCustomerParent | null {
  if (!isRecord(raw)) return null;
  const customerId = str(raw.customerId);
  return customerId === null ? null : { __typename: 'StoreCustomer', storeId, customerId, raw };
}

/** A redacted transaction; null when it has no `transactionId`. */
export function toTransaction(
  redacted: RedactedTransaction,
  storeId: string,
): TransactionParent | null {
  const transactionId = str(redacted.fields.transactionId);
  return transactionId === null
    ? null
    : {
        __typename: 'Transaction',
        storeId: str(redacted.fields.storeId) ?? storeId,
        transactionId,
        fields: redacted.fields,
        shown: redacted,
      };
}

/**
 * ISO 4217 minor-unit exponents that are not 2. Explicit rather than `Intl`, whose data differs
 * between ICU builds (e.g. for ISK, HUF).
 */
const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** Digits after the decimal point of a currency (default 2). */
export const currencyExponent = (currency: string): number =>
  CURRENCY_EXPONENTS[currency.toUpperCase()] ?? 2;

/** An integer in minor units as decimal text: 1999 USD → `19.99`, 1999 JPY → `1999`, 1999 KWD → `1.999`. */
export function formatMinorUnits(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(amount)).padStart(exponent + 1, '0');
  const whole = exponent === 0 ? digits : digits.slice(0, -exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(-exponent)}`;
  return `${amount < 0 ? '-' : ''}${whole}${fraction}`;
}

/** The graph's `Money` from an upstream `{ amount, currency }`; null when either is missing. */
export function toMoney(
  value: unknown,
): { amount: number; currency: string; formatted: string } | null {
  if (!isRecord(value)) return null;
  const { amount, currency } = value;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || typeof currency !== 'string') {
    return null;
  }
  return { amount, currency, formatted: formatMinorUnits(amount, currency) };
}

/**
 * Open upstream value sets ("complete list not shown") never make a query fail: a value the schema
 * does not know becomes UNKNOWN, and the resolver for `<field>Raw` keeps the text.
 */
export function openEnum<T extends string>(
  value: string | undefined | null,
  known: readonly T[],
): T | 'UNKNOWN' {
  if (value == null) return 'UNKNOWN';
  const normalized = value.toUpperCase();
  return (known as readonly string[]).includes(normalized) ? (normalized as T) : 'UNKNOWN';
}

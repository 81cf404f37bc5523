/**
 * One syntax for every on/off variable: `on`, `off`, `true`, `false`, `1`, `0` (lower case). The
 * docs show `on`/`off`; the other spellings are accepted because earlier versions documented them.
 * `onOff` keeps the value's meaning as the words `on`/`off` (what the product compares against),
 * `flag` as a boolean.
 */
import { z } from 'zod';

/** What a switch accepts; the first two are the documented spellings. */
export const SWITCH_VALUES = ['on', 'off', 'true', 'false', '1', '0'] as const;

type Switch = (typeof SWITCH_VALUES)[number];

const isOn = (value: Switch): boolean => value === 'on' || value === 'true' || value === '1';

const switchValue = () =>
  z.enum(SWITCH_VALUES, {
    errorMap: () => ({ message: 'must be on or off (true/false and 1/0 are accepted too)' }),
  });

/** A switch read as a boolean. */
export const flag = (defaultValue: 'on' | 'off') =>
  switchValue().default(defaultValue).transform(isOn);

/** A switch read as the word `on` or `off`. */
export const onOff = (defaultValue: 'on' | 'off') =>
  switchValue()
    .default(defaultValue)
    .transform((value): 'on' | 'off' => (isOn(value) ? 'on' : 'off'));

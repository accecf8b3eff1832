import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';

/** A phone number in E.164 (`+14155550111`), or null when it is not a valid number. */
export function toE164(value: string, country: CountryCode = 'US'): string | null {
  const parsed = parsePhoneNumberFromString(value, country);
  return parsed?.isValid() ? parsed.number : null;
}

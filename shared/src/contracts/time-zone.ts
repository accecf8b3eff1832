import { z } from 'zod';

/**
 * An IANA time zone a person chooses (their own zone, their quiet hours' zone): checked with Intl, the same
 * engine that later formats times in it, so a zone accepted here never throws where it is used.
 */
export const timeZone = z
  .string()
  .min(1)
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as America/New_York');

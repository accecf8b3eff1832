import { DateTime } from 'luxon';
import { ValidationError } from '../errors';

const localWallTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const withOffset = /(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Reads a wall time in `zone` ("2025-03-09T10:00") or an instant with an offset. A wall time that the zone
 * skips (02:30 on a spring-forward day) is refused rather than silently moved, because an event an hour
 * off is worse than a question. A repeated wall time (fall back) resolves to the first occurrence (luxon's
 * rule), which is what people mean by "1:30" on that night more often than not.
 */
export function parseEventTime(value: string, zone: string): DateTime {
  if (localWallTime.test(value)) {
    const dt = DateTime.fromISO(value, { zone });
    if (!dt.isValid) throw new ValidationError(`Invalid date/time: ${value}`);
    if (dt.toFormat("yyyy-MM-dd'T'HH:mm") !== value.slice(0, 16)) {
      throw new ValidationError(
        `${value} does not exist in ${zone} (the clocks skip it for daylight saving time)`,
      );
    }
    return dt;
  }
  if (withOffset.test(value)) {
    const dt = DateTime.fromISO(value, { setZone: true });
    if (!dt.isValid) throw new ValidationError(`Invalid date/time: ${value}`);
    return dt.setZone(zone);
  }
  throw new ValidationError(
    `Expected a local time like 2025-03-09T10:00 or an ISO time with an offset, got: ${value}`,
  );
}

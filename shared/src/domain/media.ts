import { createHash } from 'node:crypto';
import { FILE_NOTE, PHOTO_NOTE } from '../contracts/media';

/** What rules mode (and a photo-only text's stored message) says for a photo: triage still has words to read. */
export { FILE_NOTE, PHOTO_NOTE };

/**
 * Our id for the `index`-th media item of an inbound event: derived, so a replayed step writes the same
 * record, and opaque, so the PWA learns nothing of the provider's URL from it.
 */
export function mediaIdFor(eventId: string, index: number): string {
  return `med_${createHash('sha256').update(`${eventId}#${index}`).digest('hex').slice(0, 32)}`;
}

export const isImage = (type: string | null | undefined) => !!type && /^image\//i.test(type);

/**
 * The text as the planners read it: "[photo]" (or "[file]") per item after what was typed, so a photo-only
 * text is not an empty message and rules-mode triage still drafts an acknowledgement.
 */
export function withMediaNotes(text: string, media: Array<{ type: string | null }> | undefined): string {
  if (!media?.length) return text;
  const notes = media.map((m) => (isImage(m.type) ? PHOTO_NOTE : FILE_NOTE)).join(' ');
  return text.trim() ? `${text} ${notes}` : notes;
}

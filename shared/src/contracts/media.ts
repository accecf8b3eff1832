/**
 * What a photo (or another file) reads as in a message's text: "[photo]" per item. A contract because the
 * PWA shows it too (a photo-only text's stored message is "[photo]", which the timeline replaces with the
 * thumbnails); domain/media.ts builds the notes.
 */
export const PHOTO_NOTE = '[photo]';
export const FILE_NOTE = '[file]';

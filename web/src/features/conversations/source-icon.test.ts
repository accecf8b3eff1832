import { describe, expect, it } from 'vitest';
import { contactName, previewText } from './source-icon';

describe('how the inbox names a conversation and shows its last message', () => {
  it("formats an unknown number's title like every other number in the app", () => {
    expect(contactName({ title: '+14155550177' })).toBe('(415) 555-0177');
    expect(
      contactName({ title: '+14155550177', contact: { name: '+14155550177', phone: '+14155550177' } }),
    ).toBe('(415) 555-0177');
    expect(contactName({ title: 'Rent question' })).toBe('Rent question');
  });

  it("drops the contact's own name before the preview, keeps anyone else's", () => {
    const c = { title: 'Maria Lopez', contact: { name: 'Maria Lopez', phone: '+14155550111' } };
    expect(previewText({ ...c, preview: 'Maria Lopez: the ceiling is leaking' })).toBe(
      'the ceiling is leaking',
    );
    expect(previewText({ ...c, preview: 'Sam (team): plumber booked' })).toBe('Sam (team): plumber booked');
    expect(previewText({ title: '+14155550177', preview: '+14155550177: Hi, is the 2 bed free?' })).toBe(
      'Hi, is the 2 bed free?',
    );
    expect(previewText({ title: 'Chat', preview: '' })).toBe('Chat');
  });
});

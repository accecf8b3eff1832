import { expect, test } from 'vitest';
import { nudgeDraft } from './lead-nudge';

test('a nudge goes on the channel and in the thread of our last reply; nothing to answer on, no nudge', () => {
  const email = nudgeDraft(
    {
      tool: 'send_email',
      args: { to: 'jordan@mail.example', subject: 'Apartment at 48 Elm Ave', body: 'x', threadId: 'th_1' },
    },
    { name: 'Jordan Reyes', invited: true, property: '48 Elm Ave' },
  );
  expect(email).toMatchObject({
    name: 'send_email',
    args: { to: 'jordan@mail.example', subject: 'Re: Apartment at 48 Elm Ave', threadId: 'th_1' },
  });
  expect(email?.args.body).toBe(
    'Hi Jordan,\n\nJust checking in: are you still interested in a showing of the apartment at 48 Elm Ave? If so, just tell us a day and time that works for you.',
  );
  const text = nudgeDraft(
    { tool: 'send_message', args: { to: '+14155550131', text: 'x' } },
    {
      name: 'Tom Becker',
      invited: false,
    },
  );
  expect(text?.args).toEqual({
    to: '+14155550131',
    text: 'Hi Tom, just checking in: did you have any other questions about the apartment? We are happy to help.',
  });
  expect(
    nudgeDraft({ tool: 'create_calendar_event', args: {} }, { name: 'Tom', invited: true }),
  ).toBeUndefined();
});

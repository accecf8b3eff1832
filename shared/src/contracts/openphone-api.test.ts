import { describe, expect, it } from 'vitest';
import { openPhoneCallSummary, openPhoneList, openPhonePhoneNumber } from './openphone-api';

describe('API response schemas', () => {
  it('parse the documented phone-number example, dropping fields we do not read', () => {
    const parsed = openPhoneList(openPhonePhoneNumber).parse({
      data: [
        {
          id: 'PN123bc',
          groupId: '1234',
          portRequestId: '123abc',
          formattedNumber: '+15555555555',
          forward: '+15555555555',
          name: 'My phone number',
          number: '+15555555555',
          portingStatus: 'completed',
          symbol: '🏡',
          users: [
            {
              email: 'my@email.com',
              firstName: 'John',
              lastName: 'Doe',
              id: 'US1',
              role: 'owner',
              groupId: 'GR1',
            },
          ],
          createdAt: "'2022-01-01T00:00:00Z'",
          updatedAt: "'2022-01-01T00:00:00Z'",
          restrictions: {},
        },
      ],
    });
    expect(parsed.data[0]).toMatchObject({ id: 'PN123bc', users: [{ id: 'US1', firstName: 'John' }] });
    expect(parsed.data[0]).not.toHaveProperty('symbol');
    expect(parsed.nextPageToken).toBeUndefined();
  });

  it('call summaries allow null summary and next steps (status absent)', () => {
    expect(
      openPhoneCallSummary.parse({ callId: 'AC1', status: 'absent', summary: null, nextSteps: null }),
    ).toMatchObject({
      status: 'absent',
    });
    expect(
      openPhoneCallSummary.safeParse({ callId: 'AC1', status: 'done', summary: [], nextSteps: [] }).success,
    ).toBe(false);
  });
});

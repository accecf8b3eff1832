import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors';
import {
  openPhoneCallSummary,
  openPhoneList,
  openPhonePhoneNumber,
  parseOpenPhoneWebhook,
} from './openphone';

/** The `message.received` sample from Quo's webhook guide, verbatim in shape. */
const guideSample = {
  id: 'EVc67ec998b35c41d388af50799aeeba3e',
  object: 'event',
  apiVersion: 'v4',
  createdAt: '2022-01-23T16:55:52.557Z',
  type: 'message.received',
  data: {
    object: {
      id: 'AC24a8b8321c4f4cf2be110f4250793d51',
      object: 'message',
      from: '+19876543210',
      to: ['+15555555555'],
      direction: 'incoming',
      text: 'Hello, world!',
      status: 'delivered',
      createdAt: '2022-01-23T16:55:52.420Z',
      userId: 'USu5AsEHuQ',
      phoneNumberId: 'PNtoDbDhuz',
    },
  },
};

describe('parseOpenPhoneWebhook', () => {
  it('parses the guide sample', () => {
    const parsed = parseOpenPhoneWebhook(guideSample);
    expect(parsed.kind).toBe('message.received');
    if (parsed.kind !== 'message.received') return;
    expect(parsed.event.data.object).toMatchObject({
      text: 'Hello, world!',
      to: ['+15555555555'],
      media: [],
    });
  });

  it('accepts the app-webhook variant: `body` for the text, `to` as a string, media as URLs', () => {
    const { text: _t, ...message } = guideSample.data.object;
    const parsed = parseOpenPhoneWebhook({
      ...guideSample,
      data: {
        object: { ...message, body: 'Pipe burst!', to: '+15555555555', media: ['https://m.example/1.jpg'] },
      },
    });
    if (parsed.kind !== 'message.received') throw new Error('expected message.received');
    expect(parsed.event.data.object).toMatchObject({
      text: 'Pipe burst!',
      to: ['+15555555555'],
      media: [{ url: 'https://m.example/1.jpg', type: null }],
    });
  });

  it('a media-only message has empty text', () => {
    const { text: _t, ...message } = guideSample.data.object;
    const parsed = parseOpenPhoneWebhook({
      ...guideSample,
      data: { object: { ...message, media: [{ url: 'https://m.example/2.jpg', type: 'image/jpeg' }] } },
    });
    if (parsed.kind !== 'message.received') throw new Error('expected message.received');
    expect(parsed.event.data.object.text).toBe('');
  });

  it('acknowledges other event types without looking inside', () => {
    expect(
      parseOpenPhoneWebhook({ ...guideSample, type: 'call.completed', data: { object: { anything: 1 } } }),
    ).toEqual({ kind: 'other', id: guideSample.id, type: 'call.completed' });
    expect(parseOpenPhoneWebhook({ id: 'EV1', createdAt: 'x', type: 'callSummary' })).toMatchObject({
      kind: 'other',
    });
  });

  it.each([
    ['not an object', 'hello', /\(root\)/],
    ['no type', { ...guideSample, type: undefined }, /type/],
    ['no id', { ...guideSample, id: undefined }, /id/],
    [
      'message without from',
      { ...guideSample, data: { object: { ...guideSample.data.object, from: undefined } } },
      /data\.object\.from/,
    ],
    [
      'message with a bad direction',
      { ...guideSample, data: { object: { ...guideSample.data.object, direction: 'sideways' } } },
      /direction/,
    ],
    ['message.received without data', { ...guideSample, data: undefined }, /data/],
    [
      'an empty recipients list',
      { ...guideSample, data: { object: { ...guideSample.data.object, to: [] } } },
      /to/,
    ],
  ])('rejects %s with a ValidationError naming the field', (_name, body, field) => {
    let error: unknown;
    try {
      parseOpenPhoneWebhook(body);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(field);
  });
});

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

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors';
import { parseOpenPhoneWebhook } from './openphone';

/**
 * Contract tests: every webhook example Quo publishes (test/contracts/vendor/quo/, sources in its README) parses
 * into the internal event, for both generations; then the edges of the parser on bodies built from them.
 */
const VENDOR = join(__dirname, '../../../test/contracts/vendor/quo');
const load = (rel: string): Record<string, unknown> => JSON.parse(readFileSync(join(VENDOR, rel), 'utf8'));
const files = (dir: string) =>
  readdirSync(join(VENDOR, dir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${dir}/${f}`);

describe('every vendor webhook example parses', () => {
  const all = [...files('legacy'), ...files('v2026-03-30')];
  it('the folder holds both generations of each event we use', () => {
    for (const gen of ['legacy', 'v2026-03-30']) {
      for (const t of ['message.received', 'message.delivered', 'call.completed', 'call.summary.completed']) {
        expect(all, `${gen}/${t}`).toContain(`${gen}/${t}.json`);
      }
      expect(all).toContain(`${gen}/call.transcript.completed.json`);
    }
  });

  it.each(all)('%s', (file) => {
    const parsed = parseOpenPhoneWebhook(load(file));
    const expectedKind = file.split('/')[1]?.replace(/(\.app-mms|\.test-event)?\.json$/, '');
    expect(parsed.kind).toBe(expectedKind);
    expect(parsed.generation).toBe(file.startsWith('legacy') ? 'legacy' : '2026-03-30');
  });
});

describe('one internal event from either generation', () => {
  it('2026-03-30 message.received: sender and recipients come from data.context', () => {
    const parsed = parseOpenPhoneWebhook(load('v2026-03-30/message.received.json'));
    if (parsed.kind !== 'message.received') throw new Error(parsed.kind);
    expect(parsed.message).toEqual({
      id: 'AC-message',
      direction: 'incoming',
      from: '+15550001111',
      to: ['+15550002222'],
      text: 'hello',
      media: [],
      status: 'received',
      createdAt: '2026-04-13T12:00:00.000Z',
      phoneNumberId: 'PN123',
      conversationId: 'CN123',
      userId: 'US123',
    });
  });

  it('legacy message.received: the same fields from data.object', () => {
    const parsed = parseOpenPhoneWebhook(load('legacy/message.received.json'));
    if (parsed.kind !== 'message.received') throw new Error(parsed.kind);
    expect(parsed.message).toMatchObject({
      from: '+19876543210',
      to: ['+15555555555'],
      text: 'Hello, world!',
    });
  });

  it('app webhooks: `body` for the text, `to` as a string, media with type', () => {
    const parsed = parseOpenPhoneWebhook(load('legacy/message.received.app-mms.json'));
    if (parsed.kind !== 'message.received') throw new Error(parsed.kind);
    expect(parsed.message.text).toBe('Photo of the leak under the sink');
    expect(parsed.message.to).toEqual(['+13105550199']);
    expect(parsed.message.media).toEqual([
      {
        url: 'https://storage.googleapis.com/opstatics-dev/6c908000e5d64ff5a1d4f3b1b5a9c2de',
        type: 'image/jpeg',
      },
    ]);
  });

  it('calls: the outside party from context.participants.external (new) or participants (legacy)', () => {
    const current = parseOpenPhoneWebhook(load('v2026-03-30/call.completed.json'));
    const legacy = parseOpenPhoneWebhook(load('legacy/call.completed.json'));
    if (current.kind !== 'call.completed' || legacy.kind !== 'call.completed') throw new Error('kind');
    expect(current.call).toMatchObject({
      id: 'AC-call',
      participants: ['+15550000002'],
      durationSeconds: 55,
    });
    expect(current.call.hasVoicemail).toBe(false);
    expect(legacy.call).toMatchObject({ id: 'ACsXlF0', participants: ['+15555555555'], durationSeconds: 60 });
  });

  it('summaries: processingStatus (new) and status (legacy, typed `callSummary` in the guide)', () => {
    const current = parseOpenPhoneWebhook(load('v2026-03-30/call.summary.completed.json'));
    const legacy = parseOpenPhoneWebhook(load('legacy/call.summary.completed.json'));
    if (current.kind !== 'call.summary.completed' || legacy.kind !== 'call.summary.completed')
      throw new Error('kind');
    expect(current.summary).toMatchObject({ callId: 'AC-summary', status: 'completed' });
    expect(current.summary.nextSteps).toEqual(['Send follow-up email.']);
    expect(legacy.vendorType).toBe('callSummary');
    expect(legacy.summary.summary).toHaveLength(1);
  });

  it('transcripts: dialogue with speaker and member', () => {
    const parsed = parseOpenPhoneWebhook(load('v2026-03-30/call.transcript.completed.json'));
    if (parsed.kind !== 'call.transcript.completed') throw new Error(parsed.kind);
    expect(parsed.transcript.dialogue[1]).toEqual({
      speaker: '+15550000002',
      userId: null,
      text: 'Hi, I wanted to ask about pricing.',
      startSeconds: 3,
      endSeconds: 7,
    });
  });

  it('a type we do not use is `other`, whatever its data', () => {
    expect(
      parseOpenPhoneWebhook({ id: 'EV1', createdAt: 'x', type: 'contact.updated', data: { resource: {} } }),
    ).toMatchObject({ kind: 'other', vendorType: 'contact.updated' });
  });
});

describe('malformed bodies are a ValidationError naming the field', () => {
  const legacy = load('legacy/message.received.json');
  const current = load('v2026-03-30/message.received.json');
  const obj = (legacy.data as { object: Record<string, unknown> }).object;
  const data = current.data as { resource: Record<string, unknown>; context: Record<string, unknown> };
  it.each([
    ['not an object', 'hello', /\(root\)/],
    ['no type', { ...legacy, type: undefined }, /type/],
    ['no id', { ...legacy, id: undefined }, /id/],
    [
      'legacy message without from',
      { ...legacy, data: { object: { ...obj, from: undefined } } },
      /data\.object\.from/,
    ],
    ['a bad direction', { ...legacy, data: { object: { ...obj, direction: 'sideways' } } }, /direction/],
    ['message.received without data', { ...legacy, data: undefined }, /data/],
    ['an empty recipients list', { ...legacy, data: { object: { ...obj, to: [] } } }, /to/],
    [
      'new scheme without the sender',
      { ...current, data: { ...data, context: { ...data.context, senderIdentifier: undefined } } },
      /data\.context\.senderIdentifier/,
    ],
    [
      'new scheme text over 10,000 characters',
      { ...current, data: { ...data, resource: { ...data.resource, text: 'x'.repeat(10_001) } } },
      /data\.resource\.text/,
    ],
  ])('%s', (_name, body, field) => {
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

import { afterEach, beforeEach, expect, test } from 'vitest';
import { addLogContext, makeLogger, withLogContext } from './logger';

let lines: string[] = [];
const original = process.stdout.write.bind(process.stdout);
beforeEach(() => {
  lines = [];
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
});
afterEach(() => {
  process.stdout.write = original;
});
const logged = () =>
  lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('records processed concurrently each keep their own correlation id on every line', async () => {
  const log = makeLogger('test-worker', 'INFO');
  const work = (correlationId: string, conversationId: string, delay: number) =>
    withLogContext({ correlationId, eventId: `e-${correlationId}` }, async () => {
      log.info('event.start');
      await new Promise((r) => setTimeout(r, delay));
      addLogContext({ conversationId });
      // Deeper code (a tool call) logs without being handed the keys.
      await Promise.resolve().then(() => log.info('tool.called', { tool: 'send_message' }));
    });
  await Promise.all([work('openphone:d1', 'c_1', 20), work('openphone:d2', 'c_2', 1)]);
  const byLine = logged().map((l) => [l.message, l.correlationId, l.eventId, l.conversationId]);
  expect(byLine).toEqual(
    expect.arrayContaining([
      ['event.start', 'openphone:d1', 'e-openphone:d1', undefined],
      ['event.start', 'openphone:d2', 'e-openphone:d2', undefined],
      ['tool.called', 'openphone:d1', 'e-openphone:d1', 'c_1'],
      ['tool.called', 'openphone:d2', 'e-openphone:d2', 'c_2'],
    ]),
  );
  expect(logged()).toHaveLength(4);
  expect(logged()[0]).toMatchObject({ service: 'test-worker', level: 'INFO' });
});

test('outside a unit of work nothing is added and addLogContext is a no-op', () => {
  const log = makeLogger('test-api', 'INFO');
  addLogContext({ conversationId: 'c_x' });
  log.info('plain', { a: 1 });
  expect(logged()[0]).toMatchObject({ message: 'plain', a: 1 });
  expect(logged()[0]).not.toHaveProperty('conversationId');
});

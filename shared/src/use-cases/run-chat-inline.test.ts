import { expect, test } from 'vitest';
import type { Model, ModelRequest } from '../ports/model';
import { type ChatUpdate, streamingModel } from './run-chat-inline';

/** A model that "writes" its answer in the given pieces through the request's text sink. */
function writing(pieces: string[]): Model {
  return {
    name: 'fake',
    async complete(req: ModelRequest) {
      for (const p of pieces) req.onText?.(p);
      return {
        content: [{ type: 'text', text: pieces.join('') }],
        stopReason: 'end_turn',
        model: 'fake',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
    },
  };
}
const req: ModelRequest = { system: { stable: 's', dynamic: '' }, tools: [], messages: [] };

async function streamed(pieces: string[], extra: Partial<ModelRequest> = {}) {
  const out: ChatUpdate[] = [];
  const res = await streamingModel(writing(pieces), (u) => out.push(u)).complete({ ...req, ...extra });
  return { out, res };
}

test('answer text is forwarded piece by piece, then the block is closed; the response is unchanged', async () => {
  const { out, res } = await streamed(['Maria ', 'Lopez, ', '+1415…']);
  expect(out).toEqual([
    { type: 'delta', id: 'text_1', text: 'Maria ' },
    { type: 'delta', id: 'text_1', text: 'Lopez, ' },
    { type: 'delta', id: 'text_1', text: '+1415…' },
    { type: 'delta-end', id: 'text_1' },
  ]);
  expect(res.content).toEqual([{ type: 'text', text: 'Maria Lopez, +1415…' }]);
});

test('the planner’s NO_ACTION_NEEDED marker never reaches a person, even split across pieces', async () => {
  expect((await streamed(['NO_AC', 'TION_NEE', 'DED: nothing to do'])).out).toEqual([]);
  // A prefix that turns out to be something else is sent as soon as it is clearly not the marker.
  expect((await streamed(['NO', ' problem'])).out).toEqual([
    { type: 'delta', id: 'text_1', text: 'NO problem' },
    { type: 'delta-end', id: 'text_1' },
  ]);
});

test('helper calls and forced-tool calls are not answers: nothing is streamed', async () => {
  expect((await streamed(['summary'], { tier: 'helper' })).out).toEqual([]);
  expect((await streamed(['{}'], { toolChoice: { tool: 'plan' } })).out).toEqual([]);
});

test('a sink that throws does not fail the model call', async () => {
  const model = streamingModel(writing(['a', 'b']), () => {
    throw new Error('browser gone');
  });
  await expect(model.complete(req)).resolves.toMatchObject({ stopReason: 'end_turn' });
});

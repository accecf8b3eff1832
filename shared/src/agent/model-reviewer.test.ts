import { expect, test } from 'vitest';
import type { ReviewScore } from '../contracts/conversations';
import type { Model, ModelRequest } from '../ports/model';
import { modelReview, REVIEW_TOOL, withRuleFloor } from './model-reviewer';

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
function fakeModel(input: unknown, seen: ModelRequest[] = []): Model {
  return {
    name: 'fake-haiku',
    async complete(req) {
      seen.push(req);
      return {
        content: [
          { type: 'tool_use', id: 't1', name: 'submit_review', input: input as Record<string, unknown> },
        ],
        stopReason: 'tool_use',
        usage,
        model: 'fake-haiku',
      };
    },
  };
}
const rules: ReviewScore = {
  score: 9,
  relevance: 9,
  completeness: 9,
  safety: 10,
  quality: 9,
  issues: [],
  reviewer: 'rules',
};

test('the helper model is forced through submit_review; its scores are taken, the rules stay the floor', async () => {
  const seen: ModelRequest[] = [];
  const m = fakeModel(
    {
      relevance: 8,
      completeness: 5,
      safety: 9,
      quality: 7,
      issues: ['Promises a time the team did not give.'],
    },
    seen,
  );
  const review = await modelReview(m, {
    kind: 'plan',
    tool: 'send_message',
    args: { to: '+1', text: 'We will be there at 3pm.' },
    context: 'My heater is broken',
  });
  expect(seen[0]).toMatchObject({
    tier: 'helper',
    toolChoice: { tool: 'submit_review' },
    tools: [REVIEW_TOOL],
  });
  expect(review).toEqual({
    score: 7,
    relevance: 8,
    completeness: 5,
    safety: 9,
    quality: 7,
    issues: ['Promises a time the team did not give.'],
    reviewer: 'model',
  });
  const floored = withRuleFloor({ ...rules, safety: 2, score: 2, issues: ['unsafe link'] }, review);
  expect(floored).toMatchObject({ score: 2, safety: 2, reviewer: 'model' });
  expect(floored.issues).toEqual(['unsafe link', 'Promises a time the team did not give.']);
});

test('a model that answers out of shape or fails leaves the rule review alone', async () => {
  expect(
    await modelReview(fakeModel({ relevance: 'high' }), { kind: 'plan', tool: 'x', args: {} }),
  ).toBeUndefined();
  const broken: Model = { name: 'x', complete: () => Promise.reject(new Error('529 overloaded')) };
  expect(
    await modelReview(broken, { kind: 'execution', tool: 'x', args: {}, outcome: { ok: true } }),
  ).toBeUndefined();
  expect(withRuleFloor(rules, undefined)).toBe(rules);
});

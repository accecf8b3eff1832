import { describe, expect, it } from 'vitest';
import { describeResult } from './describe';

describe('rules-mode words for a read tool’s result', () => {
  it('an empty list the tool answered with is "nothing found", with the words looked for, never JSON', () => {
    const searched = {
      query: 'heater',
      match: 'any word',
      searched: { conversations: 1 },
      count: 0,
      hits: [],
    };
    expect(describeResult('search_conversations', searched).summary).toBe('- nothing found for “heater”');
    expect(describeResult('list_calls', []).summary).toBe('- nothing found');
  });

  it('lists what was found, and keeps an unknown shape readable as a last resort', () => {
    const hits = { query: 'heater', hits: [{ title: 'Maria Lopez', snippet: 'the heater is banging' }] };
    expect(describeResult('search_conversations', hits).summary).toBe('1 hit found:\n- Maria Lopez');
    expect(describeResult('get_weather', { sky: 'clear' }).summary).toBe('- {"sky":"clear"}');
  });
});

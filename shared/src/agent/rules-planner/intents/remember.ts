import type { Plan, PlannerInput } from '../../types';
import { call, find, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/** "Remember that …": append the fact to MEMORY.md (read it first, then write it back with the line added). */
export const remember: ChatIntent = {
  name: 'remember',
  required: ['fact'],
  detect(text) {
    const m = text.match(/^(?:please\s+)?remember(?:\s+that)?\s+(.+)$/i);
    return m ? { fact: m[1] } : undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    const fact = slots.fact as string;
    if (!input.hasTool('read_file') || !input.hasTool('write_file'))
      return respond('Memory is not configured here.');
    const read = find(input.observations, 'read_file');
    if (!read) return call('read_file', { path: 'MEMORY.md' }, 'Read the memory file');
    const write = find(input.observations, 'write_file');
    if (!write) {
      const current =
        typeof read.result === 'string'
          ? read.result
          : ((read.result as { content?: string } | undefined)?.content ?? '');
      const day = input.now.toISOString().slice(0, 10);
      const content = `${current.replace(/\s*$/, '')}\n- ${fact.replace(/\.$/, '')} (noted ${day})\n`;
      return call('write_file', { path: 'MEMORY.md', content }, 'Save the fact to long-term memory');
    }
    return respond(outcome(write, `Noted: ${fact}`, 'save that to memory'));
  },
};

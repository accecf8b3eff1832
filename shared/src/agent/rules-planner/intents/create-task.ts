import type { Plan, PlannerInput } from '../../types';
import { call, find, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/** "Create a task to …": one task on the board. */
export const createTask: ChatIntent = {
  name: 'create_task',
  required: ['name'],
  detect(text) {
    const m = text.match(
      /^(?:please\s+)?(?:create|add|make|open)\s+(?:a\s+)?(?:new\s+)?task\s*(?:to|for|:)?\s*(.+)$/i,
    );
    return m ? { name: m[1] } : undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    if (!input.hasTool('create_task')) return respond('The task board is not configured here.');
    const done = find(input.observations, 'create_task');
    if (!done) return call('create_task', { name: slots.name }, 'Create the task as asked');
    return respond(outcome(done, `Task created: “${slots.name}”.`, 'create the task'));
  },
};

import { matchTemplate } from '../../../domain/research/templates';
import type { Plan, PlannerInput } from '../../types';
import { call, find, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/** "Research …", "summarise Maria Lopez's history", "what's open at 12 Oak St": a research task (issue 21). */
export const research: ChatIntent = {
  name: 'research',
  required: ['goal'],
  detect(text) {
    if (/^research\s+\S/i.test(text) || matchTemplate(text)) return { goal: text.trim() };
    return undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    const goal = slots.goal as string;
    if (!input.hasTool('start_research')) return respond('Research is not available on this deployment.');
    const started = find(input.observations, 'start_research');
    if (!started) return call('start_research', { goal }, 'Plan and run the research');
    if (started.status !== 'ok')
      return respond(`I could not start that research: ${started.error ?? 'unknown error'}.`);
    // A team member texting cannot see the live plan: the plan (if it needs their OK) and the end are texted.
    if (input.trigger.kind === 'chat' && input.trigger.channel === 'sms')
      return respond(
        `I'm on it: “${goal}”. I will text you the plan first if it needs your OK, and the report when it is done.`,
      );
    return respond(
      `I'm on it: “${goal}”. The plan and each step's progress show below; the report lands here when it is done.`,
    );
  },
};

import { repairSubject } from '../../../domain/repair-subject';
import type { Plan, PlannerInput } from '../../types';
import type { ChatIntent, Slots } from '../intent';
import { createTask } from './create-task';

/**
 * A team member passing on a repair ("4B's dishwasher is leaking again", "the hallway light on 2 is out —
 * tenant called"): the board gets a task named in their words, as "create a task to …" would. Before this a
 * repair told to the assistant got the list of what it can do, which reads as not listening. A question
 * ("is the dishwasher in 4B fixed?") is not a report: it stays with the team question, which searches.
 */
const QUESTION =
  /\?|^(did|does|do|has|have|is|are|was|were|when|what|who|where|which|why|how|can|could|should)\b/i;

/** Something wrong with the thing named: the fault words of a repair, never a plan ("fix", "replace"). */
const FAULT =
  /\b(leak(s|ing|ed|y)?|drip(s|ping|py)?|broke(n)?|busted|not working|isn'?t working|aren'?t working|doesn'?t work|don'?t work|won'?t (turn on|start|drain|close|open|lock|latch|flush|heat|cool|stop|light|spin)|stopped working|clogged|backed up|backing up|overflow(s|ing|ed)?|(is|are|went|'s) out|dead|jammed|stuck|cracked|loose|rattl(es|ing)|buzz(es|ing)|noisy|making (a )?(loud |weird |strange )?noise|tripp(ed|ing)|flicker(s|ing)?|falling off|came off|fell off|needs? (fixing|a repair|repair|replacing|to be (fixed|replaced)))\b/i;

/** The report's first sentence, as the task's name: capitalised, at most 100 characters. */
function taskName(text: string): string {
  const first = (text.split(/(?<=[.!])\s+|\n/)[0] ?? text).trim().replace(/[.!]+$/, '');
  const name = first.length > 100 ? `${first.slice(0, 99).trimEnd()}…` : first;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export const reportRepair: ChatIntent = {
  name: 'report_repair',
  required: ['name'],
  detect(text): Slots | undefined {
    const t = text.trim();
    if (QUESTION.test(t) || !FAULT.test(t)) return undefined;
    const subject = repairSubject(t);
    return subject ? { name: taskName(t), subject } : undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    const plan = createTask.plan(input, { name: slots.name });
    // The card says why there is a task nobody asked for in so many words.
    if (plan.kind === 'calls')
      return {
        ...plan,
        calls: plan.calls.map((c) =>
          c.name === 'create_task'
            ? { ...c, reason: `A repair passed on (${String(slots.subject)}): a task for it on the board` }
            : c,
        ),
      };
    // The reply says it was read as a repair, so a report meant as a remark is easy to undo.
    if (plan.kind !== 'respond' || !plan.text.startsWith('Task created')) return plan;
    return { ...plan, text: `${plan.text} I read it as a repair to ${String(slots.subject)}.` };
  },
};

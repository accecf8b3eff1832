import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import { dynamoResearchStore } from '../../shared/src/adapters/dynamo/research-store';
import {
  ASSISTANT_LINE,
  createWorld,
  SAM,
  type Servers,
  smsEvent,
  startServers,
  type World,
} from '../agent/harness';

/**
 * Issue 21 for a team member texting the company line: "summarise Maria Lopez's history" by SMS. They
 * cannot see the PWA's plan or report, so the plan waiting for review is texted to them, answered by text
 * ("remove 3", then "run it"), and the report's opening is texted when the task ends — every text through
 * the worker's one-step runs (`reply_to_sender`, guarded, exactly once).
 */
let servers: Servers;
let world: World;
beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers?.stop();
});
beforeEach(async () => {
  // This world has few integrations, so the template's plan is small: any plan over 2 steps waits for review.
  world = await createWorld(servers, { env: { RESEARCH_REVIEW_ABOVE: '2' } });
});
afterEach(async () => {
  await world?.stop();
});

const samTexts = (text: string) => world.deliver(smsEvent(SAM.phone, text, servers.clock()));
const repliesToSam = () =>
  world.sentTo(SAM.phone).map((m) => {
    expect(m.from).toBe(ASSISTANT_LINE);
    return m.text;
  });

test('the plan is texted, edited and approved by text; the report is texted at the end, each once', async () => {
  await samTexts("summarise Maria Lopez's history");
  const [onIt, plan, ...more] = repliesToSam();
  expect(more).toEqual([]);
  expect(onIt).toMatch(/^I'm on it: “summarise Maria Lopez's history”\. I will text you the plan first/);
  expect(plan).toMatch(/^Research plan for “summarise Maria Lopez's history” waits for you/);
  expect(plan).toContain('1. Identify Maria Lopez in the contacts');
  expect(plan).toContain('Reply RUN IT to run it, CANCEL to drop it, or REMOVE and step numbers');
  const conv = (await world.conversationFor(`sms:${SAM.phone}`))!;
  const taskId = (await world.core.conversations.listMessages(conv.id)).find((m) => m.research)?.research
    ?.taskId as string;
  const research = dynamoResearchStore(world.core.table);
  const before = (await research.getTask(taskId))?.draft ?? [];
  expect(before.length).toBeGreaterThanOrEqual(3);

  // "remove 99" names no step: the plan is unchanged and Sam is told why.
  await samTexts('remove 99');
  expect(repliesToSam().at(-1)).toMatch(/^There is no step 99; the plan has \d+ steps\.$/);
  await samTexts('remove 3');
  const edited = (await research.getTask(taskId))?.draft ?? [];
  expect(edited.map((i) => i.key)).toEqual(before.filter((_, i) => i !== 2).map((i) => i.key));
  expect(repliesToSam().at(-1)).toMatch(
    /^Research plan for .* waits for you — edited by Sam Chen: step 3 removed:/,
  );

  await samTexts('run it');
  const replies = repliesToSam();
  expect(replies).toContain(
    `Approved — running the plan's ${edited.length} steps now. I will text you when the report is ready.`,
  );
  const task = await research.getTask(taskId);
  expect(task).toMatchObject({ status: 'done', reviewedBy: 'Sam Chen' });
  const end = replies.at(-1) as string;
  expect(end).toMatch(/^Research finished: summarise Maria Lopez's history\./);
  expect(end).toMatch(/\n\nThe whole report is in the app, in this conversation\.$/);
  expect(end).toContain('Texts with Maria Lopez');
  expect(end).not.toMatch(/^#|\*\*/m);
  // Redelivering Sam's approval changes nothing: no second run, no second text.
  await samTexts('run it');
  expect(repliesToSam().filter((t) => t.startsWith('Research finished'))).toHaveLength(1);
});

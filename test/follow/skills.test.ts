import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { turn } from '../../scripts/emulators/anthropic';
import { type GitServer, startGitServer } from '../../scripts/emulators/git-server';
import { openGitWorkspace } from '../../shared/src/adapters/git-workspace';
import { NotFoundError } from '../../shared/src/errors';
import { listSkills, loadSkill } from '../../shared/src/tools/skills';
import { createWorld, MARIA, type Servers, smsEvent, startServers } from '../agent/harness';

/**
 * Skills (issue 20): the seeded `skills/<name>/SKILL.md` files are discovered (name + one line each in the
 * model's instructions every turn) and one is loaded with `load_skill` when the model decides it applies —
 * on a real git remote and, in Claude mode, through the fake Messages API.
 */
const CTX = { conversationId: 'c_1', runId: 'r_1', now: new Date(), timezone: 'America/New_York' };
let servers: Servers;
let git: GitServer;
let scratch: string;
beforeAll(async () => {
  servers = await startServers({ anthropic: true });
  git = await startGitServer();
  scratch = await mkdtemp(join(tmpdir(), 'follow-skills-'));
}, 60_000);
afterAll(async () => {
  await servers?.stop();
  await git?.stop();
  await rm(scratch, { recursive: true, force: true });
});

test('the seeded skills are listed with their one line, loaded by name or by the intent they refine', async () => {
  await git.createBareRepo('skills-list');
  const workspace = await openGitWorkspace({ dir: join(scratch, 'list'), url: git.repoUrl('skills-list') });
  await workspace.writeFile(
    'skills/lead-showing/SKILL.md',
    '---\nname: lead-showing\ndescription: Offering a showing to a rental lead.\nintent: inbound_lead\n---\n\n# Offer a showing\n\n1. Offer two times.\n',
  );
  const skills = await listSkills(workspace);
  expect(skills.map((s) => s.name)).toEqual(
    expect.arrayContaining(['keep-notes', 'lead-showing', 'triage-inbound-text']),
  );
  expect(skills.find((s) => s.name === 'triage-inbound-text')?.description).toBe(
    'Decide what an inbound text needs and who should know.',
  );

  const byName = (await loadSkill.run({ workspace }, { name: 'keep-notes' }, CTX)) as { text: string };
  expect(byName.text).toMatch(/^# Keep notes/);
  const byIntent = (await loadSkill.run({ workspace }, { intent: 'inbound_lead' }, CTX)) as {
    name: string;
    text: string;
  };
  expect(byIntent).toMatchObject({ name: 'lead-showing', text: expect.stringContaining('Offer two times') });
  expect(await loadSkill.run({ workspace }, { intent: 'nothing_refines_this' }, CTX)).toEqual({
    found: false,
    intent: 'nothing_refines_this',
  });
  await expect(loadSkill.run({ workspace }, { name: 'no-such-skill' }, CTX)).rejects.toBeInstanceOf(
    NotFoundError,
  );
  expect(loadSkill.input.safeParse({ name: '../policy' }).success).toBe(false);
}, 60_000);

test('Claude mode: the instructions list the skills; the model loads one, and gets its text back', async () => {
  await git.createBareRepo('skills-claude');
  const world = await createWorld(servers, {
    claude: true,
    env: { MEMORY_GIT_URL: git.repoUrl('skills-claude'), MEMORY_DIR: join(scratch, 'claude') },
  });
  const before = servers.anthropic?.requests.length ?? 0;
  servers.anthropic?.script([
    turn.toolUse('load_skill', { name: 'triage-inbound-text' }),
    turn.text('[NO_ACTION_NEEDED] Read the skill; nothing to do for this test.'),
  ]);
  try {
    await world.deliver(
      smsEvent(MARIA, 'Just letting you know the hallway light is out again', servers.clock()),
    );
    const sent = (servers.anthropic?.requests ?? []).slice(before).filter((r) => r.params);
    const system = JSON.stringify(sent[0]?.params?.system);
    expect(system).toContain('## Skills');
    expect(system).toContain('- triage-inbound-text: Decide what an inbound text needs and who should know.');
    expect(sent[0]?.params?.tools?.some((t) => 'name' in t && t.name === 'load_skill')).toBe(true);
    const result = JSON.stringify(sent[1]?.params?.messages.at(-1));
    expect(result).toContain('tool_result');
    expect(result).toContain('Triage an inbound text');
  } finally {
    await world.stop();
  }
}, 60_000);

test('rules mode: the triage loads the skill that refines inbound texts and follows its "Rules mode" lines', async () => {
  await git.createBareRepo('skills-rules');
  // An admin wrote the skill (through the admin file routes in the PWA; here straight to the remote).
  const admin = await openGitWorkspace({
    dir: join(scratch, 'rules-admin'),
    url: git.repoUrl('skills-rules'),
  });
  await admin.writeFile(
    'skills/tenant-texts/SKILL.md',
    [
      '---',
      'name: tenant-texts',
      'description: How we answer tenants who text the shared line.',
      'intent: inbound_sms',
      '---',
      '',
      '# Answer tenant texts',
      '',
      'Be brief and kind. Ask for a photo of anything broken.',
      '',
      '## Rules mode',
      '- add when maintenance: If you can, reply with a photo of the problem.',
      '- no reply when other',
      '',
    ].join('\n'),
  );
  await admin.commitAndPush({ conversationId: 'admin', summary: 'skill: tenant-texts' });
  const world = await createWorld(servers, {
    env: { MEMORY_GIT_URL: git.repoUrl('skills-rules'), MEMORY_DIR: join(scratch, 'rules-worker') },
  });
  try {
    await world.deliver(
      smsEvent(MARIA, 'The kitchen faucet is leaking under the sink again', servers.clock()),
    );
    const [card] = (await world.actionsFor(`sms:${MARIA}`)).filter((a) => a.tool === 'send_message');
    expect(card?.args.text).toMatch(/ If you can, reply with a photo of the problem\.$/);
    expect(card?.reason).toMatch(/following skill “tenant-texts”$/);
    const conv = await world.conversationFor(`sms:${MARIA}`);
    const steps = await world.core.conversations.listMessages(conv?.id as string);
    expect(steps.some((m) => m.tool?.name === 'load_skill')).toBe(true);

    // A class the skill says not to answer: no draft.
    servers.clock.advance(10 * 60_000);
    const before = (await world.actionsFor(`sms:${MARIA}`)).length;
    await world.deliver(smsEvent(MARIA, 'Hi! Quick question, do you know who lives in 4B?', servers.clock()));
    expect((await world.actionsFor(`sms:${MARIA}`)).length).toBe(before);
    expect(
      world.log.entries.some((e) =>
        String(e.fields?.reason ?? '').includes('skill “tenant-texts”: no reply'),
      ),
    ).toBe(true);
  } finally {
    await world.stop();
  }
}, 60_000);

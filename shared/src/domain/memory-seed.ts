/**
 * What a new memory workspace starts with (SPEC §3.5), written once when the remote repository is empty.
 * It tells the agent who the team is and how to keep its notes; the team then edits it like any other note.
 * Team-specific facts belong in the notes, not in code, so the seed only carries the team's name and time zone.
 */
export interface SeedOptions {
  teamName: string;
  timezone: string;
}

export interface SeedFile {
  path: string;
  content: string;
}

export function memorySeedFiles({ teamName, timezone }: SeedOptions): SeedFile[] {
  return [
    { path: 'MEMORY.md', content: memoryMd(teamName, timezone) },
    { path: 'daily_notes/README.md', content: DAILY_NOTES_README },
    { path: 'areas/maintenance.md', content: MAINTENANCE_AREA },
    { path: 'areas/leasing.md', content: LEASING_AREA },
    { path: 'skills/triage-inbound-text/SKILL.md', content: TRIAGE_SKILL },
    { path: 'skills/keep-notes/SKILL.md', content: KEEP_NOTES_SKILL },
  ];
}

function memoryMd(teamName: string, timezone: string): string {
  return `# ${teamName} — what the assistant knows

This file is read at the start of every run. Keep it short (the first 5,000 characters are shown): stable
facts and preferences here, details in \`areas/\` and \`daily_notes/\`.

## The team
- ${teamName} is a small property-management firm: a handful of people who share one company phone line
  and one inbox. Tenants text about repairs, rental leads arrive by email, showings go on the calendar and
  follow-ups become tasks.
- Team members, tenants and vendors are in the phone contacts; look them up before writing to anyone.

## Preferences
- Time zone: ${timezone}. Say dates as "Tue Mar 4, 3:00 pm".
- Texts to tenants: friendly, short, sign as the company, never promise a time a vendor has not confirmed.
- Emails: reply in the same thread; sign with the sender's first name and the company name.

## How to use this workspace
- \`MEMORY.md\` (this file): facts that hold for months — people's roles, standing preferences, rules of thumb.
- \`areas/<topic>.md\`: what is known about an ongoing area (a property, maintenance, leasing, a vendor).
- \`daily_notes/YYYY-MM-DD_<topic>.md\`: what happened on a day that may matter later (a promise made,
  a repair scheduled, a lead's answers).
- \`skills/<name>/SKILL.md\`: how to do a recurring job well, step by step (written by the team: read them,
  do not edit them; \`policy/\`, \`team/\` and \`lessons/\` are the team's too).
- When told "remember that …", write it to the right place here and say where.
- A file with \`<<<<<<<\`, \`=======\` and \`>>>>>>>\` lines holds two versions written at the same time:
  merge them into one, keeping every fact from both, and remove the markers.

## Facts
- (none yet)
`;
}

const DAILY_NOTES_README = `# Daily notes

One file per day and topic: \`YYYY-MM-DD_<topic>.md\`, e.g. \`2025-03-04_heater-12-oak.md\`.

Write down what a teammate would want to know tomorrow: who asked for what, what was promised and by
when, what is still open. Link the area file when there is one (\`areas/maintenance.md\`). Move facts that
stay true for months into \`MEMORY.md\` or an area file.
`;

const MAINTENANCE_AREA = `# Maintenance

## Urgent (page the on-call person at once)
- Flooding or a burst pipe, fire or smoke, a gas smell, carbon monoxide, sparking wiring, a break-in,
  no heat in cold weather.
- Tell the tenant help is on the way only once someone has confirmed it.

## Routine
- Collect: address and unit, what is wrong, since when, photos if any, when someone can get in.
- Create a task for the repair and note the vendor when one is booked.

## Vendors
- (add preferred vendors per trade: plumbing, HVAC, electrical, locksmith)
`;

const LEASING_AREA = `# Leasing

## Leads
- Answer new leads the same day. Ask for: move-in date, household size, pets, income and credit range.
- Offer showing times from the calendar; confirm by text the day before.

## Listings
- (add current vacancies: address, unit, rent, available from, pet policy)
`;

const TRIAGE_SKILL = `---
name: triage-inbound-text
description: Decide what an inbound text needs and who should know.
---

# Triage an inbound text

1. Identify the sender from the contacts (tenant, vendor, lead, team member, unknown).
2. Decide urgency using \`areas/maintenance.md\`; urgent matters also page the on-call person.
3. Check the recent history with this person and today's daily notes before answering.
4. Draft a short acknowledgement for approval; never promise what has not been confirmed.
5. Note anything that matters later in \`daily_notes/\`.
`;

const KEEP_NOTES_SKILL = `---
name: keep-notes
description: Where to write what you learn so the team and future runs can find it.
---

# Keep notes

- Stable fact or preference → \`MEMORY.md\` (short bullet under the right heading).
- About an ongoing area (a property, a vendor, leasing) → \`areas/<topic>.md\`.
- About today (a call, a promise, a scheduled repair) → \`daily_notes/YYYY-MM-DD_<topic>.md\`.
- Prefer editing a line over rewriting a file; never delete a note you did not write this turn unless asked.
- Search (\`search_files\`) before adding, so a fact is written once.
`;

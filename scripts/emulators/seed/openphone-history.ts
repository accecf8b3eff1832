import { type DEMO_LINES, DEMO_PEOPLE } from './demo-team';

/**
 * Message and call history for the OpenPhone emulator, so read tools (list/get messages and calls, call
 * summary and transcript) have something true to say in the demo. Times are offsets before "now", so the
 * history always looks recent; ids are fixed so tests can name them.
 */
export interface HistoryMessage {
  id: string;
  line: keyof typeof DEMO_LINES;
  /** The outside party (a DEMO_PEOPLE phone). */
  participant: string;
  direction: 'incoming' | 'outgoing';
  text: string;
  minutesAgo: number;
  /** Workspace user who sent an outgoing message. */
  userId?: string;
}

export interface HistoryCall {
  id: string;
  line: keyof typeof DEMO_LINES;
  participant: string;
  direction: 'incoming' | 'outgoing';
  status: 'completed' | 'missed' | 'no-answer';
  durationSeconds: number;
  minutesAgo: number;
  userId: string;
  summary?: { summary: string[]; nextSteps: string[] };
  /** `who: 'member'` lines are spoken by `userId`; `who: 'participant'` by the outside party. */
  transcript?: Array<{ who: 'member' | 'participant'; text: string; start: number; end: number }>;
}

/** Workspace users (the internal people who own or share the lines). */
export const DEMO_USERS = DEMO_PEOPLE.filter((p) => p.internal).map((p) => ({
  id: `US${p.id.replace(/^ct_/, '')}0001`,
  email: p.email,
  firstName: p.firstName,
  lastName: p.lastName,
  role: p.role === 'owner' ? 'owner' : 'member',
}));

const phoneOf = (contactId: string) => {
  const person = DEMO_PEOPLE.find((p) => p.id === contactId);
  if (!person) throw new Error(`seed: unknown person ${contactId}`);
  return person.phone;
};
const userOf = (contactId: string) => `US${contactId.replace(/^ct_/, '')}0001`;

export const HISTORY_MESSAGES: HistoryMessage[] = [
  {
    id: 'AChist0001maria',
    line: 'shared',
    participant: phoneOf('ct_maria'),
    direction: 'incoming',
    text: 'Hi, the heater in 12 Oak St #2 is making a banging noise again.',
    minutesAgo: 60 * 26,
  },
  {
    id: 'AChist0002maria',
    line: 'shared',
    participant: phoneOf('ct_maria'),
    direction: 'outgoing',
    text: 'Thanks Maria, we will send someone tomorrow morning.',
    minutesAgo: 60 * 25,
    userId: userOf('ct_sam'),
  },
  {
    id: 'AChist0003bob',
    line: 'shared',
    participant: phoneOf('ct_bob'),
    direction: 'outgoing',
    text: 'Bob, can you look at the heater at 12 Oak St #2 tomorrow at 9?',
    minutesAgo: 60 * 24,
    userId: userOf('ct_sam'),
  },
  {
    id: 'AChist0004bob',
    line: 'shared',
    participant: phoneOf('ct_bob'),
    direction: 'incoming',
    text: 'Yes, I can be there at 9.',
    minutesAgo: 60 * 23,
  },
  {
    id: 'AChist0005david',
    line: 'shared',
    participant: phoneOf('ct_david'),
    direction: 'incoming',
    text: 'Is it ok if I pay the rent on the 5th this month?',
    minutesAgo: 60 * 5,
  },
  {
    id: 'AChist0006lead',
    line: 'shared',
    participant: phoneOf('ct_lead'),
    direction: 'incoming',
    text: 'Hello, is the 2-bed on Elm Ave still available? I would like to see it this week.',
    minutesAgo: 90,
  },
  {
    id: 'AChist0007alex',
    line: 'assistant',
    participant: phoneOf('ct_alex'),
    direction: 'incoming',
    text: 'What is on the calendar tomorrow?',
    minutesAgo: 30,
  },
];

export const HISTORY_CALLS: HistoryCall[] = [
  {
    id: 'ACcall0001maria',
    line: 'shared',
    participant: phoneOf('ct_maria'),
    direction: 'incoming',
    status: 'completed',
    durationSeconds: 142,
    minutesAgo: 60 * 27,
    userId: userOf('ct_sam'),
    summary: {
      summary: [
        'Maria reported that the heater in 12 Oak St #2 bangs when it starts.',
        'It still heats; no smell of gas.',
      ],
      nextSteps: ['Book the plumber for tomorrow morning.', 'Text Maria the time.'],
    },
    transcript: [
      { who: 'member', text: 'Oak Properties, this is Sam.', start: 0.4, end: 2.1 },
      { who: 'participant', text: 'Hi Sam, it is Maria from 12 Oak, unit 2.', start: 2.5, end: 5.0 },
      { who: 'participant', text: 'The heater is banging every time it turns on.', start: 5.2, end: 8.9 },
      { who: 'member', text: 'Is it still heating? Any smell of gas?', start: 9.3, end: 11.8 },
      { who: 'participant', text: 'It heats, and no, no smell.', start: 12.0, end: 14.1 },
      { who: 'member', text: 'Ok, we will get someone there tomorrow morning.', start: 14.5, end: 17.6 },
    ],
  },
  {
    id: 'ACcall0002lead',
    line: 'shared',
    participant: phoneOf('ct_lead'),
    direction: 'incoming',
    status: 'missed',
    durationSeconds: 0,
    minutesAgo: 100,
    userId: userOf('ct_alex'),
  },
];

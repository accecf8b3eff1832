import { DEMO_PEOPLE } from './demo-team';

/**
 * The demo team's ClickUp workspace: one space ("Operations") with two folderless lists (Maintenance,
 * Leasing) and a folder ("Properties") holding an Inspections list. Statuses follow ClickUp's default
 * open → custom → closed shape. Due dates are relative to `now`.
 */
export interface ClickUpSeedStatus {
  status: string;
  type: 'open' | 'custom' | 'closed';
  color: string;
}

export interface ClickUpSeedTask {
  id: string;
  listId: string;
  name: string;
  description?: string;
  status: string;
  /** 1 urgent, 2 high, 3 normal, 4 low. */
  priority?: 1 | 2 | 3 | 4;
  dueInDays?: number;
  assignees?: number[];
  tags?: string[];
  createdDaysAgo: number;
}

export interface ClickUpSeed {
  team: { id: string; name: string };
  members: { id: number; username: string; email: string }[];
  spaces: { id: string; name: string; statuses: ClickUpSeedStatus[] }[];
  folders: { id: string; name: string; spaceId: string }[];
  lists: { id: string; name: string; spaceId: string; folderId?: string }[];
  tasks: ClickUpSeedTask[];
  now: number;
}

export const DEMO_CLICKUP_IDS = {
  team: '9011000001',
  space: '90110000101',
  folder: '90110000201',
  maintenance: '901100000301',
  leasing: '901100000302',
  inspections: '901100000303',
} as const;

export function buildClickUpSeed(opts: { now?: Date } = {}): ClickUpSeed {
  const members = DEMO_PEOPLE.filter((p) => p.internal).map((p, i) => ({
    id: 81000001 + i,
    username: `${p.firstName} ${p.lastName}`,
    email: p.email,
  }));
  const sam = members.find((m) => m.email.startsWith('sam@'))?.id ?? 81000002;
  const jo = members.find((m) => m.email.startsWith('jo@'))?.id ?? 81000003;
  const ids = DEMO_CLICKUP_IDS;
  return {
    team: { id: ids.team, name: 'Oak Properties' },
    members,
    spaces: [
      {
        id: ids.space,
        name: 'Operations',
        statuses: [
          { status: 'to do', type: 'open', color: '#d3d3d3' },
          { status: 'in progress', type: 'custom', color: '#4194f6' },
          { status: 'complete', type: 'closed', color: '#6bc950' },
        ],
      },
    ],
    folders: [{ id: ids.folder, name: 'Properties', spaceId: ids.space }],
    lists: [
      { id: ids.maintenance, name: 'Maintenance', spaceId: ids.space },
      { id: ids.leasing, name: 'Leasing', spaceId: ids.space },
      { id: ids.inspections, name: 'Inspections', spaceId: ids.space, folderId: ids.folder },
    ],
    tasks: [
      {
        id: '86b0aa001',
        listId: ids.maintenance,
        name: 'Fix heater at 12 Oak St #2',
        description: 'Tenant Maria Lopez reports the heater banging. Call CoolAir HVAC.',
        status: 'to do',
        priority: 2,
        dueInDays: 1,
        assignees: [jo],
        tags: ['hvac'],
        createdDaysAgo: 1,
      },
      {
        id: '86b0aa002',
        listId: ids.maintenance,
        name: 'Replace smoke detector batteries at 48 Elm Ave',
        status: 'in progress',
        priority: 3,
        dueInDays: 5,
        assignees: [jo],
        createdDaysAgo: 6,
      },
      {
        id: '86b0aa003',
        listId: ids.maintenance,
        name: 'Gutter cleaning at 7 Birch Rd',
        status: 'complete',
        priority: 4,
        createdDaysAgo: 20,
      },
      {
        id: '86b0aa004',
        listId: ids.leasing,
        name: 'Follow up with Tom Becker (lead for 48 Elm Ave #3)',
        description: 'Lead from Zillow; showing booked.',
        status: 'to do',
        priority: 2,
        dueInDays: 2,
        assignees: [sam],
        tags: ['lead'],
        createdDaysAgo: 0,
      },
      {
        id: '86b0aa005',
        listId: ids.leasing,
        name: 'Prepare lease renewal for David Kim',
        status: 'in progress',
        priority: 3,
        dueInDays: 10,
        assignees: [sam],
        createdDaysAgo: 3,
      },
      {
        id: '86b0aa006',
        listId: ids.inspections,
        name: 'Annual inspection at 12 Oak St',
        status: 'to do',
        dueInDays: 30,
        createdDaysAgo: 14,
      },
    ],
    now: (opts.now ?? new Date()).getTime(),
  };
}

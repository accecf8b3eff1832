/**
 * The demo team every emulator is seeded with: a small property-management firm. Internal people text from
 * their own phones; external contacts are tenants, vendors and a lead. Numbers use the 555-01xx range
 * reserved for fiction.
 */
export interface DemoPerson {
  id: string;
  firstName: string;
  lastName: string;
  company?: string;
  role: string;
  phone: string;
  email: string;
  internal: boolean;
}

export const TEAM_DOMAIN = 'oakproperties.example';

export const DEMO_LINES = {
  /** The shared company line tenants and vendors text. */
  shared: { id: 'PNshared001', number: '+14155550100', name: 'Oak Properties' },
  /** The assistant's own line, used to answer team members (SPEC §4). */
  assistant: { id: 'PNassist001', number: '+14155550199', name: 'Switchboard Assistant' },
};

export const DEMO_PEOPLE: DemoPerson[] = [
  {
    id: 'ct_alex',
    firstName: 'Alex',
    lastName: 'Rivera',
    company: 'Oak Properties',
    role: 'owner',
    phone: '+14155550101',
    email: `alex@${TEAM_DOMAIN}`,
    internal: true,
  },
  {
    id: 'ct_sam',
    firstName: 'Sam',
    lastName: 'Chen',
    company: 'Oak Properties',
    role: 'property manager',
    phone: '+14155550102',
    email: `sam@${TEAM_DOMAIN}`,
    internal: true,
  },
  {
    id: 'ct_jo',
    firstName: 'Jo',
    lastName: 'Patel',
    company: 'Oak Properties',
    role: 'maintenance coordinator (on call)',
    phone: '+14155550103',
    email: `jo@${TEAM_DOMAIN}`,
    internal: true,
  },
  {
    id: 'ct_maria',
    firstName: 'Maria',
    lastName: 'Lopez',
    role: 'tenant, 12 Oak St #2',
    phone: '+14155550111',
    email: 'maria.lopez@mail.example',
    internal: false,
  },
  {
    id: 'ct_david',
    firstName: 'David',
    lastName: 'Kim',
    role: 'tenant, 48 Elm Ave #5',
    phone: '+14155550112',
    email: 'dkim@mail.example',
    internal: false,
  },
  {
    id: 'ct_priya',
    firstName: 'Priya',
    lastName: 'Nair',
    role: 'tenant, 7 Birch Rd',
    phone: '+14155550113',
    email: 'priya.n@mail.example',
    internal: false,
  },
  {
    id: 'ct_bob',
    firstName: 'Bob',
    lastName: 'Martinez',
    company: 'Martinez Plumbing',
    role: 'plumber (vendor)',
    phone: '+14155550121',
    email: 'bob@martinezplumbing.example',
    internal: false,
  },
  {
    id: 'ct_hvac',
    firstName: 'Lena',
    lastName: 'Fischer',
    company: 'CoolAir HVAC',
    role: 'HVAC technician (vendor)',
    phone: '+14155550122',
    email: 'lena@coolair.example',
    internal: false,
  },
  {
    id: 'ct_lead',
    firstName: 'Tom',
    lastName: 'Becker',
    role: 'rental lead',
    phone: '+14155550131',
    email: 'tom.becker@mail.example',
    internal: false,
  },
];

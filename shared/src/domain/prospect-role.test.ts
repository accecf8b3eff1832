import { expect, test } from 'vitest';
import { isProspectRole } from './prospect-role';

test('prospects, rental leads and applicants hope to rent; tenants, owners and vendors do not', () => {
  for (const role of ['prospect', 'rental lead', 'Lead', 'applicant', 'prospective tenant'])
    expect(isProspectRole(role), role).toBe(true);
  for (const role of [undefined, 'tenant', 'owner', 'vendor', 'leasing agent', 'team', 'plumber'])
    expect(isProspectRole(role), String(role)).toBe(false);
});

/**
 * Whether a contact's role says they are someone hoping to rent, not yet a tenant: the assistant adds them as
 * "prospect", and a team's own contacts call them "rental lead", "lead" or "applicant". Their texts asking to
 * see a unit are lead activity (qualified, the lead's state kept), as a newcomer's are; a tenant's are not.
 */
export function isProspectRole(role: string | null | undefined): boolean {
  return !!role && /\b(prospect(ive)?|lead|applicant)\b/i.test(role);
}

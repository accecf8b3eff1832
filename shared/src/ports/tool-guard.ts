/** The one guard hook every tool call passes: the types live in domain/, where the policy engine implements them. */
export * from '../domain/tool-guard';

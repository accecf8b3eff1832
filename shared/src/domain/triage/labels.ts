/**
 * What triage sorts an inbound message into (issue 17). Emergencies carry their kind, because the kind
 * decides who is paged and what the acknowledgement says ("shut the water off at …" versus "leave the unit").
 */
export const EMERGENCY_KINDS = ['water', 'fire', 'gas', 'security', 'heat', 'electrical', 'medical'] as const;
export type EmergencyKind = (typeof EMERGENCY_KINDS)[number];

export const TRIAGE_CLASSES = [
  'emergency',
  'maintenance',
  'lead',
  'showing',
  'rent',
  'lease',
  'vendor_confirmation',
  'team_question',
  'thanks',
  'bulk',
  'scam',
  'other',
] as const;
export type TriageClass = (typeof TRIAGE_CLASSES)[number];

/** The label the model is trained on: a class, or `emergency.<kind>`. */
export type TriageLabel = Exclude<TriageClass, 'emergency'> | `emergency.${EmergencyKind}`;

export const TRIAGE_LABELS: readonly TriageLabel[] = [
  ...EMERGENCY_KINDS.map((k) => `emergency.${k}` as const),
  ...TRIAGE_CLASSES.filter((c): c is Exclude<TriageClass, 'emergency'> => c !== 'emergency'),
];

export function isTriageLabel(s: string): s is TriageLabel {
  return (TRIAGE_LABELS as readonly string[]).includes(s);
}

export function classOf(label: TriageLabel): TriageClass {
  return label.startsWith('emergency.') ? 'emergency' : (label as TriageClass);
}

export function kindOf(label: TriageLabel): EmergencyKind | undefined {
  return label.startsWith('emergency.') ? (label.slice('emergency.'.length) as EmergencyKind) : undefined;
}

/** How a class reads on a card ("maintenance request · kitchen faucet"). */
export const CLASS_TITLES: Record<TriageClass, string> = {
  emergency: 'emergency',
  maintenance: 'maintenance request',
  lead: 'lead / vacancy inquiry',
  showing: 'showing / scheduling',
  rent: 'rent / payments',
  lease: 'lease / renewal',
  vendor_confirmation: 'vendor confirmation',
  team_question: 'team question',
  thanks: 'thanks / acknowledgement',
  bulk: 'bulk mail / newsletter',
  scam: 'scam / phishing',
  other: 'other',
};

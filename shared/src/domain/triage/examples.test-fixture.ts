/** Five labelled messages the neighbours and naive Bayes tests build their small index from. */
export const EXAMPLES = [
  { text: 'is the 2 bedroom on Oak still available? can I see it', label: 'lead' },
  { text: 'do you allow cats in the studio, and what is the deposit', label: 'lead' },
  { text: 'the kitchen faucet drips all night', label: 'maintenance' },
  { text: 'our dishwasher will not drain', label: 'maintenance' },
  { text: 'did the plumber confirm for tomorrow at Elm', label: 'team_question' },
];

/**
 * What a repair request is about, in the tenant's own words ("the kitchen sink", "the dryer"), so the reply
 * and the card name it (issue 17: three texts about one leak must not get acknowledgements that never
 * mention the leak). A closed list of the things in a rental that break, with the room or side before it
 * when the text says one. Nothing found → undefined, and the reply stays general rather than guess.
 */

const FIXTURES = [
  'garbage disposal',
  'washing machine',
  'water heater',
  'hot water heater',
  'air conditioner',
  'air conditioning',
  'smoke detector',
  'smoke alarm',
  'garage door',
  'sliding door',
  'front door',
  'back door',
  'ceiling fan',
  'dryer vent',
  'light fixture',
  'light switch',
  'dishwasher',
  'disposal',
  'refrigerator',
  'fridge',
  'freezer',
  'microwave',
  'oven',
  'stove',
  'washer',
  'dryer',
  'furnace',
  'boiler',
  'radiator',
  'heater',
  'thermostat',
  'a/c',
  'ac',
  'sink',
  'faucet',
  'tap',
  'toilet',
  'shower',
  'bathtub',
  'tub',
  'drain',
  'pipe',
  'pipes',
  'window',
  'windows',
  'door',
  'lock',
  'doorbell',
  'intercom',
  'buzzer',
  'outlet',
  'outlets',
  'lights',
  'light',
  'ceiling',
  'roof',
  'gutter',
  'blinds',
  'cabinet',
  'railing',
  'elevator',
  'mailbox',
  'fence',
  'deck',
  'vent',
];
const PLACES = [
  'kitchen',
  'bathroom',
  'bedroom',
  'living room',
  'laundry room',
  'kids room',
  'hallway',
  'hall',
  'basement',
  'garage',
  'balcony',
  'patio',
  'porch',
  'upstairs',
  'downstairs',
  'front',
  'back',
  'master',
  'guest',
];

const alternatives = (words: string[]) => words.map((w) => w.replace(/[/]/g, '\\/')).join('|');
const SUBJECT = new RegExp(
  `\\b(?:(${alternatives(PLACES)})(?:\\s+bathroom|\\s+bedroom)?\\s+)?(${alternatives(FIXTURES)})(?![\\w/])`,
  'i',
);

/** "the kitchen sink", "the dryer", "the A/C"; undefined when the text names none of the list. */
export function repairSubject(text: string): string | undefined {
  const m = SUBJECT.exec(text);
  if (!m) return undefined;
  const place = m[0].slice(0, m[0].length - (m[2] ?? '').length).trim();
  const thing = (m[2] ?? '').toLowerCase();
  const shown = thing === 'ac' || thing === 'a/c' ? thing.toUpperCase() : thing;
  return `the ${place ? `${place.toLowerCase()} ` : ''}${shown}`;
}

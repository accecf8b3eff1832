import type { EmergencyKind } from './labels';

/**
 * Safety-critical phrasings that page even when the model reads the message as routine (issue 17: the
 * floor wins where it and the classifier disagree, even at the cost of precision). These are not the
 * config's urgency keywords, which a team may trim: each pattern describes a hazard happening now or just
 * now (a person hurt with help called, a door forced, sewage rising, a shock from a fixture), in the words
 * a tenant uses instead of "flood" or "break-in". They were written from the domain and checked against
 * the TRAINING split's cross-validation misses only (`npm run triage:cv -- --misses`), never against the
 * held-apart split. A pattern must not fire on a device or a past repair ("the smoke detector chirps",
 * "invoice for the fire damage"), so each needs the hazard itself, not just its noun.
 */
/** Heating that is out, in a tenant's words, and who cannot wait for it: the young, old or sick. */
const NO_HEAT = String.raw`\b(heat(ing)?|heaters?|furnace|boiler)\b.{0,30}\b(out|off|dead|broken|not working|isn'?t working|isnt working|hasn'?t worked|hasnt worked|stopped|won'?t (come|turn) on)\b`;
/** What carbon monoxide or gas does to a body, in a tenant's words. */
const SYMPTOMS = String.raw`(dizz\w*|headaches?|nause\w*|light-?headed|vomit\w*|throwing up|puk\w*|drowsy|sleepy|lethargic)`;
const VULNERABLE = String.raw`(bab(y|ies)|newborn|infant|toddler|kids|children|elderly|grandm\w+|grandpa|sick|(sleep\w*|sitting) in (our |my |their )?(coats|jackets))\b`;

export const BACKSTOP: ReadonlyArray<readonly [EmergencyKind, RegExp]> = [
  [
    'medical',
    /\b(paramedics?|ambulance|emts?) (is|are|came|here|on (the|their) way|coming)\b|\b(unconscious|unresponsive|not breathing|stopped breathing|having a seizure|overdos(ed|ing)|heart attack|having a stroke|choking|bleeding (a lot|badly|everywhere|heavily))\b|\b(hand|finger|arm|leg|foot) (got )?(crushed|caught|cut off)\b|\b(fell|fallen|collapsed) .{0,30}\b(can'?t|cannot|won'?t) (get up|move|stand)\b|\b(fainted|passed out|blacked out)\b|\b(allergic reaction|anaphyla\w*|can'?t breathe|(lips|tongue|throat|face) (is |are )?(swelling|swollen))\b/i,
  ],
  [
    'security',
    /\b(pried|kicked|forced|busted|smashed) (open|in|off)\b|\bforced (their|his|her|its|a|the) way in(to)?\b|\b(been|was|got|were) (burglarized|robbed|broken into)\b|\b(burglari[sz]ed|burgled)\b|\b(lock|deadbolt|cylinder)\b.{0,20}\b(drilled|snapped|bumped) (out|off)\b|\b(pulling|trying|jiggling|checking) (car |door )?(door )?handles\b|\bexposed (him|her)self\b|\b(carrying|taking|loading) .{0,30}\bout of\b.{0,40}\b(away|on vacation|out of town|not home)\b|\bsomeone (is |keeps |kept )?(trying to (get|break) in|broke in|got in|in (my|our|the) (apartment|unit|house|place))\b|\bstranger (is )?(inside|in (my|our|the) (apartment|unit|house|hallway|basement))\b/i,
  ],
  [
    'water',
    /\b(is|are|was|got|went) (under ?water)\b|\bwaterfall (is |was )?(coming|pouring|running|down|from|in|into|through)\b|\b(rains?|raining|pouring) (on|onto|into|in|through) (my|our|the) (floor|bathroom|kitchen|bedroom|bed|living room|apartment|unit)\b|\bsewage\b.{0,40}\b(backing up|coming up|overflowing|everywhere|all over|on the floor)\b|\b(ceiling|drywall)\b.{0,40}\b(caving|collapsing|sagging|bowing|coming down|fell|bulging)\b|\b(supply (hose|line)|hose|water (heater|tank)|tank|fitting)\b.{0,30}\b(blew (off|out)|burst|split|popped off)\b|\bwater\b.{0,30}\b(pouring|gushing|spraying|running down|streaming|coming (in|through|out of the (wall|ceiling|light)))\b/i,
  ],
  [
    'electrical',
    /\b(live|exposed|bare) (live )?(wires?|wiring)\b|\b(got|get|getting|was) (shocked|zapped|electrocuted)\b|\b(got|get|getting) (a )?(shock|shocks|zap|zapped) (off|from|touching)\b|\bsparks? (flying|shooting|coming) (from|out)\b|\b(outlet|panel|breaker|wires?|wiring|switch|plug|power strip|cord)\b.{0,40}\b(spark(ed|s|ing)?|arc(ed|ing)|melt(ed|ing)|smok(ing|ed)|scorched|burning)\b/i,
  ],
  [
    'heat',
    new RegExp(
      String.raw`\b(can see (our|my|their|your) breath|(using|running|turned on|turning on|leaving|with) the (oven|stove|burners?)\b.{0,30}\b(to (stay|keep) warm|for heat)|pipes? (are |have |is )?froze(n)?|(heat(ing)?|heaters?|furnace|boiler)\b.{0,30}\b(out|dead|stopped working|not working)\b.{0,20}\b(every room|(whole|entire) (apartment|unit|house|building)|all (day|night|weekend))\b|(heat(ing)?|furnace|boiler|heater)\b.{0,30}\b(out|dead|broken|not working|stopped)\b.{0,40}\b(freezing|below zero|degrees|baby|newborn|elderly))|${NO_HEAT}.{0,80}\b${VULNERABLE}|\b${VULNERABLE}.{0,60}${NO_HEAT}`,
      'i',
    ),
  ],
  [
    'gas',
    /\b(gas|fumes|exhaust|co)\b.{0,60}\b(dizz\w*|headaches?|nause\w*|light-?headed|vomit\w*|throwing up|drowsy)\b|\b(dizz\w*|headaches?|nause\w*|light-?headed|vomit\w*|throwing up|drowsy)\b.{0,60}\b(gas|fumes|exhaust)\b|\b(co|carbon monoxide) (detectors?|alarms?|monitors?)\b.{0,60}\b(going off|went off|alarming|sounding)\b|\b(gas|utility) (company|utility|man|guy|crew)\b.{0,40}\b(leave|evacuate|get out|shut (it|everything) off)\b|\b(rotten eggs?|sulfur|sulphur) smell\b|\bsmells? (like|of) (rotten eggs?|sulfur|sulphur|gas)\b|\bhissing\b.{0,30}\b(stove|gas|line|meter)\b/i,
  ],
  [
    'fire',
    /\bsmou?lder(ing|ed|s)?\b|\b(started|starting|began) (to )?(smok(e|ing)|burn(ing)?)\b|\b(carpet|rug|curtains?|couch|mattress|wall|outlet|light|fixture|heater|dryer|cord)\b.{0,20}\b(is|was|are|were) (smoking|burning)\b|\b(on fire|in flames|flames (are |were )?(coming|shooting)|smoke (is )?(coming|pouring) (out|from))\b/i,
  ],
  // Tenth session, from the grouped cross-validation's missed emergencies of the training split (the corpus
  // grown by 830 lines): each checked to fire on no training non-emergency.
  ['security', /\b(was|were|got|been|being) (assaulted|attacked|mugged|jumped|stabbed)\b/i],
  [
    'medical',
    /\bswallowed (a |an |one of (the|my|our) |some |the )?(button )?(batter(y|ies)|magnets?|pills?|bleach|detergent|(laundry |dishwasher )?pods?|cleaner)\b|\b(lying|laying|on the ground|on the floor)\b.{0,40}\b(not (moving|getting up|responding|answering)|unresponsive|won'?t (get up|wake))\b/i,
  ],
  [
    // A neighbour no one has seen: unanswered knocks and mail piling up, someone asked to check on them.
    'medical',
    /\b(not|isn'?t|doesn'?t|hasn'?t|won'?t|nobody) (been )?(answer(ing)?|respond(ing)?|pick(ing)? up)\b.{0,100}\bcheck on (him|her|them)\b|\b(mail|papers?|newspapers?|packages?)\b.{0,40}\bpil(ed|ing) up\b.{0,120}\b(not|isn'?t|doesn'?t|hasn'?t|won'?t)\b.{0,20}\b(answer\w*|respond\w*|seen)\b/i,
  ],
  [
    // Symptoms beside a fuel-burning appliance (carbon monoxide), and gas told as a stink or a valve.
    'gas',
    new RegExp(
      String.raw`\b${SYMPTOMS}\b.{0,100}\b(furnace|heater|boiler|fireplace|generator|stove)\b|\b(furnace|heater|boiler|fireplace|generator)\b.{0,100}\b${SYMPTOMS}\b|\b(stinks?|reeks?|stank) (of|like) (gas|propane)\b|\bpropane\b.{0,60}\b(leak\w*|hiss\w*|whoosh\w*|won'?t (close|shut( off)?))\b|\b(co|carbon monoxide) (detectors?|alarms?|monitors?|meters?)\b.{0,40}\b(reading high|high (numbers|readings?|levels?)|reads? \d{2,3})\b`,
      'i',
    ),
  ],
  [
    'electrical',
    /\b(zaps?|zapped|jolts?|tingl\w*)\b.{0,40}\btouch\w*|\btouch\w*\b.{0,40}\b(zaps?|zapped|jolts?)\b|\b(sizzl\w*|crackl\w*)\b.{0,40}\b(switch|outlet|panel|plug|socket|breaker)\b|\b(switch|outlet|panel|plug|socket|breaker)\b.{0,40}\b(sizzl\w*|crackl\w*)\b|\btransformer\b.{0,40}\b(exploded|blew|blown|went boom|caught)\b|\b(power|electric(al)?) lines?\b.{0,20}\b(down|came down|fell|on the (ground|car|fence|roof))\b/i,
  ],
  [
    'fire',
    /\b(set|caught)\b.{0,25}\balight\b|\b(pan|pot|oil|grease)\b.{0,30}\b(went up|flared( up)?|caught|ignited)\b|\b(went up|flared up|ignited)\b.{0,30}\b(pan|pot|oil|grease)\b|\b(black|scorched|charred|singed)\b.{0,20}\b(still )?(hot|warm|glowing)\b|\bstill (a )?glow(ing)?\b|\btoo hot to touch\b.{0,40}\b(blister\w*|bubbl\w*|scorch\w*|brown\w*|smell\w*)\b/i,
  ],
  [
    'water',
    /\boverflow\w*\b.{0,60}\b(onto|on|all over|across) the (floor|carpet)\b|\b(leak\w*|dripp\w*|coming in|pouring)\b.{0,40}\b(onto|on) (my|the|our) (bed|mattress|crib)\b/i,
  ],
  [
    // Pipes frozen with words between, a falling indoor temperature, a room's reading told without "degrees".
    'heat',
    /\bpipes?\b.{0,30}\bfro(ze|zen)\b|\btemp(erature)?s? (inside |in here |in the (apartment|unit|house) )?(is |are |keeps )?(dropping|falling)\b|\b(bedroom|room|nursery|apartment|unit|house|place)('?s)? is (only |at |down to )?(3\d|4\d|5[0-4])\b(?!\s*(minutes|mins|min|hours|days|years|feet|ft|%|percent|dollars))/i,
  ],
  [
    'security',
    /\b(turning|turned|twisting|jiggl\w*|rattl\w*|tried|trying) (my |our |the |her |his )?(door ?knob|knob|door handle)\b|\b(window|door|latch|screen)\b.{0,80}\b(i|we) (didn'?t|did not|never) (do|open|leave|touch) (that|it)\b|\bcut (through|open|off|the (lock|chain))\b.{0,80}\b(emptied|stole|stolen|took|missing|gone)\b/i,
  ],
  // Tenth session, second round: from the grouped cross-validation's missed emergencies of the training split
  // with eleven writers' lines (4,259); none fires on a training non-emergency.
  [
    'electrical',
    /\bzapped (me|him|her|us|them|my)\b|\b(tingl\w*|stung|buzz(ed|es)?)\b.{0,40}\b(hand|hands|finger|fingers|touch\w*|in the water)\b/i,
  ],
  [
    // Shots, threats and weapons; someone working at a door or window that is not theirs.
    'security',
    /\b(bullet holes?|gun ?shots?|shots fired|(heard|hear|hearing) (gun)?shots|someone (was |got )?shot)\b|\b(threatening|threatened) (people|me|us|tenants|residents|my|our|him|her|them)\b|\b(has|had|with|pulled) a (gun|knife|weapon)\b|\b(someone|somebody|a (man|guy|person|stranger))\b.{0,40}\b(trying|tried|rattl\w*|jiggl\w*|yank\w*|pulling) (at )?(the |my |our |her |his )?(\w+ )?(door|window|lock|handle|knob)s?\b/i,
  ],
  [
    'medical',
    /\b(lips|skin|face|fingers) (are |is )?(turning |gone |going |look |looks )?(blue|gray|grey)\b|\boxygen (machine|concentrator|tank)\b.{0,40}\b(stopped|died|off|out|not working|quit|ran out)\b/i,
  ],
  [
    'fire',
    /\b(dumpster|trash|garbage|car|shed|brush|grass|tree|bush|hedge|mulch)\b.{0,30}\b(going up|went up|is burning|burning up|caught)\b/i,
  ],
  [
    // Water into a light or an outlet, a fixture running over onto the floor, rain driven across a room.
    'water',
    /\b(dripping|leaking|running|coming|pouring) (through|out of|from|into|around) (the |a |my |our )?(light fixture|ceiling light|light|fixture|outlet|socket|panel|breaker box|fan)\b|\b(running|ran|spilling|spilled) over\b.{0,80}\b(floor|hall|hallway|door|under|carpet|downstairs|below)\b|\b(rain|water)\b.{0,40}\b(running|blowing|pouring|coming|streaming)\b.{0,30}\b(across|into|onto) (the |my |our )?(floor|tile|carpet|bedroom|living room|kitchen|hall)\b/i,
  ],
];

/**
 * An indoor temperature a person should not live in: heating codes ask for about 68 °F by day and 62 °F at
 * night, and below 55 °F indoors pipes and people are at risk. Only a reading said to be inside counts
 * ("it's 48 in here", "52 degrees in the apartment"), never the weather outside or a thermostat that is off by
 * a few degrees.
 */
const INDOOR_READING =
  /\b(?<a>\d{2})\s?(°\s?f?|degrees?|deg)?\s?(inside|in here|in (the|my|our) (apartment|unit|house|place|bedroom|living room|kids'? room|home))\b|\b(inside|in here|in (the|my|our) (apartment|unit|house|place|home)|thermostat (says|reads|shows|is at)|(it'?s|is) only)\b.{0,20}?\b(?<b>\d{2})\s?(°\s?f?|degrees?|deg)\b/i;

function coldIndoors(text: string): string | undefined {
  const m = text.match(INDOOR_READING);
  const reading = Number(m?.groups?.a ?? m?.groups?.b);
  return m && reading >= 30 && reading < 55 ? m[0].toLowerCase() : undefined;
}

/** The first backstop phrase in the text, with the kind it names, or undefined. */
export function backstopOf(text: string): { kind: EmergencyKind; phrase: string } | undefined {
  for (const [kind, re] of BACKSTOP) {
    const m = text.match(re);
    if (m) return { kind, phrase: m[0].toLowerCase() };
  }
  const cold = coldIndoors(text);
  return cold ? { kind: 'heat', phrase: cold } : undefined;
}

/**
 * Domain concepts the triage model sees beside a message's words (features.ts). With a few dozen examples a class, a bag of
 * stems only knows the words its examples used; "paramedics" teaches nothing about "ambulance". Each
 * concept below is a general word family of property management (not a list of test sentences); when a
 * message uses any member, the concept is a feature, and the trained weights decide what it means.
 * These are features, not rules: a concept alone never decides a class.
 */
const CONCEPTS: Array<[string, RegExp]> = [
  [
    'hazard',
    /\b(pouring|spraying|gushing|streaming|raining|spewing|shooting|burning|smoking|sparking|arcing|hissing|spreading|smoldering|melting|caving|collapsing|bleeding|screaming|rising)\b|\bcan'?t (stop|breathe|get up|find the (valve|shutoff)|turn it off|shut it off)\b|\b(called|calling|call) (911|the police|the fire)|\b(evacuat\w*|got out|everyone is out)\b/i,
  ],
  [
    'broken',
    /\b(doesn'?t|does not|don'?t|won'?t|wont|isn'?t|stopped|not) (work|working|turn on|come on|latch|close|open|drain|light|spin|start|lock)\b|\b(loose|squeak\w*|sticks|sticky|wobbl\w*|cracked|peeling|chipped|slow|slowly|burn(ed|t) out|out of order)\b/i,
  ],
  [
    'water',
    /\b(water|leak\w*|pour\w*|drip\w*|flood\w*|soak\w*|overflow\w*|burst|gush\w*|spray\w*|puddle|sewage|seep\w*|wet|drain|underwater|submerged|rains? (on|in|into|through|down)|raining (on|in|into|through|down))\b/i,
  ],
  [
    'now',
    /\b(now|right now|help|asap|urgent\w*|immediately|hurry|everywhere|getting worse|won'?t stop|can'?t stop|keeps? coming)\b|!!|🆘|😱|😭|😳/i,
  ],
  [
    'injury',
    /\b(hurt|injur\w*|bleed\w*|blood|fell|fall(en)?|slipp?ed|collaps\w*|unconscious|unresponsive|seizure|faint\w*|passed out|not breathing|breath\w*|overdos\w*|heart attack|allergic|ambulance|paramedics?|ems|emts?|er|911|hospital|broken (arm|leg|wrist|ankle|hip)|head)\b/i,
  ],
  [
    'crime',
    /\b(stole|stolen|steal\w*|theft|thie(f|ves)|robb\w*|burgl\w*|broke in(to)?|break-?in|broken into|forced|pried|pry|smash\w*|intruder|stranger|police|cops?|assault\w*|gun|knife|weapon|mugg\w*|trespass\w*|tamper\w*|kicked in|jimm\w*)\b/i,
  ],
  [
    'cold',
    /\b(freez\w*|cold|degrees|below zero|ice cold|no heat|heat(ing)? (is )?(out|off|dead|broken)|furnace|boiler|radiators?|heater|thermostat|°f?|(sleep\w*|sitting|wearing) (in )?(our |my |their )?(coats|jackets|gloves|hats)|(see|seeing) (our|my) breath)\b|°/i,
  ],
  [
    'fire',
    /\b(fire|flames?|smoke|smoky|burn\w*|burnt|charred|smolder\w*|scorch\w*|embers?|sparks?|extinguisher|firefighters?|fire (dept|department|trucks?))\b/i,
  ],
  ['gas', /\b(gas|fumes|rotten eggs?|sulfur|sulphur|co|carbon monoxide|propane|hiss\w*|ppm|pilot)\b/i],
  [
    'electric',
    /\b(spark\w*|shock\w*|electrocut\w*|electri\w*|wires?|wiring|outlets?|breakers?|panel|arc\w*|melt\w*|transformer|power|plug|volt\w*)\b/i,
  ],
  /** Hazards a person can touch or breathe: exposed live parts, gas or fumes with the body's symptoms. */
  [
    'exposure',
    /\b(live|exposed|bare|hanging|dangling|down(ed)?) (wires?|cables?|lines?)\b|\b(dizz\w*|headaches?|nause\w*|light-?headed|vomit\w*|throwing up|sleepy|drowsy)\b/i,
  ],
  [
    'money',
    /\b(rent|pay\w*|paid|zelle|venmo|check|cheque|deposit|fees?|balance|ledger|autopay|portal|charg\w*|receipts?|money order|ach|late|owe|bank)\b|\$\s?\d/i,
  ],
  [
    'listing',
    /\b(available|availability|listing|listed|advertis\w*|vacanc\w*|vacant|apply\w*|application|applying|for rent|\d\s?(br|bd|bed(room)?s?)|studio|bedrooms?|move[- ]?in|pets?|dogs?|cats?|credit|income|section 8|vouchers?|cosigner|zillow|craigslist|budget|interested)\b/i,
  ],
  [
    'visit',
    /\b(tour|showings?|viewing|view|walk-?through|appointment|reschedul\w*|slots?|come by|stop by|open house|see (the|it|the place|the unit|the apartment))\b/i,
  ],
  [
    'lease',
    /\b(lease|leases|renew\w*|sublet\w*|notice|move out|moving out|vacate|terminat\w*|addendum|month to month|sign(ed)?)\b/i,
  ],
  [
    'vendorwork',
    /\b(invoice|quote|estimate|work order|wo|tech|technician|crew|job|completed?|finished|done|scheduled|eta|parts?|po|install\w*|inspection|permit)\b|#\d+/i,
  ],
  ['intro', /\b(this is|it'?s) \w+ (from|with|at)\b|\b(here|company)\b.*\b(we|our)\b/i],
  [
    'teamask',
    /\b(did (we|anyone|the|they)|has (anyone|the)|have we|any (update|news|new)|what'?s the (status|latest)|who'?s|who (was|is|handled)|remind me|do we|what did (we|the)|is there a task|check if)\b/i,
  ],
  [
    'calm',
    /\b(not urgent|no rush|when(ever)? you (have a chance|get a chance|can)|for (a|two|a couple of) (days?|weeks?|months?)|sometimes|a little|a bit|small|slow(ly)?|minor|nothing major|heads up|still works|works fine|at night|every (day|night|morning)|again|keeps? \w+ing|probably|I think it needs)\b/i,
  ],
  [
    'fixture',
    /\b(faucet|tap|sink|toilet|tub|shower|drain|disposal|dishwasher|fridge|freezer|oven|stove|range|microwave|washer|dryer|door|window|screen|blinds|lock|key|cabinet|drawer|closet|railing|handrail|carpet|tile|grout|caulk|paint|drywall|ceiling fan|fan|light|bulb|gutters?|fence|gate|deck|step|mailbox|intercom|buzzer|doorbell|thermostat|filter|battery|batteries|hinge|mold|mildew|pests?|ants|roaches|mice|mouse|fruit flies)\b/i,
  ],
  [
    'nuisance',
    /\b(neighbou?rs?|upstairs|downstairs|next door|loud|noise|music|party|barking|parking spot|trash|smoking (weed|on)|cat|dog|kids|guests?|visitors?|airbnb|short[- ]term|all hours|foot traffic|com(e|es|ing) and go(es|ing)?|comings and goings|in and out)\b/i,
  ],
  [
    'thanks',
    /\b(thanks?|thank (you|u)|thx|ty|appreciat\w*|ok(ay)?|got it|sounds (good|great)|perfect|great|cool|noted|understood|will do|no problem|alright|yep)\b|👍|🙏/i,
  ],
  [
    'bulk',
    /\b(unsubscribe|newsletter|webinar|promo\w*|offer|deals?|sale|% off|discount|free trial|sign up|register|subscrib\w*|digest|view in browser|preferences|limited time|shop|sav(e|ings)|exclusive|rsvp|blog|guide|podcast|episodes?|tips|report|update|announc\w*|invited?|newsletter|do not reply|no-?reply)\b/i,
  ],
  [
    'scam',
    /\b(verify|verification|suspend\w*|password|gift ?cards?|wire|western union|click|link|log ?in|sign in|credentials|locked|bank (details|account)|cashier'?s check|certified check|overseas|abroad|refund|unclaimed|inheritance|beneficiary|irs|arrest|expire\w*|deactivat\w*|won|winner|claim)\b/i,
  ],
];

const SHORT_WORDS = 5;

/**
 * Safety devices and worn-out bulbs name fire, smoke and gas without any being present ("the smoke detector
 * chirps", "the porch light burned out"): they are their own concept, and are taken out of the text before
 * the hazard families look at it.
 */
const DEVICE =
  /\b((smoke|co|carbon monoxide|fire|gas) (alarms?|detectors?|monitors?)|detectors?|extinguishers?|burn(ed|t) out|bulbs?|batter(y|ies)|chirp\w*|low battery)\b/gi;

/** The concepts a text touches, plus `question` and `short` (five words or fewer). */
export function conceptsOf(text: string): string[] {
  const withoutDevices = text.replace(DEVICE, ' ');
  const tags = CONCEPTS.filter(([, re]) => re.test(withoutDevices)).map(([name]) => name);
  if (withoutDevices !== text) tags.push('device');
  if (text.includes('?')) tags.push('question');
  if (text.trim().split(/\s+/).length <= SHORT_WORDS) tags.push('short');
  return tags;
}

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCorpus, splitCorpus } from '../../../../scripts/triage/corpus';
import { backstopOf } from './backstop';
import { createTriageClassifier } from './classifier';
import { evaluate } from './evaluate';
import { kindByCues, withoutCallForHelp } from './kind-cues';
import { classOf, EMERGENCY_KINDS, kindOf, TRIAGE_CLASSES } from './labels';
import { MODEL_PATH, serializeModel } from './model-file';
import { isHeldApart, nearDuplicates } from './split';
import { trainTriageModel } from './train';

const KEYWORDS =
  'flood,flooding,fire,smoke,gas leak,gas smell,smell gas,no heat,break-in,broken into,burst pipe,carbon monoxide,sparking'.split(
    ',',
  );

/**
 * What the shipped model must keep doing on the held-apart split: regression floors at what it reaches
 * today, so a retrain that regresses fails CI. `original` is the held-apart part of the corpus's first lines
 * (757 examples), the figure comparable across sessions (seventh session: 88.5% / 98.6% / 90.8% after
 * emergency kinds became labels and the threshold 0.3 was chosen on grouped cross-validation of the
 * training split; its second round, 90.6% / 99.1% / 92.4% after 485 new lines and five backstop phrases
 * from the training split's cross-validation misses; eighth session, 92.2% / 99.1% / 92.8% after 321 more
 * lines and the nearest training examples' opinion blended into the choice among routine classes; ninth
 * session, 92.8% / 99.1% / 92.8% after naive Bayes over the same shipped examples joined that choice; tenth
 * session, 93.9% / 99.1% / 94.0% after 3,229 lines from seventeen new writers, 63 fragments and backstop
 * phrases from the training split's misses among them — 94.4% midway, with five writers: with six more the
 * original lines moved −0.7 while the whole split rose +1.4 and every writer left out of training was read
 * better; eleventh session, 94.3% / 99.0% / 94.3% after 8,536 lines from forty-two more writers — 94.5% with thirty-five:
 * the last seven cost two original lines while the whole split rose +0.6 and its recall +0.5);
 * `throughSeventh` is the whole held-apart split as it was when its floor was measured (893 lines:
 * `original` and `seventh-session`). Each floor is asserted on the lines it was measured on: a new line
 * falls held apart by its hash like any other, and lines written at the classes' hardest confusions
 * (`eighth-session`) would move a whole-split floor without anything having regressed; `throughEighth` is
 * the split as it was in the ninth session (994 lines), `throughTenth` with the tenth session's first writer
 * (1,269), `throughTenthWriters` as the tenth session left it (2,340), `whole` the split as it is now
 * (4,885; the eleventh session's writers' lines are read more easily than the older ones, so `whole` alone
 * would hide a regression on those). `npm run bench triage` prints it too. At the end of the
 * tenth session every fixed set is at or above the floors it started with (original 0.928 / 0.99 / 0.927,
 * throughSeventh 0.931 / 0.987 / 0.927, throughEighth 0.927 / 0.983 / 0.921); the last six writers cost one
 * held-apart emergency of `seventh-session` and found one of `tenth-session` (recall on the 1,997 lines that
 * were there unchanged, accuracy +0.4, precision +1.3), so those two recall floors are the session's first.
 * At the end of the eleventh session every fixed set is again at or above where that session started. The
 * issue's targets are accuracy ≥ 95%, emergency recall 100% and precision ≥ 90%. On the whole split,
 * accuracy and precision are reached and recall is not (98.6%, truncated); on `original`, accuracy is not
 * reached either (94.3%).
 * `npm run bench triage` prints the figures beside the keyword baseline.
 */
const LATER = ['seventh-session', 'eighth-session', 'tenth-session'];
/** The tenth session's writers after its first (`tenth-session-2` … `-17`), and its fragments. */
const WRITERS = [
  ...Array.from({ length: 16 }, (_, i) => `tenth-session-${i + 2}`),
  'tenth-session-fragments',
];
/** The eleventh session's writers (`eleventh-session-1` …), each measured on the shipped model first. */
const ELEVENTH = Array.from({ length: 42 }, (_, i) => `eleventh-session-${i + 1}`);
const FLOORS = {
  original: { sources: ['original'], accuracy: 0.943, emergencyRecall: 0.99, emergencyPrecision: 0.943 },
  throughSeventh: {
    sources: ['original', 'seventh-session'],
    accuracy: 0.946,
    emergencyRecall: 0.987,
    emergencyPrecision: 0.942,
  },
  throughEighth: {
    sources: ['original', 'seventh-session', 'eighth-session'],
    accuracy: 0.943,
    emergencyRecall: 0.983,
    emergencyPrecision: 0.942,
  },
  throughTenth: {
    sources: ['original', ...LATER],
    accuracy: 0.945,
    emergencyRecall: 0.981,
    emergencyPrecision: 0.954,
  },
  throughTenthWriters: {
    sources: ['original', ...LATER, ...WRITERS],
    accuracy: 0.95,
    emergencyRecall: 0.982,
    emergencyPrecision: 0.96,
  },
  whole: {
    sources: ['original', ...LATER, ...WRITERS, ...ELEVENTH],
    accuracy: 0.959,
    emergencyRecall: 0.986,
    emergencyPrecision: 0.963,
  },
};

const corpus = loadCorpus();
const { training, heldApart } = splitCorpus(corpus);

describe('triage corpus and split', () => {
  it('has at least 40 examples of every class', () => {
    for (const c of TRIAGE_CLASSES) {
      expect(corpus.filter((e) => classOf(e.label) === c).length, c).toBeGreaterThanOrEqual(40);
    }
  });

  it('holds apart at least 8 examples of each emergency kind, chosen by the hash of the text alone', () => {
    for (const kind of EMERGENCY_KINDS) {
      expect(heldApart.filter((e) => kindOf(e.label) === kind).length, kind).toBeGreaterThanOrEqual(8);
    }
    expect(heldApart.every((e) => isHeldApart(e.text))).toBe(true);
    expect(isHeldApart('Water is pouring!')).toBe(isHeldApart('water is pouring'));
  });

  it('has no near-duplicates across the split, nor an example in it twice', () => {
    const close = nearDuplicates(
      heldApart.map((e) => e.text),
      training.map((e) => e.text),
    );
    expect(close).toEqual([]);
    const seen = new Set<string>();
    const twice = corpus.map((e) => e.text.toLowerCase()).filter((t) => seen.size === seen.add(t).size);
    expect(twice).toEqual([]);
  });
});

describe('triage model', () => {
  it('is what training the corpus gives, byte for byte (run `npm run train:triage` after a corpus change)', async () => {
    const trained = serializeModel(trainTriageModel(training));
    expect(trained === readFileSync(MODEL_PATH, 'utf8')).toBe(true);
  }, 300_000);

  it('keeps its figures on the held-apart lines each floor was measured on', async () => {
    const classifier = createTriageClassifier();
    for (const [name, floor] of Object.entries(FLOORS)) {
      const part = heldApart.filter((e) => floor.sources.includes(e.source));
      const e = await evaluate(part, async (t) => (await classifier.classify(t, KEYWORDS)).triageClass);
      expect(e.accuracy, name).toBeGreaterThanOrEqual(floor.accuracy);
      expect(e.emergencyRecall, name).toBeGreaterThanOrEqual(floor.emergencyRecall);
      expect(e.emergencyPrecision, name).toBeGreaterThanOrEqual(floor.emergencyPrecision);
    }
  }, 240_000);

  it('lets the keyword floor win where it and the model disagree', async () => {
    const classifier = createTriageClassifier();
    const calm = await classifier.classify('thanks, see you tomorrow', []);
    expect(calm.triageClass).toBe('thanks');
    const floored = await classifier.classify('thanks, see you tomorrow', ['tomorrow']);
    expect(floored).toMatchObject({ triageClass: 'emergency', modelClass: 'thanks', byKeywordFloor: true });
    expect(floored.cues).toEqual(['tomorrow']);
  });

  it('pages on a safety phrase the model reads as routine, and says which phrase', async () => {
    const classifier = createTriageClassifier();
    const text = 'my husband is having a stroke, please send someone to open the back door for the EMTs';
    const r = await classifier.classify(text, KEYWORDS);
    expect(r).toMatchObject({ triageClass: 'emergency', kind: 'medical' });
    if (r.byKeywordFloor) expect(r.cues).toEqual(['having a stroke']);
    const device = await classifier.classify(
      'the smoke detector in the hall chirps, battery is low',
      KEYWORDS,
    );
    expect(backstopOf('the smoke detector in the hall chirps, battery is low')).toBeUndefined();
    expect(device.kind ?? 'none').not.toBe('medical');
  });

  it('pages on what a property manager knows is an emergency without its words: cold indoors, gas with symptoms, a burglary', () => {
    expect(backstopOf("it's 48 degrees inside and the kids are in coats")).toMatchObject({ kind: 'heat' });
    expect(backstopOf('the thermostat says 51 degrees')).toMatchObject({ kind: 'heat' });
    expect(backstopOf('my thermostat is reading 5 degrees off')).toBeUndefined();
    expect(backstopOf('it was 40 degrees outside today, brr')).toBeUndefined();
    expect(backstopOf('it is 64 degrees inside, a bit chilly')).toBeUndefined();
    expect(backstopOf('strong gas smell and my wife feels dizzy')).toMatchObject({ kind: 'gas' });
    expect(backstopOf('the gas company came and told us to leave')).toMatchObject({ kind: 'gas' });
    expect(backstopOf('we got burgled while we were away')).toMatchObject({ kind: 'security' });
    expect(backstopOf('the deadbolt was drilled out')).toMatchObject({ kind: 'security' });
    expect(backstopOf("heat hasn't worked since Friday and my toddler is sick")).toMatchObject({
      kind: 'heat',
    });
    expect(backstopOf('the heater is slow to warm up, the baby room is fine')).toBeUndefined();
    expect(backstopOf('the laundry room is under water')).toMatchObject({ kind: 'water' });
    expect(backstopOf('there are exposed wires where the old light was')).toMatchObject({
      kind: 'electrical',
    });
    // From the grown corpus's cross-validation misses (training split), second round of the seventh session.
    expect(backstopOf('I got a shock from the bathroom light switch')).toMatchObject({ kind: 'electrical' });
    expect(backstopOf("we're using the oven to keep warm, the furnace is off")).toMatchObject({
      kind: 'heat',
    });
    expect(backstopOf('a man forced his way in behind me at the lobby')).toMatchObject({ kind: 'security' });
    expect(backstopOf('a waterfall is coming through the garage roof')).toMatchObject({ kind: 'water' });
    expect(backstopOf('my neighbour passed out on the stairs')).toMatchObject({ kind: 'medical' });
    expect(backstopOf('we passed the waterfall on the drive up')).toBeUndefined();
    // Eighth session, from the grown corpus's cross-validation misses (training split): things smouldering
    // or starting to burn, a CO alarm sounding, a hose or tank that gave way, a swelling allergic reaction,
    // someone working door handles, cold with children, heat from an oven with its door open.
    expect(backstopOf('the bathroom fan started smoking when I turned it on')).toMatchObject({
      kind: 'fire',
    });
    expect(backstopOf('the rug under the space heater is smouldering')).toMatchObject({ kind: 'fire' });
    expect(backstopOf('is smoking allowed on the balcony?')).toBeUndefined();
    expect(
      backstopOf('the dryer smells a bit like burning dust, can someone look at the vent'),
    ).toBeUndefined();
    expect(backstopOf('the carbon monoxide alarm in the basement keeps going off')).toMatchObject({
      kind: 'gas',
    });
    expect(backstopOf('the CO detector needs a new battery, it chirps')).toBeUndefined();
    expect(backstopOf('the washer hose burst behind the machine')).toMatchObject({ kind: 'water' });
    expect(backstopOf('my son ate something and his lips are swelling')).toMatchObject({ kind: 'medical' });
    expect(backstopOf('a guy is checking car door handles in the lot')).toMatchObject({ kind: 'security' });
    expect(
      backstopOf(
        'the furnace is dead since yesterday morning, it is snowing hard and the children are freezing',
      ),
    ).toMatchObject({ kind: 'heat' });
    expect(backstopOf('we have the stove on with the oven door open to keep warm')).toMatchObject({
      kind: 'heat',
    });
  });

  it('names an emergency without its keywords, with its kind and the words that weighed', async () => {
    const classifier = createTriageClassifier();
    const r = await classifier.classify('water is pouring through my kitchen ceiling', KEYWORDS);
    expect(r).toMatchObject({ triageClass: 'emergency', kind: 'water', byKeywordFloor: false });
    expect(r.cues.length).toBeGreaterThan(0);
  });

  it('explains a card with words, not bare numbers or scraps', async () => {
    const classifier = createTriageClassifier();
    const r = await classifier.classify(
      'hi, is the 2 bed on Elm on the ground floor? and do you allow a small dog',
      KEYWORDS,
    );
    expect(r.triageClass).toBe('lead');
    expect(r.cues.length).toBeGreaterThan(0);
    for (const cue of r.cues) expect(cue).toMatch(/^[a-z][a-z ]{2,}$/);
    // Words that weigh but explain nothing ("still", "got", "did") are not shown: the next ones are.
    for (const text of ['hi is the 2 bed on elm still available?', 'did the plumber confirm for 22 Oak?']) {
      const cues = (await classifier.classify(text, KEYWORDS)).cues;
      expect(cues.length, text).toBeGreaterThan(0);
      expect(
        cues.filter((c) => ['still', 'did', 'got', 'the', 'for'].includes(c)),
        text,
      ).toEqual([]);
    }
  });
});

describe('what a property manager reads the way a model does not', () => {
  it('pages a prowler as security even when 911 was called: the call says help was sent for, not what for', async () => {
    const classifier = createTriageClassifier();
    for (const text of [
      'a man went down our hallway trying every door handle, I called 911',
      'someone keeps jiggling my lock, we called 911 and are hiding in the bedroom',
    ]) {
      const r = await classifier.classify(text, KEYWORDS);
      expect(r, text).toMatchObject({ triageClass: 'emergency', kind: 'security' });
    }
    expect(withoutCallForHelp('I called 911, my dad collapsed')).not.toMatch(/911|called/);
  });

  it('leaves the kind to the model when someone is hurt or another hazard is named', async () => {
    expect(kindByCues('someone broke in and my roommate is bleeding, called 911')).toBeUndefined();
    expect(kindByCues('somebody tried the door and now there is smoke in the hall')).toBeUndefined();
    expect(kindByCues('a stranger is trying the windows of the ground floor units')).toBe('security');
    const classifier = createTriageClassifier();
    const hurt = await classifier.classify(
      'my mom slipped on the stairs and cannot get up, I called 911',
      KEYWORDS,
    );
    expect(hurt).toMatchObject({ triageClass: 'emergency', kind: 'medical' });
  });

  it('does not page a busy building: guests and visitors coming and going late are a neighbour matter', async () => {
    const classifier = createTriageClassifier();
    for (const text of [
      'guests coming and going late at night from the unit across the hall, it never stops',
      'people in and out of 6A at all hours, I think they rent it out to tourists',
      'our neighbours visitors keep coming and going till 1am and slamming the lobby door',
    ]) {
      const r = await classifier.classify(text, KEYWORDS);
      expect(r.triageClass, text).not.toBe('emergency');
      expect(backstopOf(text), text).toBeUndefined();
    }
  });
});

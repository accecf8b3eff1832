import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCorpus, splitCorpus } from '../../../../scripts/triage/corpus';
import { backstopOf } from './backstop';
import { createTriageClassifier } from './classifier';
import { evaluate } from './evaluate';
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
 * today (seventh session: 88.5% / 98.6% / 90.8% on 757 held apart, after emergency kinds became labels of
 * the class model and the threshold 0.3 was chosen on grouped cross-validation of the training split), so
 * a retrain that regresses fails CI. The targets are accuracy ≥ 95%, emergency recall 100% and
 * precision ≥ 90%; accuracy and recall are not reached. `npm run bench triage` prints the figures beside
 * the keyword baseline.
 */
const FLOORS = { accuracy: 0.885, emergencyRecall: 0.986, emergencyPrecision: 0.907 };

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
    const texts = corpus.map((e) => e.text.toLowerCase());
    expect(texts.filter((t, i) => texts.indexOf(t) !== i)).toEqual([]);
  });
});

describe('triage model', () => {
  it('is what training the corpus gives, byte for byte (run `npm run train:triage` after a corpus change)', async () => {
    const trained = serializeModel(trainTriageModel(training));
    expect(trained === readFileSync(MODEL_PATH, 'utf8')).toBe(true);
  }, 120_000);

  it('keeps its figures on the held-apart split', async () => {
    const classifier = createTriageClassifier();
    const e = await evaluate(heldApart, async (t) => (await classifier.classify(t, KEYWORDS)).triageClass);
    expect(e.accuracy).toBeGreaterThanOrEqual(FLOORS.accuracy);
    expect(e.emergencyRecall).toBeGreaterThanOrEqual(FLOORS.emergencyRecall);
    expect(e.emergencyPrecision).toBeGreaterThanOrEqual(FLOORS.emergencyPrecision);
  }, 60_000);

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
  });

  it('names an emergency without its keywords, with its kind and the words that weighed', async () => {
    const classifier = createTriageClassifier();
    const r = await classifier.classify('water is pouring through my kitchen ceiling', KEYWORDS);
    expect(r).toMatchObject({ triageClass: 'emergency', kind: 'water', byKeywordFloor: false });
    expect(r.cues.length).toBeGreaterThan(0);
  });
});

/**
 * Word clusters for the triage model (issue 17): the corpus has a few dozen examples a class, so a bag of
 * words knows only the words its examples used. Clusters of pretrained word vectors (seeded spherical
 * k-means, `npm run triage:clusters`) group "ambulance" with "paramedics" and "ceiling" with "roof", and each
 * word also gives its cluster as a feature (features.ts), which the classifier can weigh for words no
 * training example used. Two granularities: a fine cluster and the coarse group its centre falls in.
 */
export interface WordClustersJson {
  /** The npm package the vectors came from, `name@version`, and its tarball's sha256. */
  source: string;
  sha256: string;
  seed: number;
  /** Line j holds fine cluster j's words, separated by spaces. */
  words: string;
  /** `coarse[j]` is fine cluster j's coarse group. */
  coarse: number[];
}

export interface WordCluster {
  fine: number;
  coarse: number;
}

/** Word → its clusters, built once per table. */
export function loadWordClusters(table: WordClustersJson): Map<string, WordCluster> {
  const out = new Map<string, WordCluster>();
  table.words.split('\n').forEach((line, fine) => {
    const coarse = table.coarse[fine] ?? 0;
    for (const w of line.split(' ')) if (w) out.set(w, { fine, coarse });
  });
  return out;
}

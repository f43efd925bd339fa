export { assertTrustSourcesExist } from "./assert-trust-sources-exist";
export { refreshDueTrustSources } from "./refresh-trust-source";
export { trustSourceAnchors, trustSourceAnchorsIn, trustSourceListOf } from "./trust-source-anchors";
export { trustSourceRepository } from "./trust-source-repository";
